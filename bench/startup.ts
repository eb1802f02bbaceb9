/**
 * `--only startup` (issue 42 "A CLI that starts at once"): how long `inmo --version` and
 * `inmo --help` take as operators run them (`node bin/inmo.mjs`, the compiled code of dist/),
 * beside baselines measured in the same run: `node -e 0` (Node's own start, the floor), `npx
 * --version` (what `npx` adds before it starts anything), and the sources run through tsx as
 * the CLI did before it was compiled. Each command runs RUNS times, one after another; the
 * report gives the median and the worst wall time, in ms.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const RUNS = 15;

/** Median and worst wall time of `RUNS` runs of `command args` in `cwd`, ms. */
function time(cwd: string, command: string, args: string[]): { median: number; worst: number } {
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    const run = spawnSync(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    if (run.status !== 0) throw new Error(`${command} ${args.join(' ')} exited ${run.status}: ${run.stderr}`);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(RUNS / 2)], worst: times[RUNS - 1] };
}

/** Runs the part; returns the report's lines. */
export function startupBench(root: string): string[] {
  const bin = join(root, 'bin', 'inmo.mjs');
  // A first run compiles the sources if they changed since the last build: not what is measured.
  spawnSync(process.execPath, [bin, '--version'], { cwd: root });
  const rows: Array<[string, { median: number; worst: number }]> = [
    ['node -e 0 (baseline: Node starting)', time(root, process.execPath, ['-e', '0'])],
    ['npx --version (baseline: npx itself)', time(root, 'npx', ['--version'])],
    ['inmo --version (node bin/inmo.mjs)', time(root, process.execPath, [bin, '--version'])],
    ['inmo --help', time(root, process.execPath, [bin, '--help'])],
    ['npx inmo --version', time(root, 'npx', ['inmo', '--version'])],
    [
      'inmo --version from the sources through tsx (before)',
      time(root, process.execPath, ['--import', 'tsx', join(root, 'src', 'main.ts'), '--version']),
    ],
  ];
  const floor = rows[0][1].median;
  return [
    `CLI start, ${RUNS} runs each: median and worst wall time, ms; × = median over node -e 0's`,
    ...rows.map(
      ([name, t]) =>
        `  ${name.padEnd(56)} ${t.median.toFixed(0).padStart(6)} ${t.worst.toFixed(0).padStart(6)}  ${(t.median / floor).toFixed(1)}×`,
    ),
  ];
}
