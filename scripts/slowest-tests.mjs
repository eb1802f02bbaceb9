// Prints the ten slowest test files of one or more vitest JSON reports (`--reporter=json`),
// with the run each came from: `.ci/run` ends with it.
// Usage: node scripts/slowest-tests.mjs REPORT.json [REPORT.json …]
import { readFileSync } from 'node:fs';
import { basename, relative } from 'node:path';

const files = [];
for (const report of process.argv.slice(2)) {
  const { testResults } = JSON.parse(readFileSync(report, 'utf8'));
  for (const file of testResults) {
    // A file's time: from its start to its last test's end (collect and hooks included).
    files.push({
      run: basename(report, '.json'),
      name: relative(process.cwd(), file.name),
      seconds: (file.endTime - file.startTime) / 1000,
    });
  }
}
files.sort((a, b) => b.seconds - a.seconds);
process.stdout.write('[inmo] the ten slowest test files:\n');
for (const f of files.slice(0, 10)) process.stdout.write(`  ${f.seconds.toFixed(1).padStart(6)} s  ${f.run}  ${f.name}\n`);
