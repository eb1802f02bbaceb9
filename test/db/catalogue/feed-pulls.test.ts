/**
 * Feeds pulled from an agency's current CRM (issue 28, CONTRACT §15), on this process's engine,
 * against a local HTTP server: the first pull imports, a 304 changes nothing, a changed document
 * updates and withdraws the listings of its own source it no longer names (never the console's
 * or another source's), a document with a broken property withdraws nothing, an oversized one is
 * refused, a private address is refused without the switch, and the worker pulls on schedule.
 */
import { CLI } from '../../../src/services/access/audit.ts';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { outboundPolicy } from '../../../src/config.ts';
import { Worker } from '../../../src/jobs/worker.ts';
import { addFeedSource, listFeedSources, pullFeedSource, removeFeedSource } from '../../../src/services/catalogue/feeds/pulls.ts';
import { saveListing } from '../../../src/services/catalogue/listings.ts';
import { importRecords, listing, snapshot } from '../../helpers/db.ts';
import { get, withApp } from '../../helpers/http.ts';
import { connectionOf } from '../../../src/db/database.ts';
import { READER_THREAD_MIN_BYTES } from '../../../src/services/catalogue/import/reader-thread.ts';
import { inmo } from '../../helpers/cli.ts';
import { loggedIn, userWithPassword } from '../../helpers/console.ts';
import { insertBusiness } from '../../../src/db/repositories/businesses.ts';
import { nowRfc3339 } from '../../../src/domain/time.ts';

/** A Kyero property of the test feeds. */
const property = (id: string, price = 100000, type = 'Apartment') =>
  `<property><id>${id}</id><date>2026-11-01 10:00:00</date><ref>${id}</ref><price>${price}</price><price_freq>sale</price_freq>` +
  `<type>${type}</type><town>Zaragoza</town><province>Zaragoza</province><desc><es>Piso ${id}.</es></desc><images/></property>`;
const feed = (...properties: string[]) =>
  `<?xml version="1.0" encoding="UTF-8"?><root><kyero><feed_version>3</feed_version></kyero>${properties.join('')}</root>`;

interface Crm {
  server: Server;
  url: string;
  body: string;
  etag: string;
  /** A Content-Encoding to answer with, the body left as it is. */
  encoding?: string;
  requests: Array<{ ifNoneMatch?: string; acceptEncoding?: string }>;
}

let crm: Crm;
const t = withApp({ each: true });
const allowed = outboundPolicy({ INMO_ALLOW_PRIVATE_NETWORK: '1' });
const strict = outboundPolicy({});
const MB = 1024 * 1024;

beforeEach(async () => {
  const state = { body: feed(property('A'), property('B')), etag: '"v1"', requests: [] } as unknown as Crm;
  state.server = createServer((request, response) => {
    state.requests.push({ ifNoneMatch: request.headers['if-none-match'], acceptEncoding: request.headers['accept-encoding'] });
    if (request.headers['if-none-match'] === state.etag) return response.writeHead(304).end();
    if (state.encoding) return response.writeHead(200, { 'content-encoding': state.encoding }).end(state.body);
    const gzip = /gzip/.test(request.headers['accept-encoding'] ?? '');
    response.writeHead(200, { 'content-type': 'application/xml', etag: state.etag, ...(gzip ? { 'content-encoding': 'gzip' } : {}) });
    response.end(gzip ? gzipSync(state.body) : state.body);
  });
  await new Promise<void>((resolve) => state.server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(state.server.address() as AddressInfo).port}/export/kyero.xml`;
  crm = state;
});
afterEach(async () => {
  await new Promise((resolve) => crm.server.close(resolve));
});

const listingStates = async () =>
  Object.fromEntries(
    (await t.db.selectFrom('properties').select(['external_ref', 'status', 'price']).orderBy('external_ref').execute()).map((p) => [
      p.external_ref,
      [p.status, p.price],
    ]),
  );
const pull = (id: number, maxBytes = 200 * MB, outbound = allowed) => pullFeedSource(t.db, id, { outbound, maxBytes });

describe('pulled feeds', () => {
  it('imports on the first pull (gzip accepted), changes nothing on a 304, then follows the document, withdrawing only its own listings', async () => {
    await importRecords(t.db, t.businessId, [listing('NDJSON-1')]);
    const other = await addFeedSource(t.db, { businessId: t.businessId, url: `${crm.url}?other`, everyMinutes: 60 }, allowed);
    const { id } = await addFeedSource(t.db, { businessId: t.businessId, url: crm.url, everyMinutes: 60 }, allowed);
    expect(await pull(id)).toMatchObject({ status: 'imported', created: 2, updated: 0, withdrawn: 0, rejectedCount: 0 });
    expect(crm.requests.at(-1)!.acceptEncoding).toContain('gzip');
    // The other source names A and B too: it imports them again (same refs), and owns them as well.
    expect(await pull(other.id)).toMatchObject({ status: 'imported', updated: 2 });
    const before = await snapshot(t.db);
    expect(await pull(id)).toEqual({ status: 'unchanged' });
    expect(crm.requests.at(-1)!.ifNoneMatch).toBe('"v1"');
    // A listing created in the console is never the feed's.
    const { id: consoleId } = await saveListing(t.db, t.businessId, null, { ...listing('CONSOLE-1') }, CLI);
    expect(consoleId).toBeGreaterThan(0);
    expect(before).not.toBe(await snapshot(t.db));

    crm.body = feed(property('A', 95000), property('C'));
    crm.etag = '"v2"';
    expect(await pull(id)).toMatchObject({ status: 'imported', created: 1, updated: 1, withdrawn: 1 });
    expect(await listingStates()).toMatchObject({
      'kyero:A': ['disponible', 95000],
      'kyero:B': ['retirada', 100000],
      'kyero:C': ['disponible', 100000],
      'NDJSON-1': ['disponible', 100000],
      'CONSOLE-1': ['disponible', 100000],
    });
    const [listed] = (await listFeedSources(t.db, t.businessId)).filter((s) => s.id === id);
    expect(listed).toMatchObject({ url: crm.url, every_minutes: 60, last_status: 'imported', last_result: { withdrawn: 1 } });
  });

  it('imports the rest of a document with a broken property and withdraws nothing', async () => {
    const { id } = await addFeedSource(t.db, { businessId: t.businessId, url: crm.url }, allowed);
    await pull(id);
    crm.body = feed(property('A', 90000), property('X', 1, 'Yacht'));
    crm.etag = '"v2"';
    const result = await pull(id);
    expect(result).toMatchObject({ status: 'imported', updated: 1, withdrawn: 0, rejectedCount: 1, rejected: [{ line: 2, id: 'X' }] });
    expect(await listingStates()).toMatchObject({ 'kyero:A': ['disponible', 90000], 'kyero:B': ['disponible', 100000] });
    // A later clean document withdraws B.
    crm.body = feed(property('A', 90000));
    crm.etag = '"v3"';
    expect(await pull(id)).toMatchObject({ status: 'imported', withdrawn: 1 });
  });

  it('a document that stops being XML half way imports what came before, withdraws nothing, and fails saying why', async () => {
    const { id } = await addFeedSource(t.db, { businessId: t.businessId, url: crm.url }, allowed);
    await pull(id);
    crm.body = feed(property('A', 80000)).replace('</root>', '<property><id>broken</propert></root>');
    crm.etag = '"v2"';
    const result = await pull(id);
    expect(result.status).toBe('failed');
    expect(result.error).toContain('not well-formed XML');
    expect(await listingStates()).toMatchObject({ 'kyero:A': ['disponible', 80000], 'kyero:B': ['disponible', 100000] });
  });

  it('refuses an empty document (nothing, a newline, a lone BOM) or one that is neither NDJSON nor Kyero, and withdraws nothing (issue 41)', async () => {
    // A source added in the console has no format: the document is told by its content.
    const { id } = await addFeedSource(t.db, { businessId: t.businessId, url: crm.url }, allowed);
    crm.body = ['A', 'B', 'C'].map((ref) => JSON.stringify(listing(ref))).join('\n') + '\n';
    expect(await pull(id)).toMatchObject({ status: 'imported', created: 3, withdrawn: 0 });
    const before = await listingStates();
    for (const [n, body] of ['', '\n', '\uFEFF', '\uFEFF \r\n'].entries()) {
      crm.body = body;
      crm.etag = `"empty-${n}"`;
      expect(await pull(id)).toEqual({
        status: 'failed',
        error: 'The document is empty (nothing but white space or a byte order mark): refused, nothing imported or withdrawn',
      });
      expect(await listingStates()).toEqual(before);
    }
    crm.body = 'OK\n';
    crm.etag = '"text"';
    expect(await pull(id)).toMatchObject({ status: 'failed', error: expect.stringContaining('neither NDJSON') });
    // Read as NDJSON when the source says so: still empty, still refused.
    const forced = await addFeedSource(t.db, { businessId: t.businessId, url: `${crm.url}?ndjson`, format: 'ndjson' }, allowed);
    crm.body = '\n';
    crm.etag = '"forced"';
    expect(await pull(forced.id)).toMatchObject({ status: 'failed', error: expect.stringContaining('The document is empty') });
    expect(await listingStates()).toEqual(before);
    expect(Object.values(before).every(([status]) => status === 'disponible')).toBe(true);
  });

  it('counts a new listing named twice by the document as new, not also as updated (issue 41)', async () => {
    const { id } = await addFeedSource(t.db, { businessId: t.businessId, url: crm.url }, allowed);
    expect(await pull(id)).toMatchObject({ status: 'imported', created: 2, updated: 0 });
    // CRMs give a listing offered for sale and for rent as two properties with one <id>.
    crm.body = feed(property('A', 90000), property('N'), property('B'), property('N', 120000));
    crm.etag = '"v2"';
    expect(await pull(id)).toMatchObject({ status: 'imported', created: 1, updated: 2, repeated: 1, withdrawn: 0 });
    expect(await listingStates()).toMatchObject({ 'kyero:N': ['disponible', 120000], 'kyero:A': ['disponible', 90000] });
  });

  it('rejects an NDJSON line nested 200,000 deep as a bad line and imports the rest (issue 41)', async () => {
    const { id } = await addFeedSource(t.db, { businessId: t.businessId, url: crm.url }, allowed);
    const deep = `{"external_ref": "DEEP", "specs": ${'{"a": '.repeat(200_000)}1${'}'.repeat(200_000)}}`;
    crm.body = [JSON.stringify(listing('A')), deep, JSON.stringify(listing('B'))].join('\n');
    expect(await pull(id)).toMatchObject({
      status: 'imported',
      created: 2,
      rejected: [{ line: 2, reason: 'invalid JSON: nesting deeper than 64 levels' }],
    });
    expect(Object.keys(await listingStates())).toEqual(['A', 'B']);
  });

  it('holds a pull that would withdraw more than half of its source, withdrawing nothing, until an owner confirms it on the catalogue page (issue 41)', async () => {
    await userWithPassword(t.db, t.businessId, 'owner@uno.example', 'owner');
    await userWithPassword(t.db, t.businessId, 'agent@uno.example', 'agent');
    const { id } = await addFeedSource(t.db, { businessId: t.businessId, url: crm.url }, allowed);
    crm.body = feed(property('A'), property('B'), property('C'), property('D'));
    expect(await pull(id)).toMatchObject({ status: 'imported', created: 4 });
    // The CRM answers with a cut document: 3 of the 4 listings would go.
    crm.body = feed(property('A', 90000), property('E'));
    crm.etag = '"v2"';
    expect(await pull(id)).toMatchObject({ status: 'held', created: 1, updated: 1, withdrawn: 0, held: 3, of: 4 });
    const live = { 'kyero:A': ['disponible', 90000], 'kyero:B': ['disponible', 100000], 'kyero:D': ['disponible', 100000] };
    expect(await listingStates()).toMatchObject(live);
    // Pulled again (the worker's next pull): the whole document is read again (no validators sent
    // while a pull is held) and held again.
    expect(await pull(id)).toMatchObject({ status: 'held', held: 3, of: 4 });
    expect(crm.requests.at(-1)!.ifNoneMatch).toBeUndefined();
    expect(await t.db.selectFrom('import_refs').select('run').distinct().execute()).toHaveLength(1);

    const owner = await loggedIn(t.app, 'owner@uno.example');
    const page = (await owner.get('/console/catalogue')).body;
    expect(page).toContain('esta lectura retiraría 3 de los 4 inmuebles que vienen de este feed');
    expect(page).toContain('Retirar los 3 inmuebles');
    const [{ held }] = await listFeedSources(t.db, t.businessId);
    const confirm = `/console/catalogue/sources/${id}/confirm`;
    // Only the session's owners, with the hold they were shown.
    const agent = await loggedIn(t.app, 'agent@uno.example');
    expect((await agent.submit('/console/catalogue', confirm, { hold: held!.run })).statusCode).toBe(403);
    const other = await insertBusiness(t.db, 'Agencia Dos', nowRfc3339());
    await userWithPassword(t.db, other.id, 'owner@dos.example', 'owner');
    const stranger = await loggedIn(t.app, 'owner@dos.example');
    const before = await snapshot(t.db);
    expect((await stranger.submit('/console/catalogue', confirm, { hold: held!.run })).statusCode).toBe(404);
    const stale = await owner.submit('/console/catalogue', confirm, { hold: 'an-older-hold' });
    expect(stale.statusCode).toBe(409);
    expect(stale.body).toContain('Esa lectura ya no espera confirmación');
    expect((await owner.request('POST', confirm, { hold: held!.run })).statusCode).toBe(403);
    expect(await snapshot(t.db)).toBe(before);

    expect((await owner.submit('/console/catalogue', confirm, { hold: held!.run })).statusCode).toBe(303);
    expect(await listingStates()).toMatchObject({
      'kyero:A': ['disponible', 90000],
      'kyero:B': ['retirada', 100000],
      'kyero:C': ['retirada', 100000],
      'kyero:D': ['retirada', 100000],
      'kyero:E': ['disponible', 100000],
    });
    const [after] = await listFeedSources(t.db, t.businessId);
    expect(after).toMatchObject({ held: null, last_status: 'imported', last_result: { withdrawn: 3 } });
    expect((await owner.get('/console/catalogue')).body).not.toContain('Retirar los');
    expect(await t.db.selectFrom('import_refs').select('run').execute()).toEqual([]);
    // The withdrawals are the owner's in the audit trail.
    const withdrawals = await t.db
      .selectFrom('audit_log')
      .select(['actor_type', 'action'])
      .where('action', '=', 'property.withdraw')
      .execute();
    expect(withdrawals).toEqual(Array(3).fill({ actor_type: 'user', action: 'property.withdraw' }));
    // Confirmed once: again is a 409 that changes nothing.
    expect((await owner.submit('/console/catalogue', confirm, { hold: held!.run })).statusCode).toBe(409);
    // The next pull of the same document has nothing left to withdraw.
    expect(await pull(id)).toMatchObject({ status: 'imported', withdrawn: 0 });
  });

  it('a feed that comes back to the document it had before the hold replaces the hold, even under its old ETag (issue 41)', async () => {
    const { id } = await addFeedSource(t.db, { businessId: t.businessId, url: crm.url }, allowed);
    crm.body = feed(property('A'), property('B'), property('C'), property('D'));
    expect(await pull(id)).toMatchObject({ status: 'imported', created: 4 });
    crm.body = feed(property('A'));
    crm.etag = '"v2"';
    expect(await pull(id)).toMatchObject({ status: 'held', held: 3, of: 4 });
    // The CRM recovers: the same document as before, under the same ETag.
    crm.body = feed(property('A'), property('B'), property('C'), property('D'));
    crm.etag = '"v1"';
    expect(await pull(id)).toMatchObject({ status: 'imported', withdrawn: 0 });
    const [source] = await listFeedSources(t.db, t.businessId);
    expect(source.held).toBeNull();
    expect(await t.db.selectFrom('import_refs').select('run').execute()).toEqual([]);
    // Nothing is left to confirm, and every listing is still there.
    const env = { ...process.env, DATABASE_URL: t.url, LOG_LEVEL: 'warn', INMO_ALLOW_PRIVATE_NETWORK: '1' };
    expect((await inmo(env, 'feeds', 'pull', 'confirm', String(id))).stderr).toContain('no pull waiting for confirmation');
    const states = await listingStates();
    for (const ref of ['kyero:A', 'kyero:B', 'kyero:C', 'kyero:D']) expect(states[ref]?.[0], ref).toBe('disponible');
    // And the next pull is conditional again.
    expect(await pull(id)).toMatchObject({ status: 'unchanged' });
  });

  it('a held pull discarded keeps its listings; the share is configurable; half is not more than half (issue 41)', async () => {
    const { id } = await addFeedSource(t.db, { businessId: t.businessId, url: crm.url }, allowed);
    crm.body = feed(property('A'), property('B'), property('C'), property('D'));
    await pull(id);
    crm.body = feed(property('A'), property('B'));
    crm.etag = '"v2"';
    // Half of the source is withdrawn without asking at the default share (0.5)…
    const withShare = (share: number) => pullFeedSource(t.db, id, { outbound: allowed, maxBytes: 200 * MB, withdrawMaxShare: share });
    expect(await withShare(0.25)).toMatchObject({ status: 'held', held: 2, of: 4 });
    const env = { ...process.env, DATABASE_URL: t.url, LOG_LEVEL: 'warn', INMO_ALLOW_PRIVATE_NETWORK: '1' };
    const discarded = await inmo(env, 'feeds', 'pull', 'discard', String(id), '--json');
    expect(discarded.json).toEqual({ id, kept: 2 });
    expect(await listingStates()).toMatchObject({ 'kyero:C': ['disponible', 100000], 'kyero:D': ['disponible', 100000] });
    expect((await listFeedSources(t.db, t.businessId))[0]).toMatchObject({ held: null, last_result: { kept: 2 } });
    expect(await t.db.selectFrom('import_refs').select('run').execute()).toEqual([]);
    expect((await inmo(env, 'feeds', 'pull', 'confirm', String(id))).stderr).toContain('no pull waiting for confirmation');
    // …and through the CLI, which reads INMO_PULL_WITHDRAW_MAX_SHARE.
    const held = await inmo({ ...env, INMO_PULL_WITHDRAW_MAX_SHARE: '0.4' }, 'feeds', 'pull', 'run', String(id));
    expect(held.stdout).toContain("held: it would withdraw 2 of the source's 4 listings");
    expect((await inmo(env, 'feeds', 'pull', 'list', '--business', String(t.businessId))).stdout).toContain(
      `would withdraw 2 of 4 listings (inmo feeds pull confirm|discard ${id})`,
    );
    // The console's "keep them" discards it as the CLI does; a second time there is nothing held.
    await userWithPassword(t.db, t.businessId, 'owner@uno.example', 'owner');
    const owner = await loggedIn(t.app, 'owner@uno.example');
    const [{ held: hold }] = await listFeedSources(t.db, t.businessId);
    const discard = `/console/catalogue/sources/${id}/discard`;
    expect((await owner.submit('/console/catalogue', discard, { hold: hold!.run })).statusCode).toBe(303);
    expect((await owner.get('/console/catalogue')).body).toContain('Se han conservado 2 inmuebles que el feed ya no incluye');
    expect((await owner.submit('/console/catalogue', discard, { hold: hold!.run })).statusCode).toBe(409);
    expect(await listingStates()).toMatchObject({ 'kyero:C': ['disponible', 100000] });
    await inmo({ ...env, INMO_PULL_WITHDRAW_MAX_SHARE: '0.4' }, 'feeds', 'pull', 'run', String(id));
    const confirmed = await inmo(env, 'feeds', 'pull', 'confirm', String(id), '--json');
    expect(confirmed.json).toEqual({ id, withdrawn: 2 });
    expect(await listingStates()).toMatchObject({ 'kyero:C': ['retirada', 100000], 'kyero:A': ['disponible', 100000] });
    // Exactly half (1 of 2) at the default share is applied at once.
    crm.body = feed(property('A'));
    crm.etag = '"v3"';
    expect(await pull(id)).toMatchObject({ status: 'imported', withdrawn: 1 });
  });

  it('refuses a document over the size limit, and changes nothing', async () => {
    const { id } = await addFeedSource(t.db, { businessId: t.businessId, url: crm.url }, allowed);
    const before = await snapshot(t.db);
    const result = await pull(id, 200);
    expect(result).toEqual({ status: 'failed', error: 'the document is larger than 200 bytes (INMO_FEED_MAX_BYTES)' });
    const after = await snapshot(t.db);
    // Only the source's own record of its last pull changed.
    expect((await t.db.selectFrom('properties').select('id').execute()).length).toBe(0);
    expect(before).not.toBe(after);
  });

  it("a document of a reader thread's size is imported on the import thread: the API sees it at once, and a fault half way is told the same way", async () => {
    // 400 listings, padded past the reader thread's threshold by a comment the parser skips:
    // the import's cost is per listing, the thread's choice per byte.
    const N = 400;
    const padding = `<!--${'x'.repeat(READER_THREAD_MIN_BYTES)}-->`;
    const many = (price: number) => [padding, ...Array.from({ length: N }, (_, i) => property(`T${i}`, price + i))];
    crm.body = feed(...many(100000));
    expect(Buffer.byteLength(crm.body)).toBeGreaterThan(READER_THREAD_MIN_BYTES);
    const { id } = await addFeedSource(t.db, { businessId: t.businessId, url: crm.url }, allowed);
    // On SQLite, the rows this process's own connection changes: the import's are the thread's.
    const connection = connectionOf(t.db);
    const changes = () =>
      connection.engine === 'sqlite' ? (connection.sqlite.prepare('select total_changes()').pluck().get() as number) : 0;
    const before = changes();
    expect(await pull(id)).toMatchObject({ status: 'imported', created: N, rejectedCount: 0 });
    // The source's refs (N rows in, the run's N out) and its last pull are this connection's;
    // the listings, their docs and their changes (3 N rows more) are not.
    if (connection.engine === 'sqlite') expect(changes() - before).toBeLessThan(2 * N + 100);
    expect((await get(t.app, '/properties?limit=1', t.key)).body.total).toBe(N);

    crm.body = feed(...many(90000)).replace('</root>', '<property><id>broken</propert></root>');
    crm.etag = '"v2"';
    const result = await pull(id);
    expect(result).toMatchObject({ status: 'failed', error: expect.stringContaining('not well-formed XML') });
    expect((await listingStates())[`kyero:T${N - 1}`]).toEqual(['disponible', 90000 + N - 1]);
  }, 120_000);

  it('fails on an encoding it does not read (Content-Encoding: compress), saying so, and imports nothing', async () => {
    const { id } = await addFeedSource(t.db, { businessId: t.businessId, url: crm.url }, allowed);
    crm.encoding = 'compress';
    expect(await pull(id)).toEqual({
      status: 'failed',
      error: 'the document came in an encoding inmo does not read (Content-Encoding: compress)',
    });
    expect(await listingStates()).toEqual({});
  });

  it('refuses a private address without INMO_ALLOW_PRIVATE_NETWORK=1, when added and when pulled', async () => {
    await expect(addFeedSource(t.db, { businessId: t.businessId, url: crm.url }, strict)).rejects.toMatchObject({
      code: 'FEED_SOURCE_URL',
    });
    await expect(addFeedSource(t.db, { businessId: t.businessId, url: 'ftp://crm.example/feed.xml' }, allowed)).rejects.toMatchObject({
      code: 'FEED_SOURCE_URL',
    });
    await expect(
      addFeedSource(t.db, { businessId: t.businessId, url: 'https://crm.example/f.xml', everyMinutes: 1 }, allowed),
    ).rejects.toMatchObject({
      code: 'FEED_SOURCE_PERIOD',
    });
    // https, so that the address is what refuses it.
    const { id } = await addFeedSource(t.db, { businessId: t.businessId, url: crm.url.replace('http:', 'https:') }, allowed);
    const requests = crm.requests.length;
    const result = await pull(id, 200 * MB, strict);
    expect(result.status).toBe('failed');
    expect(result.error).toContain('is not a public address');
    expect(crm.requests.length).toBe(requests);
  });

  it('refuses plain http to a public host without INMO_ALLOW_PRIVATE_NETWORK=1, as webhooks do: when added (CLI too) and when pulled (issue 41)', async () => {
    await expect(addFeedSource(t.db, { businessId: t.businessId, url: 'http://crm.example/feed.xml' }, strict)).rejects.toMatchObject({
      code: 'FEED_SOURCE_URL',
      message: expect.stringContaining('https'),
    });
    expect(await listFeedSources(t.db, t.businessId)).toEqual([]);
    const cli = await inmo(
      { ...process.env, DATABASE_URL: t.url, LOG_LEVEL: 'warn', INMO_ALLOW_PRIVATE_NETWORK: '0' },
      'feeds',
      'pull',
      'add',
      '--business',
      String(t.businessId),
      '--url',
      'http://crm.example/feed.xml',
    );
    expect(cli.code).not.toBe(0);
    expect(cli.stderr).toContain('must be an https URL');
    expect(await listFeedSources(t.db, t.businessId)).toEqual([]);
    // https to a public host is fine; http is for closed networks and tests, with the switch.
    expect(await addFeedSource(t.db, { businessId: t.businessId, url: 'https://crm.example/feed.xml' }, strict)).toMatchObject({
      id: expect.any(Number),
    });
    const { id } = await addFeedSource(t.db, { businessId: t.businessId, url: 'http://crm.example/feed.xml' }, allowed);
    // A source added while http was allowed is not pulled over http once it is not.
    expect(await pull(id, 200 * MB, strict)).toEqual({
      status: 'failed',
      error: 'the feed URL is not https: a pull goes over https only (INMO_ALLOW_PRIVATE_NETWORK=1 also allows http)',
    });
  });

  it('refuses, when pulled, a host name that resolves to a private address (localhost), sending nothing', async () => {
    const { id } = await addFeedSource(
      t.db,
      { businessId: t.businessId, url: crm.url.replace('127.0.0.1', 'localhost').replace('http:', 'https:') },
      allowed,
    );
    const requests = crm.requests.length;
    const result = await pull(id, 200 * MB, strict);
    expect(result.status).toBe('failed');
    expect(result.error).toContain('is not a public address');
    expect(crm.requests.length).toBe(requests);
    expect(await listingStates()).toEqual({});
  });

  it('is pulled by the worker at once, then every every_minutes; a removed source is pulled no more', async () => {
    const { id } = await addFeedSource(t.db, { businessId: t.businessId, url: crm.url, everyMinutes: 30 }, allowed);
    await new Worker({ db: t.db, settings: { pollMs: 20 }, outbound: allowed }).drain();
    expect(await listingStates()).toMatchObject({ 'kyero:A': ['disponible', 100000] });
    const next = await t.db
      .selectFrom('jobs')
      .select(['run_at', 'state'])
      .where('kind', '=', 'pull_feed')
      .where('state', '=', 'pending')
      .execute();
    expect(next).toHaveLength(1);
    expect(Date.parse(next[0].run_at) - Date.now()).toBeGreaterThan(29 * 60_000);
    await removeFeedSource(t.db, id, null);
    await t.db
      .updateTable('jobs')
      .set({ run_at: new Date(0).toISOString() })
      .where('kind', '=', 'pull_feed')
      .execute();
    const requests = crm.requests.length;
    await new Worker({ db: t.db, settings: { pollMs: 20 }, outbound: allowed }).drain();
    expect(crm.requests.length).toBe(requests);
    expect(await t.db.selectFrom('jobs').select('id').where('kind', '=', 'pull_feed').where('state', '=', 'pending').execute()).toEqual([]);
  });

  it('the console adds, reads now and removes a feed for owners; agents and other businesses cannot', async () => {
    await userWithPassword(t.db, t.businessId, 'owner@uno.example', 'owner');
    await userWithPassword(t.db, t.businessId, 'agent@uno.example', 'agent');
    const owner = await loggedIn(t.app, 'owner@uno.example');
    const bad = await owner.submit('/console/catalogue', '/console/catalogue/sources', {
      url: 'ftp://crm.example/x.xml',
      every_minutes: '60',
    });
    expect(bad.statusCode).toBe(422);
    expect(bad.body).toContain('El enlace debe ser https');
    expect((await owner.submit('/console/catalogue', '/console/catalogue/sources', { url: crm.url, every_minutes: '60' })).statusCode).toBe(
      303,
    );
    const [{ id }] = await listFeedSources(t.db, t.businessId);
    expect((await owner.submit('/console/catalogue', `/console/catalogue/sources/${id}/run`, {})).statusCode).toBe(303);
    const page = (await owner.get('/console/catalogue')).body;
    expect(page).toContain(crm.url);
    expect(page).toMatch(/2 nuevos, 0 actualizados, 0 retirados, 0 rechazados/);
    const agent = await loggedIn(t.app, 'agent@uno.example');
    expect((await agent.submit('/console/catalogue', `/console/catalogue/sources/${id}/remove`, {})).statusCode).toBe(403);
    const other = await insertBusiness(t.db, 'Agencia Dos', nowRfc3339());
    await userWithPassword(t.db, other.id, 'owner@dos.example', 'owner');
    const stranger = await loggedIn(t.app, 'owner@dos.example');
    for (const action of ['run', 'remove']) {
      expect((await stranger.submit('/console/catalogue', `/console/catalogue/sources/${id}/${action}`, {})).statusCode).toBe(404);
    }
    expect((await owner.submit('/console/catalogue', `/console/catalogue/sources/${id}/remove`, {})).statusCode).toBe(303);
    expect(await listFeedSources(t.db, t.businessId)).toEqual([]);
  });

  it('inmo feeds pull add, list, run and remove', async () => {
    const env = { ...process.env, DATABASE_URL: t.url, LOG_LEVEL: 'warn', INMO_ALLOW_PRIVATE_NETWORK: '1' };
    const added = await inmo(
      env,
      'feeds',
      'pull',
      'add',
      '--business',
      String(t.businessId),
      '--url',
      crm.url,
      '--every-minutes',
      '120',
      '--json',
    );
    expect(added.json).toEqual({ id: expect.any(Number), url: crm.url, every_minutes: 120 });
    const { id } = added.json as { id: number };
    const run = await inmo(env, 'feeds', 'pull', 'run', String(id));
    expect(run.stdout).toContain('imported: created 2, updated 0, withdrawn 0, rejected 0');
    const list = await inmo(env, 'feeds', 'pull', 'list', '--business', String(t.businessId));
    expect(list.stdout).toContain(`#${id}  every 120 min  ${crm.url}`);
    expect((await inmo(env, 'feeds', 'pull', 'remove', String(id))).code).toBe(0);
    expect((await inmo(env, 'feeds', 'pull', 'run', String(id))).stderr).toContain(`No feed source with id ${id}`);
  });
});
