/**
 * The order test files start in (vitest.config.ts `sequence.sequencer`): the longest first, by
 * the times of the last measured `.ci/run` kept in test/durations.json (seconds per file, the
 * longest of its projects; written by `node scripts/slowest-tests.mjs --write test/durations.json
 * test-results/node20.json`). A fresh clone has no vitest cache, and vitest then starts the
 * largest files first, which put a two-minute browser journey at the end of CI's run with one
 * worker left busy. Files not in the list keep vitest's own order after the listed ones.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const durations = JSON.parse(readFileSync(new URL('./durations.json', import.meta.url), 'utf8')) as Record<string, number>;

/** vitest's sequencer, the files the last run measured longest started first. */
export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    const seconds = (spec: TestSpecification) => durations[relative(this.ctx.config.root, spec.moduleId)] ?? 0;
    return ordered
      .map((spec, index) => ({ spec, index, seconds: seconds(spec) }))
      .sort((a, b) => b.seconds - a.seconds || a.index - b.index)
      .map(({ spec }) => spec);
  }
}
