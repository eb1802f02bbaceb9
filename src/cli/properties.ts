/** `inmo properties import` (CONTRACT §9, shared/data/README.md): the catalogue of a business. */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import cliProgress from 'cli-progress';
import type { Command } from 'commander';
import { importCatalogueFile, importFullCatalogueFile } from '../services/catalogue-import.ts';
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

export function register(program: Command): void {
  const properties = program.command('properties').description('the property catalogue');
  command(
    properties,
    'import',
    `upsert a business's listings by external_ref from an NDJSON file; rejected lines are listed and skipped (exit status ${EXIT_IMPORTED_WITH_REJECTIONS} when any was)`,
  )
    .requiredOption('--business <id>', 'business id (required)', positiveInt)
    .option(
      '--full',
      'the file is the whole catalogue: withdraw the listings it does not name; a file with any rejected line is refused and nothing is written',
    )
    .argument('<file>', 'NDJSON file in the import format')
    .action(
      action(async (file: string, opts: { business: number; full?: boolean }) => {
        const size = await readableSize(file);
        const bar =
          cli.stderr.isTTY && !cli.json
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
          opts.full ? importFullCatalogueFile(db, opts.business, file, progress) : importCatalogueFile(db, opts.business, file, progress),
        ).finally(() => bar?.stop());
        if ('refused' in summary && summary.refused) {
          const lines = summary.rejected.map((r) => `  line ${r.line}: ${r.reason}`).join('\n');
          const { refused: _refused, ...report } = summary;
          print(report, `nothing imported: --full refuses a file with rejected lines\n${lines}`);
          cli.exitCode = EXIT_IMPORTED_WITH_REJECTIONS;
          return;
        }
        const seconds = (performance.now() - started) / 1000;
        const rejected = summary.rejected.map((r) => `  line ${r.line}: ${r.reason}`).join('\n');
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
