/**
 * XSD validation with Debian's xmllint (libxml2-utils, which `.ci/run` installs): skipped, saying
 * so, where it is missing, except under `INMO_REQUIRE_XMLLINT=1` (which `.ci/run` sets).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './db.ts';

/** The Kyero v3 schema as the spec holds it (test/fixtures/spec/README.md). */
export const KYERO_XSD = join(REPO_ROOT, 'test', 'fixtures', 'spec', 'kyero-v3.xsd');

/** Whether xmllint can be run here; when not, says so (and fails under `INMO_REQUIRE_XMLLINT=1`). */
export function xmllintHere(suite: string): boolean {
  if (spawnSync('xmllint', ['--version'], { stdio: 'ignore' }).status === 0) return true;
  if (process.env.INMO_REQUIRE_XMLLINT)
    throw new Error('xmllint is missing and INMO_REQUIRE_XMLLINT is set (.ci/run): apt-get install -y libxml2-utils');
  process.stdout.write(`[inmo] ${suite}: XSD validation skipped (xmllint is missing: apt-get install -y libxml2-utils)\n`);
  return false;
}

/** Validates a document against an XSD. @returns xmllint's exit status and what it said. */
export function validateXml(document: Buffer | string, xsd = KYERO_XSD): { ok: boolean; output: string } {
  const path = join(mkdtempSync(join(tmpdir(), 'inmo-xml-')), 'document.xml');
  writeFileSync(path, document);
  const run = spawnSync('xmllint', ['--noout', '--nonet', '--schema', xsd, path], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { ok: run.status === 0, output: `${run.stdout}${run.stderr}`.slice(0, 4000) };
}
