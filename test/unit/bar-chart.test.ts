/**
 * The console's server-side bar chart (http/console/bar-chart.ts, CONTRACT §23) and the owner
 * figures' durations in words: bars proportional to their values, an empty state for no data,
 * every text escaped, the SVG named for screen readers.
 */
import { describe, expect, it } from 'vitest';
import { barChart } from '../../src/http/console/bar-chart.ts';
import { translator } from '../../src/http/console/i18n.ts';
import { durationInWords } from '../../src/http/console/owner-figures-view.ts';

const widths = (svg: string) => [...svg.matchAll(/<rect [^>]*width="([\d.]+)"/g)].map((m) => Number(m[1]));

describe('bar chart', () => {
  it('draws bars proportional to their values, a 0 with none, named by its title', () => {
    const svg = barChart({
      id: 'c1',
      title: 'Leads por origen',
      bars: [
        { label: 'idealista', value: 4, text: '4' },
        { label: 'web', value: 2, text: '2' },
        { label: 'fotocasa', value: 1, text: '1' },
        { label: 'a mano', value: 0, text: '0' },
      ],
      empty: 'Nada',
    });
    const [a, b, c, d] = widths(svg);
    expect(a).toBeGreaterThan(0);
    expect(b / a).toBeCloseTo(0.5, 2);
    expect(c / a).toBeCloseTo(0.25, 2);
    expect(d).toBe(0);
    expect(svg).toMatch(/^<svg [^>]*role="img" aria-labelledby="c1"/);
    expect(svg).toContain('<title id="c1">Leads por origen: idealista 4; web 2; fotocasa 1; a mano 0</title>');
    expect(svg).not.toContain('style=');
  });

  it('shows the empty-state words when there is no bar or every value is 0', () => {
    for (const bars of [[], [{ label: 'x', value: 0, text: '0' }]]) {
      expect(barChart({ id: 'c', title: 'T', bars, empty: 'Sin datos <aún>' })).toBe('<p class="chart-empty">Sin datos &lt;aún&gt;</p>');
    }
  });

  it('escapes labels, texts, the title and the id', () => {
    const svg = barChart({
      id: 'x"y',
      title: 'A & B',
      bars: [{ label: '<script>alert(1)</script>', value: 1, text: '"1" & \'2\'' }],
      empty: '',
    });
    expect(svg).not.toContain('<script>');
    expect(svg).toContain('&lt;script&gt;');
    expect(svg).toContain('&quot;1&quot; &amp; &#39;2&#39;');
    expect(svg).toContain('aria-labelledby="x&quot;y"');
    expect(svg).toContain('A &amp; B');
  });
});

describe('durations in words', () => {
  it.each([
    [20, '1 min', '1 min'],
    [25 * 60, '25 min', '25 min'],
    [2 * 3600, '2 h', '2 h'],
    [2.5 * 3600, '2 h 30 min', '2 h 30 min'],
    [20 * 3600, '20 h', '20 h'],
    [36 * 3600, '36 h', '36 h'],
    [2 * 86400, '2 días', '2 days'],
    [31 * 86400, '31 días', '31 days'],
  ])('%i s is "%s" (es) and "%s" (en)', (seconds, es, en) => {
    expect(durationInWords(seconds, translator('es'))).toBe(es);
    expect(durationInWords(seconds, translator('en'))).toBe(en);
  });
});
