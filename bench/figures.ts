/**
 * The benchmark's memory (issue 59 item 2): `npm run bench` keeps the figures it measured last,
 * one file per engine that the commits carry (`bench/figures/sqlite.json`,
 * `bench/figures/postgres.json`), prints each figure beside its last value, and marks any that
 * got worse by more than its run-to-run spread, so that a slide is seen by the run that causes it
 * rather than found weeks later.
 *
 * A figure is a same-run ratio or a latency (ratios against baselines measured in the same run
 * travel between machines and loads; raw req/s do not). Its spread is how far the figure moved
 * between the rounds of this run (the largest minus the smallest round), as absolute units of
 * the figure; a figure measured once carries no spread of its own, and the last run's spread
 * and {@link MIN_SPREAD} of its value stand in.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** One measured figure. */
export interface Figure {
  /** Stable name, the key of the history file ("reads real-20k (a) limit=20, cached: logs on / node:http"). */
  name: string;
  engine: 'sqlite' | 'postgres';
  value: number;
  /** Largest minus smallest round of this run, in the figure's units; null when measured once. */
  spread: number | null;
  /** Which way is better: ratios are `higher`, latencies `lower`. */
  better: 'higher' | 'lower';
  /** Unit for printing: `×` for ratios, `ms` for latencies. */
  unit: '×' | 'ms';
  /**
   * The smallest spread assumed, as a share of the last value, when it is wider than
   * {@link MIN_SPREAD}: a figure measured once whose runs are known to differ more than that
   * (the lead writes: bench/run.ts `LEADS_RUN_TO_RUN`).
   */
  floor?: number;
}

/** A history file: the last value and spread of each figure, and when they were measured. */
export interface FigureFile {
  measured_at: string;
  figures: Record<string, { value: number; spread: number | null; measured_at: string }>;
}

/** The smallest spread assumed, as a share of the last value: below it, a change is noise whatever the rounds said. */
export const MIN_SPREAD = 0.03;

/** A figure beside its last value. */
export interface Comparison {
  figure: Figure;
  last: { value: number; spread: number | null; measured_at: string } | null;
  /** now − last, in the figure's units (null without a last value). */
  change: number | null;
  /** The spread the change is judged against: the larger of this run's, the last run's and {@link MIN_SPREAD} (or the figure's `floor`) of the last value. */
  allowed: number | null;
  /** Worse than the last value by more than `allowed`. */
  fell: boolean;
}

/**
 * Compares figures with the last ones. A figure that fell is one that moved the wrong way (lower
 * for `higher`, higher for `lower`) by more than `allowed`; a figure without a last value is new.
 */
export function compareFigures(figures: readonly Figure[], last: FigureFile | null): Comparison[] {
  return figures.map((figure) => {
    const previous = last?.figures[figure.name] ?? null;
    if (previous === null) return { figure, last: null, change: null, allowed: null, fell: false };
    const change = figure.value - previous.value;
    const allowed = Math.max(figure.spread ?? 0, previous.spread ?? 0, Math.max(MIN_SPREAD, figure.floor ?? 0) * Math.abs(previous.value));
    const worse = figure.better === 'higher' ? -change : change;
    return { figure, last: previous, change, allowed, fell: worse > allowed };
  });
}

/**
 * The history after this run: every figure measured now replaces its last value; the figures
 * this run did not measure (`--only`, a missing engine) are kept as they were.
 */
export function nextFigureFile(figures: readonly Figure[], last: FigureFile | null, at: string): FigureFile {
  const next: FigureFile = { measured_at: at, figures: { ...(last?.figures ?? {}) } };
  for (const f of figures)
    next.figures[f.name] = { value: round(f.value), spread: f.spread === null ? null : round(f.spread), measured_at: at };
  return next;
}

/** Lines of the comparison table, falls marked `FELL`. */
export function comparisonLines(comparisons: readonly Comparison[]): string[] {
  const show = (n: number, unit: string) => (unit === '×' ? `${n.toFixed(2)}×` : `${n.toFixed(1)} ms`);
  const width = Math.max(6, ...comparisons.map((c) => c.figure.name.length));
  const lines = [`${'figure'.padEnd(width)} ${'now'.padStart(9)} ${'last'.padStart(9)} ${'change'.padStart(9)} ${'spread'.padStart(9)}`];
  for (const c of comparisons) {
    const { unit } = c.figure;
    const last = c.last === null ? 'new' : show(c.last.value, unit);
    const change = c.change === null ? '' : `${c.change >= 0 ? '+' : ''}${show(c.change, unit)}`;
    const allowed = c.allowed === null ? '' : `±${show(c.allowed, unit)}`;
    lines.push(
      `${c.figure.name.padEnd(width)} ${show(c.figure.value, unit).padStart(9)} ${last.padStart(9)} ${change.padStart(9)} ${allowed.padStart(9)}${c.fell ? '  FELL' : ''}`.trimEnd(),
    );
  }
  return lines;
}

/** Reads a history file; null when there is none yet. @throws SyntaxError on a file that is not JSON. */
export function readFigureFile(path: string): FigureFile | null {
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as FigureFile) : null;
}

/** Writes a history file (sorted keys, so that a commit's diff shows what moved). */
export function writeFigureFile(path: string, file: FigureFile): void {
  mkdirSync(dirname(path), { recursive: true });
  const figures = Object.fromEntries(Object.entries(file.figures).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(path, `${JSON.stringify({ measured_at: file.measured_at, figures }, null, 2)}\n`);
}

/** The spread of per-round values: largest minus smallest (null for fewer than two rounds). */
export function spreadOf(values: readonly number[]): number | null {
  return values.length < 2 ? null : Math.max(...values) - Math.min(...values);
}

const round = (n: number) => Math.round(n * 1000) / 1000;
