/** `inmo properties import` (CONTRACT §9, shared/data/README.md): the catalogue of a business. */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { Option, type Command } from 'commander';
import type { RejectedLine } from '../services/catalogue/import/import.ts';
import { IMPORT_FORMATS, type ImportFormat } from '../domain/catalogue/feed-formats.ts';
import { action, cli, CliError, command, plural, positiveInt, print, withDb } from './common.ts';

/**
 * Exit status of an import that wrote what it could but rejected some lines, so scripts can
 * tell "all imported" (0) from "imported with rejections" (this) and from failure (1).
 */
export const EXIT_IMPORTED_WITH_REJECTIONS = 3;

/**
 * The size of the file to import, bytes.
 * @throws CliError saying why it cannot be read: missing, not a file, no permission.
 */
async function readableSize(file: string): Promise<number> {
  const cannotRead = (error: NodeJS.ErrnoException): never => {
    const why =
      error.code === 'ENOENT'
        ? 'no such file'
        : error.code === 'EACCES'
          ? 'permission denied'
          : error.code === 'ENOTDIR'
            ? 'a folder in its path is not a folder'
            : error.message;
    throw new CliError(`Cannot read ${file}: ${why}`);
  };
  const info = await stat(file).catch(cannotRead);
  if (!info.isFile()) throw new CliError(`Cannot read ${file}: ${info.isDirectory() ? 'it is a folder' : 'not a regular file'}`);
  // stat needs no permission on the file itself; reading does.
  await access(file, constants.R_OK).catch(cannotRead);
  return info.size;
}

/** A rejection as the report lists it: the line, or a feed's property with its position and `<id>`. */
const describeRejection = (format: ImportFormat | undefined) => (r: RejectedLine) =>
  format === 'kyero' ? `  property ${r.line}${r.id === undefined ? '' : ` (<id> ${r.id})`}: ${r.reason}` : `  line ${r.line}: ${r.reason}`;

export function register(program: Command): void {
  const properties = program.command('properties').description('the property catalogue');
  command(
    properties,
    'import',
    `upsert a business's listings by external_ref from an NDJSON file or a Kyero v3 feed (told apart by content); rejected lines or properties are listed and skipped (exit status ${EXIT_IMPORTED_WITH_REJECTIONS} when any was)`,
  )
    .requiredOption('--business <id>', 'business id (required)', positiveInt)
    .option(
      '--full',
      'the file is the whole catalogue: withdraw the listings it does not name; a file with any rejected line is refused and nothing is written',
    )
    .addOption(new Option('--format <format>', 'read the file as this format instead of telling by its content').choices(IMPORT_FORMATS))
    .argument('<file>', 'NDJSON file in the import format, or a Kyero v3 XML feed')
    .action(
      action(async (file: string, opts: { business: number; full?: boolean; format?: ImportFormat }) => {
        const { importCatalogueFile, importFullCatalogueFile } = await import('../services/catalogue/import/import.ts');
        const size = await readableSize(file);
        // The progress bar's library loads only for a terminal.
        const cliProgress = cli.stderr.isTTY && !cli.json ? (await import('cli-progress')).default : null;
        const bar = cliProgress
          ? new cliProgress.SingleBar(
              { format: 'importing |{bar}| {percentage}% | {lines} lines | {eta_formatted} left{stage}', stream: cli.stderr },
              cliProgress.Presets.shades_classic,
            )
          : null;
        bar?.start(size, 0, { lines: 0, stage: '' });
        const started = performance.now();
        const progress = (lines: number, bytes: number, stage?: 'indexing') =>
          bar?.update(Math.min(bytes, size), { lines, stage: stage === 'indexing' ? ' | building the indexes' : '' });
        const summary = await withDb((db) =>
          opts.full
            ? importFullCatalogueFile(db, opts.business, file, progress, opts.format)
            : importCatalogueFile(db, opts.business, file, progress, opts.format),
        ).finally(() => bar?.stop());
        if ('refused' in summary && summary.refused) {
          const lines = summary.rejected.map(describeRejection(summary.format)).join('\n');
          const { refused: _refused, ...report } = summary;
          print(report, `nothing imported: --full refuses a file with rejected lines\n${lines}`);
          cli.exitCode = EXIT_IMPORTED_WITH_REJECTIONS;
          return;
        }
        const seconds = (performance.now() - started) / 1000;
        const rejected = summary.rejected.map(describeRejection(summary.format)).join('\n');
        const repeated = summary.repeated
          ? `; ${plural(summary.repeated, 'line', 'lines')} repeated an earlier external_ref (the last one wins)`
          : '';
        const withdrawn = 'withdrawn' in summary ? `, withdrawn ${summary.withdrawn}` : '';
        const { refused: _refused, ...report } = summary as typeof summary & { refused?: boolean };
        print(
          report,
          `created ${summary.created}, updated ${summary.updated}${withdrawn}, rejected ${summary.rejected.length} in ${seconds.toFixed(1)} s${repeated}` +
            (rejected ? `\n${rejected}` : ''),
        );
        if (summary.rejected.length) cli.exitCode = EXIT_IMPORTED_WITH_REJECTIONS;
      }),
    );
}
