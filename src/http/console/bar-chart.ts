/**
 * A horizontal bar chart drawn on the server as SVG (CONTRACT §23), for a page that shows the
 * same figures in a table beside it: the table is the data, the chart a picture of it. No
 * script, no style attribute (the console's CSP allows neither inline), no library.
 *
 * The SVG is `role="img"` named by its `<title>` (the chart's title and every bar's words), so a
 * screen reader reads it as one image. Its text is drawn in the console's ink (#1b1f24) on white
 * and the bars in its accent (#0b5cad), both above 4.5:1. It scales down to the width it is given
 * (`viewBox`, the page's CSS sets `max-width: 100%`).
 */

/** One bar: its label, its value (≥ 0, any unit) and the value in words drawn after it ("3 h"). */
export interface Bar {
  label: string;
  value: number;
  text: string;
}

export interface BarChartOptions {
  /** The id of the chart's `<title>`, unique in the page. */
  id: string;
  /** What the chart shows ("Leads por origen"). */
  title: string;
  bars: readonly Bar[];
  /** The words shown instead of a chart when there is no bar, or every value is 0. */
  empty: string;
}

/** Width of the drawing, in SVG units (≈ CSS px at full size). */
export const CHART_WIDTH = 360;
/** Left column for the labels, and the longest bar. */
const LABEL_WIDTH = 136;
const BAR_MAX = 140;
const ROW = 28;
const BAR_HEIGHT = 18;
/** Characters of a label drawn before it is cut with "…" (the table has it whole). */
const LABEL_CHARS = 16;
const INK = '#1b1f24';
const BAR = '#0b5cad';

/** Text made safe for HTML and SVG, text and attribute values alike. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function cut(label: string): string {
  const chars = [...label];
  return chars.length <= LABEL_CHARS ? label : `${chars.slice(0, LABEL_CHARS - 1).join('')}…`;
}

/**
 * The chart as markup: an `<svg>` whose bars are proportional to their values (the largest is
 * {@link BAR_MAX} units long, a 0 has none), or a `<p class="chart-empty">` with `empty` when no
 * bar has a value above 0. Every text is escaped.
 */
export function barChart({ id, title, bars, empty }: BarChartOptions): string {
  const max = Math.max(0, ...bars.map((b) => (Number.isFinite(b.value) ? b.value : 0)));
  if (bars.length === 0 || max <= 0) return `<p class="chart-empty">${escapeXml(empty)}</p>`;
  const height = bars.length * ROW + 4;
  const summary = `${title}: ${bars.map((b) => `${b.label} ${b.text}`).join('; ')}`;
  const rows = bars.map((b, i) => {
    const y = i * ROW + 4;
    const width = Number.isFinite(b.value) && b.value > 0 ? Math.max(1, Math.round((b.value / max) * BAR_MAX * 10) / 10) : 0;
    const middle = y + BAR_HEIGHT / 2 + 4;
    return (
      `<text x="0" y="${middle}" fill="${INK}" font-size="13">${escapeXml(cut(b.label))}</text>` +
      `<rect x="${LABEL_WIDTH}" y="${y}" width="${width}" height="${BAR_HEIGHT}" fill="${BAR}"/>` +
      `<text x="${LABEL_WIDTH + width + 6}" y="${middle}" fill="${INK}" font-size="13">${escapeXml(b.text)}</text>`
    );
  });
  return (
    `<svg class="chart" role="img" aria-labelledby="${escapeXml(id)}" viewBox="0 0 ${CHART_WIDTH} ${height}" ` +
    `width="${CHART_WIDTH}" height="${height}" xmlns="http://www.w3.org/2000/svg">` +
    `<title id="${escapeXml(id)}">${escapeXml(summary)}</title>${rows.join('')}</svg>`
  );
}
