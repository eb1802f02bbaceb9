/**
 * Writes the generated pages of docs/: configuration.md from config.ts's `SETTINGS` (every
 * environment variable) and errors.md from errors.ts's `ERRORS` (every error, its status and
 * its message): `npm run docs`. test/unit/docs.test.ts fails while a committed page differs
 * from what this writes, as test/db/integrations/openapi.test.ts does for openapi.json.
 */
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { SETTINGS } from '../src/config.ts';
import { ERRORS } from '../src/errors.ts';
import { inPackage } from '../src/package-root.ts';

export const CONFIGURATION_PATH = inPackage('docs', 'configuration.md');
export const ERRORS_PATH = inPackage('docs', 'errors.md');

const GENERATED = (source: string) => `<!-- Generated from ${source} by \`npm run docs\`: edit the source, not this page. -->`;
/** A table cell: one line, pipes escaped. */
const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** docs/configuration.md: every environment variable, what it sets and its default. */
export function renderConfiguration(): string {
  const rows = SETTINGS.map((s) => `| \`${s.name}\` | ${cell(s.meaning)}${s.see ? ` ([more](${s.see}))` : ''} | ${cell(s.default)} |`);
  return [
    GENERATED('src/config.ts'),
    '',
    '# Configuration',
    '',
    'inmo reads its settings from the environment, once at start; a value it cannot use stops the',
    'command at once with the variable named. The database is the only setting most installations',
    'need; production adds `INMO_SECRET_KEY` ([operators.md](operators.md)).',
    '',
    '| variable | what it sets | default |',
    '| --- | --- | --- |',
    ...rows,
    '',
  ].join('\n');
}

/** A stand-in for a detail's parameter: `<name>` wherever the message shows it. */
function placeholder(name: string): unknown {
  const text = `<${name}>`;
  return { [Symbol.toPrimitive]: () => text, join: () => text, toString: () => text };
}

/** docs/errors.md: every error of the catalogue with its status and its message. */
export function renderErrors(): string {
  const params = new Proxy({}, { get: (_target, name) => placeholder(String(name)) });
  const say = (text: string | ((p: never) => string)) => (typeof text === 'function' ? (text as (p: unknown) => string)(params) : text);
  const rows = Object.entries(ERRORS).map(([code, spec]) => {
    const cli = 'cli' in spec && spec.cli ? ` \`${cell(say(spec.cli))}\`` : '';
    return `| \`${code}\` | ${spec.status} | \`${cell(say(spec.detail))}\` |${cli} |`;
  });
  return [
    GENERATED('src/errors.ts'),
    '',
    '# Errors',
    '',
    'Every error a client or an operator can meet, from the one catalogue that the API and the CLI',
    'both use. Over HTTP the body is `{"detail": "<message>"}` with the status shown (spec §7,',
    'CONTRACT §2); the CLI prints the message, or its own naming the option at fault',
    '(`{"error": "<message>"}` with `--json`), and exits 1.',
    'Every 401 carries `WWW-Authenticate: ApiKey`. `<name>` stands for a value of the request.',
    '',
    'A request whose path, query or body breaks the schema gets a 422 whose `detail` is a list of',
    "faults, each `{type, loc, msg, input, ctx?}` in Pydantic v2's words (CONTRACT §2), for",
    'example `limit` below 1:',
    '',
    '```json',
    '{"detail": [{"type": "greater_than_equal", "loc": ["query", "limit"], "msg": "Input should be greater than or equal to 1", "input": "0", "ctx": {"ge": 1}}]}',
    '```',
    '',
    '| code | status | message | the CLI says instead |',
    '| --- | --- | --- | --- |',
    ...rows,
    '',
  ].join('\n');
}

// Run as a script (`npm run docs`), not imported by the tests.
if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) {
  writeFileSync(CONFIGURATION_PATH, renderConfiguration());
  writeFileSync(ERRORS_PATH, renderErrors());
  process.stdout.write(`${CONFIGURATION_PATH}\n${ERRORS_PATH}\n`);
}
