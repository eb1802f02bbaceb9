/**
 * The layering the code keeps (docs/architecture.md), checked on the sources so that a change
 * that breaks it fails here rather than in a review: settings come from config.ts alone, the
 * domain depends on nothing of storage or transport, and the console's pages get their data
 * from services that take the business id (tenancy by construction), never from repositories.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/db.ts';

const SRC = join(REPO_ROOT, 'src');

function sourcesUnder(dir: string): string[] {
  return readdirSync(join(SRC, dir), { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/**
 * The modules of src/ a file imports (relative specifiers, resolved), as paths relative to src/:
 * `import … from`, `import type … from`, `export … from` and bare `import '…'`; not `await import(…)`,
 * which loads a module only when it runs (the CLI's commands).
 */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^(?:import|export)\b(?:[^;]*?\bfrom\s+|\s*)'(\.[^']+)'/gms)].map(([, spec]) =>
    relative(SRC, resolve(dirname(file), spec)),
  );
}

/**
 * The import cycles among the files of src/ (as `madge --circular` finds them, type imports
 * included): one per import that leads back to a module still being walked, each written
 * `a.ts → b.ts → … → a.ts`, relative to src/.
 */
function importCycles(): string[] {
  const graph = new Map(sourcesUnder('.').map((file) => [relative(SRC, file), importsOf(file)] as const));
  const cycles: string[] = [];
  const done = new Set<string>();
  const path: string[] = [];
  const walk = (module: string): void => {
    path.push(module);
    for (const next of graph.get(module) ?? []) {
      const at = path.indexOf(next);
      if (at >= 0) cycles.push([...path.slice(at), next].join(' → '));
      else if (!done.has(next) && graph.has(next)) walk(next);
    }
    path.pop();
    done.add(module);
  };
  for (const module of [...graph.keys()].sort()) if (!done.has(module)) walk(module);
  return cycles;
}

/** `from` → imported module, for every import of the files under `dir` that lands under one of `forbidden`. */
function importsInto(dir: string, forbidden: string[]): string[] {
  return sourcesUnder(dir).flatMap((file) =>
    importsOf(file)
      .filter((target) => forbidden.some((prefix) => target.startsWith(prefix)))
      .map((target) => `${relative(SRC, file)} → ${target}`),
  );
}

describe('a CLI that starts at once (issue 42)', () => {
  it('what src/main.ts loads before a command runs is the program alone: commander, no server, database or image code', async () => {
    const { build } = await import('esbuild');
    const { metafile } = await build({
      absWorkingDir: REPO_ROOT,
      entryPoints: ['src/main.ts'],
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      packages: 'external',
      outdir: 'dist/architecture-test',
      metafile: true,
      write: false,
      logLevel: 'silent',
    });
    // The outputs main.mjs imports statically, and theirs: what runs before any `await import(…)`.
    const packages = new Set<string>();
    const sources = new Set<string>();
    const visit = (output: string, seen = new Set<string>()): void => {
      if (seen.has(output)) return;
      seen.add(output);
      for (const input of Object.keys(metafile.outputs[output].inputs)) sources.add(input);
      for (const imported of metafile.outputs[output].imports) {
        if (imported.kind !== 'import-statement') continue;
        if (imported.external) packages.add(imported.path);
        else visit(imported.path, seen);
      }
    };
    visit(Object.keys(metafile.outputs).find((output) => metafile.outputs[output].entryPoint === 'src/main.ts')!);
    expect([...packages].filter((name) => !name.startsWith('node:')).sort()).toEqual(['commander']);
    expect(sources.has('src/cli/program.ts')).toBe(true);
    // Settings' defaults (config.ts reads them) are plain values, apart from the code they set.
    const code = [...sources].filter((source) => !/settings\.ts$/.test(source));
    expect(code.filter((source) => /^src\/(services|db\/|http|app\.ts|jobs|media)/.test(source))).toEqual([]);
  });
});

describe('layering', () => {
  it('process.env is read only by config.ts, and handed to commands by the CLI (everything else is given its settings)', () => {
    const readers = sourcesUnder('.')
      .filter((file) => /\bprocess\.env\b/.test(readFileSync(file, 'utf8').replace(/^\s*(\*|\/\/).*$/gm, '')))
      .map((file) => relative(SRC, file))
      .sort();
    expect(readers).toEqual(['cli/common.ts', 'cli/run.ts', 'config.ts']);
  });

  it('the domain imports nothing of storage, schemas, services or HTTP', () => {
    expect(importsInto('domain', ['db/', 'schemas/', 'services/', 'http/', 'jobs/', 'cli/'])).toEqual([]);
  });

  it('storage imports nothing of services, HTTP, jobs or the CLI', () => {
    expect(importsInto('db', ['services/', 'http/', 'jobs/', 'cli/'])).toEqual([]);
  });

  it('no module of src/ imports itself back through others (issue 56: no import cycle)', () => {
    const cycles = importCycles();
    expect(cycles, `import cycles in src/:\n${cycles.join('\n')}`).toEqual([]);
  });

  it('the settings, the errors and the limits at the top of src/ import nothing of HTTP, validation, services or the CLI (issue 56)', () => {
    // (config.ts reads the defaults of db/, jobs/ and channels/ from their plain settings' modules.)
    // Every module at the top of src/ but the two that put the layers together: the app and the CLI's entry.
    const top = readdirSync(SRC).filter((file) => file.endsWith('.ts') && file !== 'app.ts' && file !== 'main.ts');
    expect(top).toContain('config.ts');
    const upward = top.flatMap((file) =>
      importsOf(join(SRC, file))
        .filter((target) => /^(http|validation|services|cli)\//.test(target))
        .map((target) => `${file} → ${target}`),
    );
    expect(upward).toEqual([]);
  });

  it('services never import the worker: jobs/ calls services, not the other way round (issue 56)', () => {
    // Until the one outbox lands (issue 56 item 1), two services still name the worker's send
    // code; that work removes these imports and then this list. Nothing may be added to it.
    const notYet = ['services/leads/alerts.ts', 'services/leads/hand-sends.ts'];
    const climbs = importsInto('services', ['jobs/']).filter((edge) => !notYet.includes(edge.split(' → ')[0]));
    expect(climbs).toEqual([]);
  });

  it("only src/db/ knows the engine: nothing else reads a handle's engine, its own client or what the engine can do", () => {
    const knowing = sourcesUnder('.')
      .filter((file) => !relative(SRC, file).startsWith('db/'))
      .filter((file) =>
        /\.engine\b|\b(connectionOf|commitsConcurrently|locksRows|readsMustLock)\b/.test(
          readFileSync(file, 'utf8').replace(/^\s*(\*|\/\/).*$/gm, ''),
        ),
      )
      .map((file) => relative(SRC, file));
    expect(knowing).toEqual([]);
  });

  it('services import nothing of the worker: jobs/ runs services, never the other way (issue 56)', () => {
    expect(importsInto('services', ['jobs/'])).toEqual([]);
  });

  it('a message to a person is queued by the outbox alone: no service outside it queues a send_message job or writes an outbound message row (issue 56)', () => {
    const outbox = 'services/messaging/outbox.ts';
    const writers = sourcesUnder('services')
      .filter((file) => relative(SRC, file) !== outbox)
      .filter((file) => /\binsertOutbound\b|kind: 'send_(message|alert|viewing_notice)'/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(SRC, file));
    expect(writers).toEqual([]);
  });

  it("HTTP sees one Idempotency-Key API: it recognises none of the database's errors", () => {
    expect(importsInto('http', ['db/errors.ts'])).toEqual([]);
  });

  it("the console's pages take their data from services, never from repositories (the database handle is only passed on)", () => {
    expect(importsInto('http/console', ['db/repositories/', 'secrets.ts'])).toEqual([]);
  });

  it('SQL is written only in src/db/: nothing else builds a statement (issue 56)', () => {
    const statement = /\.(selectFrom|insertInto|updateTable|deleteFrom|replaceInto)\(|\bsql`|\bsql</;
    const writing = sourcesUnder('.')
      .map((file) => relative(SRC, file))
      .filter((file) => !file.startsWith('db/') && statement.test(readFileSync(join(SRC, file), 'utf8')));
    expect(writing.sort()).toEqual([]);
    // The check itself works: the repositories are found writing statements.
    expect(statement.test(readFileSync(join(SRC, 'db', 'repositories', 'leads.ts'), 'utf8'))).toBe(true);
  });

  it('every folder of src/ is on the map of docs/architecture.md, and the map names no folder that is gone', () => {
    const folders = readdirSync(SRC, { withFileTypes: true, recursive: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => `${relative(REPO_ROOT, join(entry.parentPath, entry.name))}/`);
    const map = readFileSync(join(REPO_ROOT, 'docs', 'architecture.md'), 'utf8');
    const mapped = [...map.matchAll(/^(src\/\S*)\s/gm)].map(([, folder]) => folder);
    expect(folders.length).toBeGreaterThan(20);
    expect(folders.filter((folder) => !mapped.includes(folder)).sort()).toEqual([]);
    expect(mapped.filter((folder) => folder !== 'src/' && !folders.includes(folder)).sort()).toEqual([]);
  });

  it('finds the imports it checks (the check itself works)', () => {
    expect(importsOf(join(SRC, 'http', 'console', 'sections', 'leads.ts'))).toContain('services/leads/leads.ts');
    // Type imports and re-exports count: a cycle through them is a cycle of the design.
    expect(importsOf(join(SRC, 'db', 'repositories', 'new-lead-statement.ts'))).toContain('db/repositories/idempotency.ts');
    expect(importsOf(join(SRC, 'domain', 'leads', 'portal-emails', 'index.ts'))).toContain('domain/leads/portal-emails/parsers.ts');
    expect(importCycles).not.toThrow();
  });
});

describe('one way to write a page (issue 56)', () => {
  it('no file of src/http/ holds an HTML page as a string: pages are Eta templates, rendered as the console renders', () => {
    const pages = sourcesUnder('http')
      .filter((file) => /<html\b|<!doctype|<body\b|<head\b/i.test(readFileSync(file, 'utf8')))
      .map((file) => relative(SRC, file))
      .sort();
    expect(pages).toEqual([]);
  });
});
