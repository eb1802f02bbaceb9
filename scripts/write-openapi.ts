/**
 * Writes openapi.json (the committed OpenAPI 3.1 document) from the running app's schemas.
 * test/openapi.test.ts fails while the committed file differs from what this writes.
 */
import { writeFileSync } from 'node:fs';
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

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(OPENAPI_PATH, await renderOpenApi());
  process.stdout.write(`wrote ${OPENAPI_PATH}\n`);
}
