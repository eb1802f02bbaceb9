// The benchmark's memory (bench/figures.ts, issue 59 item 2): each figure beside its last value,
// a fall beyond the spread marked, and the history kept per engine across partial runs.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  compareFigures,
  comparisonLines,
  nextFigureFile,
  readFigureFile,
  spreadOf,
  writeFigureFile,
  type Figure,
  type FigureFile,
} from '../../bench/figures.ts';

const ratio = (name: string, value: number, spread: number | null = null): Figure => ({
  name,
  engine: 'sqlite',
  value,
  spread,
  better: 'higher',
  unit: '×',
});
const latency = (name: string, value: number): Figure => ({ name, engine: 'sqlite', value, spread: null, better: 'lower', unit: 'ms' });
const last: FigureFile = {
  measured_at: '2026-11-26T10:00:00.000Z',
  figures: {
    'cached (a)': { value: 0.71, spread: 0.02, measured_at: '2026-11-26T10:00:00.000Z' },
    'p99 inquiries': { value: 37, spread: null, measured_at: '2026-11-26T10:00:00.000Z' },
  },
};

describe('figures beside the last run', () => {
  it('marks a ratio that fell by more than the larger of both spreads, and not one that moved within them', () => {
    const [fell] = compareFigures([ratio('cached (a)', 0.5, 0.03)], last);
    expect(fell.fell).toBe(true);
    expect(fell.change).toBeCloseTo(-0.21);
    expect(fell.allowed).toBeCloseTo(0.03);
    // 0.69 is 0.02 below 0.71: within the last run's spread of 0.02 and 3 % of 0.71.
    expect(compareFigures([ratio('cached (a)', 0.69, 0.01)], last)[0].fell).toBe(false);
    // A wide spread this run excuses a larger move: the rounds themselves moved that much.
    expect(compareFigures([ratio('cached (a)', 0.6, 0.15)], last)[0].fell).toBe(false);
    // Better is never a fall, however far.
    expect(compareFigures([ratio('cached (a)', 0.95, 0.01)], last)[0].fell).toBe(false);
  });

  it('judges a latency the other way: higher is worse; 3 % of the last value is the least spread assumed', () => {
    expect(compareFigures([latency('p99 inquiries', 47)], last)[0].fell).toBe(true);
    expect(compareFigures([latency('p99 inquiries', 38)], last)[0].fell).toBe(false);
    expect(compareFigures([latency('p99 inquiries', 20)], last)[0].fell).toBe(false);
  });

  it("takes a figure's own floor when its runs are known to differ more than 3 %", () => {
    // 37 ms last: 47 ms fell by the 3 % floor, not by a floor of 3× (the lead writes' p99, measured once).
    expect(compareFigures([{ ...latency('p99 inquiries', 47), floor: 3 }], last)[0].fell).toBe(false);
    expect(compareFigures([{ ...latency('p99 inquiries', 149), floor: 3 }], last)[0].fell).toBe(true);
    // 0.71 last with a floor of 30 %: 0.55 is within it, 0.45 is not.
    expect(compareFigures([{ ...ratio('cached (a)', 0.55), floor: 0.3 }], last)[0].fell).toBe(false);
    expect(compareFigures([{ ...ratio('cached (a)', 0.45), floor: 0.3 }], last)[0].fell).toBe(true);
  });

  it('a figure measured for the first time is new, not fallen; the table says so and marks falls', () => {
    const comparisons = compareFigures([ratio('cached (b)', 0.4), ratio('cached (a)', 0.5, 0.01)], last);
    expect(comparisons.map((c) => c.fell)).toEqual([false, true]);
    const lines = comparisonLines(comparisons);
    expect(lines[1]).toMatch(/^cached \(b\)\s+0\.40×\s+new$/);
    expect(lines[2]).toMatch(/^cached \(a\)\s+0\.50×\s+0\.71×\s+-0\.21×\s+±0\.02×\s+FELL$/);
  });

  it('keeps the figures a partial run did not measure, replaces those it did, and round-trips through its file', () => {
    const next = nextFigureFile([ratio('cached (a)', 0.8123456, 0.0211)], last, '2026-12-03T08:00:00.000Z');
    expect(next.figures['cached (a)']).toEqual({ value: 0.812, spread: 0.021, measured_at: '2026-12-03T08:00:00.000Z' });
    expect(next.figures['p99 inquiries']).toEqual(last.figures['p99 inquiries']);
    const dir = mkdtempSync(join(tmpdir(), 'inmo-figures-'));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'figures', 'sqlite.json');
    expect(readFigureFile(file)).toBeNull();
    writeFigureFile(file, next);
    expect(readFigureFile(file)).toEqual(next);
    // Sorted keys: a commit's diff shows what moved, not what moved around.
    expect(Object.keys(JSON.parse(readFileSync(file, 'utf8')).figures)).toEqual(['cached (a)', 'p99 inquiries']);
  });

  it("a figure's spread is its rounds' range; one round has none", () => {
    expect(spreadOf([0.61, 0.5, 0.58])).toBeCloseTo(0.11);
    expect(spreadOf([0.6])).toBeNull();
  });
});
