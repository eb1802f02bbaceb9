/**
 * The owner report's pure rules (CONTRACT §24): which requests are a person's view of a listing,
 * the hour views are counted in, when the next report is due, how a lead's first contact with a
 * listing is grouped by source and counted once, and the price history from the changes.
 */
import { describe, expect, it } from 'vitest';
import { hourOf, isPersonView } from '../../src/services/catalogue/listing-views.ts';
import { leadsBySource, nextReportDue, priceHistory, reportSource } from '../../src/domain/owners/owner-report.ts';

const BROWSER =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1';

describe('a person’s view', () => {
  it('is a GET from a browser, not a prefetch, a crawler, a link preview or a tool', () => {
    expect(isPersonView('GET', { 'user-agent': BROWSER })).toBe(true);
    expect(isPersonView('HEAD', { 'user-agent': BROWSER })).toBe(false);
    expect(isPersonView('GET', { 'user-agent': BROWSER, 'sec-purpose': 'prefetch;prerender' })).toBe(false);
    expect(isPersonView('GET', { 'user-agent': BROWSER, purpose: 'prefetch' })).toBe(false);
    for (const agent of [
      'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
      'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
      'WhatsApp/2.23.20.0 A',
      'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
      'curl/8.5.0',
      '',
    ]) {
      expect(isPersonView('GET', { 'user-agent': agent }), agent).toBe(false);
    }
    expect(isPersonView('GET', {})).toBe(false);
  });

  it('is counted in its UTC hour', () => {
    expect(hourOf(Date.parse('2030-03-04T23:59:59.999+01:00'))).toBe('2030-03-04T22');
  });
});

describe('the report’s rules', () => {
  it('is due its days after the last period’s end, or after the first signature', () => {
    expect(nextReportDue(null, '2030-03-01T09:00:00.000+00:00', 7)).toBe('2030-03-08T09:00:00.000+00:00');
    expect(nextReportDue('2030-03-09T10:00:00.000+00:00', '2030-03-01T09:00:00.000+00:00', 14)).toBe('2030-03-23T10:00:00.000+00:00');
  });

  it('groups sources in plain kinds', () => {
    expect(reportSource({ kind: 'inquiry', source: 'listing_page' })).toBe('web');
    expect(reportSource({ kind: 'inquiry', source: 'idealista' })).toBe('idealista');
    expect(reportSource({ kind: 'inquiry', source: 'something else' })).toBe('email');
    expect(reportSource({ kind: 'viewing', source: 'console' })).toBe('manual');
    expect(reportSource({ kind: 'viewing', source: 'assistant' })).toBe('whatsapp');
    expect(reportSource({ kind: 'viewing', source: 'website' })).toBe('web');
  });

  it('counts each lead once, by its first contact, in the period and in all', () => {
    const period = { from: '2030-03-01T00:00:00.000+00:00', to: '2030-03-08T00:00:00.000+00:00' };
    const leads = leadsBySource(
      [
        // Asked on idealista before the period, then booked a visit in it: one idealista lead, not in the period.
        { lead_id: 1, at: '2030-02-20T10:00:00.000+00:00', contact: { kind: 'inquiry', source: 'idealista' } },
        { lead_id: 1, at: '2030-03-02T10:00:00.000+00:00', contact: { kind: 'viewing', source: 'console' } },
        // Booked by hand in the period.
        { lead_id: 2, at: '2030-03-03T10:00:00.000+00:00', contact: { kind: 'viewing', source: 'console' } },
        // After the period's end: not counted.
        { lead_id: 3, at: '2030-03-09T10:00:00.000+00:00', contact: { kind: 'inquiry', source: 'fotocasa' } },
      ],
      period,
    );
    expect(leads).toEqual([
      { source: 'idealista', period: 0, total: 1 },
      { source: 'manual', period: 1, total: 1 },
    ]);
  });

  it('starts the price history from the price before the first change', () => {
    const listed = '2030-01-01T00:00:00.000+00:00';
    expect(priceHistory([], 200000, listed, '2030-03-01T00:00:00.000+00:00')).toEqual([{ from: listed, price: 200000 }]);
    const changes = [
      { old_price: 210000, new_price: 200000, changed_at: '2030-02-10T00:00:00.000+00:00' },
      { old_price: 220000, new_price: 210000, changed_at: '2030-02-01T00:00:00.000+00:00' },
      { old_price: 200000, new_price: 190000, changed_at: '2030-03-05T00:00:00.000+00:00' },
    ];
    expect(priceHistory(changes, 190000, listed, '2030-03-01T00:00:00.000+00:00')).toEqual([
      { from: listed, price: 220000 },
      { from: '2030-02-01T00:00:00.000+00:00', price: 210000 },
      { from: '2030-02-10T00:00:00.000+00:00', price: 200000 },
    ]);
  });
});
