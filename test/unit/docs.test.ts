/**
 * The documentation stays true: the generated pages of docs/ are what their sources write
 * (`npm run docs`), every environment variable the code reads is on docs/configuration.md,
 * the README stays a short first page, and every local link of the README and docs/ leads to
 * a file that exists.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIGURATION_PATH, ERRORS_PATH, renderConfiguration, renderErrors } from '../../scripts/write-docs.ts';
import { SETTINGS } from '../../src/config.ts';
import { REPO_ROOT } from '../helpers/db.ts';

/** Every file below `dir` whose name ends with `suffix`. */
function filesIn(dir: string, suffix: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith(suffix))
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('generated pages (npm run docs)', () => {
  it('docs/configuration.md is what src/config.ts writes', () => {
    expect(readFileSync(CONFIGURATION_PATH, 'utf8')).toBe(renderConfiguration());
  });

  it('docs/errors.md is what src/errors.ts writes', () => {
    expect(readFileSync(ERRORS_PATH, 'utf8')).toBe(renderErrors());
  });

  it('every environment variable read in src/ is a documented setting', () => {
    // Not environment variables: the names under which the console hands a form's token and
    // app secret to connectChannel, in an environment of its own (src/http/console/sections/channel.ts).
    const notSettings = new Set(['INMO_CONSOLE_TOKEN', 'INMO_CONSOLE_APP_SECRET']);
    const read = new Set<string>();
    for (const file of filesIn(join(REPO_ROOT, 'src'), '.ts')) {
      const text = readFileSync(file, 'utf8');
      for (const [, name] of text.matchAll(/\benv\.([A-Z][A-Z0-9_]*)/g)) read.add(name);
      for (const [, name] of text.matchAll(/['"`](INMO_[A-Z0-9_]+)['"`]/g)) read.add(name);
    }
    const documented = new Set(SETTINGS.map((s) => s.name));
    expect(read.size).toBeGreaterThan(20);
    expect([...read].filter((name) => !documented.has(name) && !notSettings.has(name)).sort()).toEqual([]);
  });
});

describe('the README and docs/', () => {
  it('the README is a first page of at most 200 lines that starts with the two commands', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(200);
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)![1];
    expect(firstBlock).toMatch(/^npm install && npm start\b/m);
    expect(firstBlock).toMatch(/^npm test\b/m);
  });

  it('every local link leads to a file that exists', () => {
    const pages = [join(REPO_ROOT, 'README.md'), join(REPO_ROOT, 'DEVELOPERS.md'), ...filesIn(join(REPO_ROOT, 'docs'), '.md')];
    const broken: string[] = [];
    for (const page of pages) {
      const text = readFileSync(page, 'utf8');
      for (const [, target] of text.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)) {
        if (/^[a-z]+:/.test(target)) continue;
        if (!existsSync(join(dirname(page), target))) broken.push(`${page.slice(REPO_ROOT.length)} → ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });
});
