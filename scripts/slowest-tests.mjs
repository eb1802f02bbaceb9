// Prints the ten slowest test files of one or more vitest JSON reports (`--reporter=json`),
// with the run each came from: `.ci/run` ends with it.
// With `--write FILE`, also writes each file's longest time (seconds, any project of any report)
// as JSON, the order test/sequencer.ts starts files in: `test/durations.json` is written so from
// a `.ci/run`'s reports, then committed.
// Usage: node scripts/slowest-tests.mjs [--write test/durations.json] REPORT.json [REPORT.json …]
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, relative } from 'node:path';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({ options: { write: { type: 'string' } }, allowPositionals: true });
const files = [];
for (const report of positionals) {
  const { testResults } = JSON.parse(readFileSync(report, 'utf8'));
  for (const file of testResults) {
    // A file's time: from its start to its last test's end (collect and hooks included).
    files.push({
      run: basename(report, '.json'),
      // The path from the checkout's root (test/…), wherever the report was written.
      name: file.name.includes('/test/') ? file.name.slice(file.name.lastIndexOf('/test/') + 1) : relative(process.cwd(), file.name),
      seconds: (file.endTime - file.startTime) / 1000,
    });
  }
}
files.sort((a, b) => b.seconds - a.seconds);
process.stdout.write('[inmo] the ten slowest test files:\n');
for (const f of files.slice(0, 10)) process.stdout.write(`  ${f.seconds.toFixed(1).padStart(6)} s  ${f.run}  ${f.name}\n`);
if (values.write) {
  const longest = {};
  for (const f of files) longest[f.name] ??= Math.round(f.seconds);
  writeFileSync(values.write, JSON.stringify(longest, null, 2) + '\n');
  process.stdout.write(`[inmo] wrote ${Object.keys(longest).length} files' times to ${values.write}\n`);
}
