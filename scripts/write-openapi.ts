/**
 * Writes openapi.json (the committed OpenAPI 3.1 document) from the running app's schemas, and
 * test/client/openapi.d.ts, the TypeScript types openapi-typescript generates from it (the
 * client check of test/unit/openapi-tooling.test.ts compiles against them). The tests fail while
 * either committed file differs from what this writes.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../src/app.ts';
import { createDb, migrate } from '../src/db/database.ts';

/** The document as the server builds it, formatted as committed. */
export async function renderOpenApi(): Promise<string> {
  const db = createDb('sqlite::memory:');
  await migrate(db);
  const app = await buildApp({ db });
  await app.ready();
  const text = `${JSON.stringify(app.swagger(), null, 2)}\n`;
  await app.close();
  await db.destroy();
  return text;
}

export const OPENAPI_PATH = fileURLToPath(new URL('../openapi.json', import.meta.url));
export const CLIENT_TYPES_PATH = fileURLToPath(new URL('../test/client/openapi.d.ts', import.meta.url));
const OPENAPI_TYPESCRIPT = fileURLToPath(new URL('../node_modules/openapi-typescript/bin/cli.js', import.meta.url));

/**
 * The client types openapi-typescript generates from a document's text. Defaults do not make
 * a field required (`--default-non-nullable false`): a request may leave them out.
 */
export function renderClientTypes(openapiText: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'inmo-openapi-'));
  try {
    writeFileSync(join(dir, 'openapi.json'), openapiText);
    execFileSync(
      process.execPath,
      [OPENAPI_TYPESCRIPT, join(dir, 'openapi.json'), '--default-non-nullable', 'false', '-o', join(dir, 'openapi.d.ts')],
      {
        stdio: 'ignore',
      },
    );
    return readFileSync(join(dir, 'openapi.d.ts'), 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const text = await renderOpenApi();
  writeFileSync(OPENAPI_PATH, text);
  writeFileSync(CLIENT_TYPES_PATH, renderClientTypes(text));
  process.stdout.write(`wrote ${OPENAPI_PATH} and ${CLIENT_TYPES_PATH}\n`);
}
