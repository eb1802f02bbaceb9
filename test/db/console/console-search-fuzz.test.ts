/**
 * The console's searches answer any query (issue 55, item 9; docs/security.md), on this
 * process's engine: fast-check sends the listing and lead lists' parameters (`q` and every
 * filter) as text with NUL, lone surrogates (also as raw invalid UTF-8 in the URL), any code
 * unit, 14,000 nested `<b>`, and up to 60,000 characters of letters, digits, `%` and `_`. Every
 * answer is the list page (200) and changes nothing. Before, a NUL was a 500 on both engines
 * (PostgreSQL refuses it; SQLite's FTS5 read it as the phrase's end) and a lead search past
 * SQLite's 50,000-byte LIKE pattern was a 500 ("LIKE or GLOB pattern too complex").
 * The search reads the first 200 characters, without NUL (domain/search-text.ts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { leadSearchText, searchedText, SEARCH_TEXT_MAX } from '../../../src/domain/search-text.ts';
import { nowRfc3339 } from '../../../src/domain/time.ts';
import { loggedIn, userWithPassword } from '../../helpers/console.ts';
import { importRecords, listing, snapshot } from '../../helpers/db.ts';
import { withApp } from '../../helpers/http.ts';

const RUNS = Number(process.env.INMO_FUZZ_RUNS) || 60;
const SEED =
  process.env.INMO_FUZZ_SEED === 'random' ? Math.floor(Math.random() * 2 ** 31) : Number(process.env.INMO_FUZZ_SEED) || 20_261_202;

/** Percent-encodes any string as UTF-8 (a lone surrogate as U+FFFD's bytes, as a browser sends it). */
const encoded = (text: string) => [...Buffer.from(text, 'utf8')].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');

/** Query values, already percent-encoded: hostile text of every kind the issue found, and raw bytes that are no UTF-8. */
const value = fc.oneof(
  fc.string({ maxLength: 30 }).map(encoded),
  fc.string({ unit: 'binary', maxLength: 30 }).map(encoded),
  fc.string({ unit: 'grapheme', maxLength: 30 }).map(encoded),
  fc.constantFrom('%00', 'a%00b', 'Ma%00drid%00', '%ED%A0%80', 'a%ED%B0%80b', '%C0%80', '%FF%FE', '%F0%9F%98', '%'),
  fc
    .tuple(fc.constantFrom('x', '9', '%', '_', 'ñ', '😀', 'a%_\\'), fc.integer({ min: 1_000, max: 60_000 }))
    .map(([unit, n]) => encoded(unit.repeat(Math.ceil(n / unit.length)))),
  fc.integer({ min: 1, max: 14_000 }).map((n) => encoded(`${'<b>'.repeat(n)}x${'</b>'.repeat(n)}`)),
);

describe('the console’s searches under fuzzing', () => {
  const t = withApp({
    seed: async ({ db, businessId }) => {
      await userWithPassword(db, businessId, 'agent@uno.example', 'agent');
      await importRecords(db, businessId, [
        listing('BUSCA-1', { title: 'Ático en Málaga', city: 'Málaga' }),
        listing('BUSCA-2', { title: 'Piso 50% _rebajado_' }),
      ]);
      const at = nowRfc3339();
      const lead = {
        business_id: businessId,
        type: 'demandante',
        status: 'new',
        active: 1,
        rating: 3,
        source: 'web',
        created_at: at,
        updated_at: at,
      };
      await db
        .insertInto('leads')
        .values([
          { ...lead, name: 'Ana García', phone_number_1: '+34600000001', search_text: leadSearchText({ name: 'Ana García' }) },
          { ...lead, name: 'Íñigo Álvarez', phone_number_1: '+34600000002', search_text: leadSearchText({ name: 'Íñigo Álvarez' }) },
        ])
        .execute();
    },
  });

  it('reads at most 200 characters of a search, without NUL, never half a surrogate pair', () => {
    expect(searchedText(' a\u0000b ')).toBe('ab');
    expect(searchedText('a\ud800b')).toBe('a\ufffdb');
    expect(searchedText('x'.repeat(60_000))).toBe('x'.repeat(SEARCH_TEXT_MAX));
    expect(searchedText(`${'x'.repeat(SEARCH_TEXT_MAX - 1)}😀`)).toBe('x'.repeat(SEARCH_TEXT_MAX - 1));
  });

  it('finds what a NUL splits and what a long text starts with', async () => {
    const agent = await loggedIn(t.app, 'agent@uno.example');
    const listings = await agent.request('GET', '/console/properties?q=M%C3%A1l%00aga');
    expect(listings.statusCode).toBe(200);
    expect(listings.body).toContain('BUSCA-1');
    expect(listings.body).not.toContain('BUSCA-2');
    const leads = await agent.request('GET', `/console/leads?q=${encoded(`Ana${'x'.repeat(60_000)}`)}`);
    expect(leads.statusCode).toBe(200);
    expect(leads.body).not.toContain('Ana García');
    const byPhone = await agent.request('GET', `/console/leads?q=${'6'.repeat(60_000)}`);
    expect(byPhone.statusCode).toBe(200);
  });

  for (const [page, parameters] of [
    ['/console/properties', ['q', 'status', 'operation', 'type', 'sort', 'dir', 'page']],
    ['/console/leads', ['q', 'status', 'type', 'source', 'assigned', 'from', 'to', 'page']],
  ] as const) {
    it(`${page} answers every query with its page and changes nothing`, async () => {
      const agent = await loggedIn(t.app, 'agent@uno.example');
      const before = await snapshot(t.db, ['console_sessions']);
      const query = fc.record(Object.fromEntries(parameters.map((name) => [name, value])), { requiredKeys: ['q'] });
      await fc.assert(
        fc.asyncProperty(query, async (values) => {
          const url = `${page}?${Object.entries(values)
            .map(([name, v]) => `${name}=${v}`)
            .join('&')}`;
          const response = await agent.request('GET', url);
          expect(response.statusCode, `${url.slice(0, 300)} → ${response.statusCode} ${response.body.slice(0, 200)}`).toBe(200);
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
      expect(await snapshot(t.db, ['console_sessions'])).toBe(before);
    }, 600_000);
  }
});
