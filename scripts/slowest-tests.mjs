// Prints the ten slowest test files of one or more reports, with the run each came from:
// `.ci/run` ends with it. A report is either test/file-times-reporter.ts's (`[{project, file,
// seconds, collect}]`: a file's whole cost, its imports included) or vitest's JSON reporter's
// (`--reporter=json`: from the file's start, taken after its imports, to its last test's end).
// With `--write FILE`, also writes each file's longest time (seconds, any project of any report)
// as JSON, the order test/sequencer.ts starts files in: `test/durations.json` is written so from
// a `.ci/run`'s `test-results/node20-times.json`, then committed.
// Usage: node scripts/slowest-tests.mjs [--write test/durations.json] REPORT.json [REPORT.json …]
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, relative } from 'node:path';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({ options: { write: { type: 'string' } }, allowPositionals: true });
/** The path from the checkout's root (test/…), wherever the report was written. */
const fromRoot = (name) => (name.includes('/test/') ? name.slice(name.lastIndexOf('/test/') + 1) : relative(process.cwd(), name));
const files = [];
for (const report of positionals) {
  const parsed = JSON.parse(readFileSync(report, 'utf8'));
  const run = basename(report, '.json');
  if (Array.isArray(parsed)) {
    for (const t of parsed) files.push({ run: `${run} ${t.project}`, name: fromRoot(t.file), seconds: t.seconds, collect: t.collect });
    continue;
  }
  for (const file of parsed.testResults) {
    files.push({ run, name: fromRoot(file.name), seconds: (file.endTime - file.startTime) / 1000, collect: null });
  }
}
files.sort((a, b) => b.seconds - a.seconds);
process.stdout.write('[inmo] the ten slowest test files:\n');
for (const f of files.slice(0, 10)) {
  const collect = f.collect === null ? '' : ` (imports ${f.collect.toFixed(1)} s)`;
  process.stdout.write(`  ${f.seconds.toFixed(1).padStart(6)} s  ${f.run}  ${f.name}${collect}\n`);
}
const measured = files.filter((f) => f.collect !== null);
if (measured.length > 0) {
  const sum = (key) => measured.reduce((total, f) => total + f[key], 0);
  process.stdout.write(
    `[inmo] ${measured.length} file runs: ${sum('seconds').toFixed(0)} s in all, of which ${sum('collect').toFixed(0)} s importing\n`,
  );
  const tiers = new Map();
  for (const f of measured) {
    const tier = tiers.get(f.run) ?? { files: 0, seconds: 0, collect: 0 };
    tiers.set(f.run, { files: tier.files + 1, seconds: tier.seconds + f.seconds, collect: tier.collect + f.collect });
  }
  for (const [run, t] of tiers)
    process.stdout.write(`  ${run}: ${t.files} files, ${t.seconds.toFixed(0)} s, ${t.collect.toFixed(0)} s importing\n`);
}
if (values.write) {
  const longest = {};
  for (const f of files) longest[f.name] ??= Math.round(f.seconds);
  writeFileSync(values.write, JSON.stringify(longest, null, 2) + '\n');
  process.stdout.write(`[inmo] wrote ${Object.keys(longest).length} files' times to ${values.write}\n`);
}
