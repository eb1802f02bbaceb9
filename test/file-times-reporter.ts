/**
 * A vitest reporter that writes what each test file cost, collect included, as JSON:
 * `[{project, file, seconds, collect}]` (seconds: environment, prepare, collect (importing the
 * file and everything it imports), setup, and its tests and hooks; `collect` alone beside it),
 * to the file `INMO_TEST_TIMES` names (`.ci/run` sets `test-results/node20-times.json`).
 *
 * vitest's JSON reporter gives each file a `startTime` taken after collection, so the times it
 * reports leave out the import of the app, often the larger part of a short file's cost: the
 * longest-first order (test/sequencer.ts) reads these times instead, through
 * `node scripts/slowest-tests.mjs --write test/durations.json test-results/node20-times.json`.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import type { Reporter, TestModule, Vitest } from 'vitest/node';

interface FileTime {
  project: string;
  file: string;
  seconds: number;
  collect: number;
}

export default class FileTimesReporter implements Reporter {
  private root = process.cwd();
  private readonly times: FileTime[] = [];

  onInit(vitest: Vitest): void {
    this.root = vitest.config.root;
  }

  onTestModuleEnd(module: TestModule): void {
    const d = module.diagnostic();
    const ms = d.environmentSetupDuration + d.prepareDuration + d.collectDuration + d.setupDuration + d.duration;
    this.times.push({
      project: module.project.name,
      file: relative(this.root, module.moduleId),
      seconds: Math.round(ms) / 1000,
      collect: Math.round(d.collectDuration) / 1000,
    });
  }

  onTestRunEnd(): void {
    const out = process.env.INMO_TEST_TIMES;
    if (!out) return;
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, JSON.stringify(this.times, null, 1) + '\n');
  }
}
