/**
 * Reading a received e-mail off the serving thread, with a deadline (issue 55, hole 1): the
 * `process_email` job reads each message on the e-mail reader's thread
 * (services/leads/email-read-thread.ts); one not read within `INMO_EMAIL_READ_TIMEOUT_MS` stops
 * that thread and waits as not understood, with its reason in words, and is not read again. What
 * reading a message not understood found is kept (migration 0044): the console's page of it
 * never reads its bytes again.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/db/database.ts';
import { Worker } from '../../../src/jobs/worker.ts';
import { acceptInboundEmail, discardEmail, emailToReview, NOT_UNDERSTOOD } from '../../../src/services/leads/email-intake.ts';
import { readingThreadsStarted, stopReadingThread } from '../../../src/services/leads/email-read-thread.ts';
import { businessWithKey, freshDb, REPO_ROOT } from '../../helpers/db.ts';

let db: Db;
let businessId: number;

beforeEach(async () => {
  db = (await freshDb()).db;
  businessId = (await businessWithKey(db)).businessId;
});
afterEach(async () => {
  delete process.env.INMO_EMAIL_READ_TIMEOUT_MS;
  await db.destroy();
});
afterAll(() => stopReadingThread());

const drain = () => new Worker({ db, settings: { pollMs: 20 } }).drain();
const emails = () => db.selectFrom('inbound_emails').selectAll().orderBy('id').execute();
const fixture = (name: string) => readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'email', name));

/** A message whose reading takes a while however it is read: 4 MB of HTML, a million nested elements. */
const slow = Buffer.from(
  `From: x@example.org\r\nSubject: Lento\r\nMessage-ID: <slow@example.org>\r\nContent-Type: text/html\r\n\r\n${'<div>'.repeat(800_000)}Nombre: Ana\r\n`,
);

describe('the deadline of reading an e-mail', () => {
  it('a message not read within INMO_EMAIL_READ_TIMEOUT_MS waits as not understood, its reason in words, and its thread is stopped', async () => {
    process.env.INMO_EMAIL_READ_TIMEOUT_MS = '1';
    await acceptInboundEmail(db, businessId, slow);
    await drain();
    const before = readingThreadsStarted();
    expect((await emails()).map(({ state, reason, parser, lead_id }) => ({ state, reason, parser, lead_id }))).toEqual([
      { state: 'not_understood', reason: NOT_UNDERSTOOD.timedOut, parser: null, lead_id: null },
    ]);
    expect(NOT_UNDERSTOOD.timedOut).toBe('not read within its time limit');
    // Settled for good: the job is done, not retried.
    expect(await db.selectFrom('jobs').select(['kind', 'state']).where('kind', '=', 'process_email').execute()).toEqual([
      { kind: 'process_email', state: 'done' },
    ]);
    // Its page shows its sender and subject only: it was not read, and is not read again to show it.
    expect(await emailToReview(db, businessId, (await emails())[0].id)).toMatchObject({
      reason: NOT_UNDERSTOOD.timedOut,
      text: '',
      found: null,
    });

    // The next message is read on a new thread, within the default deadline.
    delete process.env.INMO_EMAIL_READ_TIMEOUT_MS;
    await acceptInboundEmail(db, businessId, fixture('idealista.eml'));
    await drain();
    expect(readingThreadsStarted()).toBe(before + 1);
    expect((await emails())[1]).toMatchObject({ state: 'lead', parser: 'idealista', reading: null });
  });
});

describe('the page of a message not understood', () => {
  it('shows what reading found when the message settled, without reading its bytes again', async () => {
    const raw = Buffer.from(
      'From: x@otro.example\r\nSubject: Sin tel\r\nMessage-ID: <a@otro.example>\r\n\r\nNombre: Ana Gil\r\nEmail: ana@nadie.example\r\n',
    );
    await acceptInboundEmail(db, businessId, raw);
    await drain();
    const [row] = await emails();
    expect(row).toMatchObject({ state: 'not_understood', reason: NOT_UNDERSTOOD.noPhone });
    expect(JSON.parse(row.reading!)).toEqual({
      text: 'Nombre: Ana Gil\nEmail: ana@nadie.example\n',
      found: { name: 'Ana Gil', phone: null, email: 'ana@nadie.example', message: null, reference: null, source: 'email' },
    });
    // Other bytes in its place change nothing of its page: what it shows was kept, not read again.
    await db
      .updateTable('inbound_emails')
      .set({ raw: Buffer.from('From: y@otro.example\r\n\r\nNombre: Otra\r\n') })
      .where('id', '=', row.id)
      .execute();
    const page = await emailToReview(db, businessId, row.id);
    expect(page).toMatchObject({
      text: 'Nombre: Ana Gil\nEmail: ana@nadie.example\n',
      found: { name: 'Ana Gil', email: 'ana@nadie.example' },
    });

    // Handled, it keeps no reading.
    await discardEmail(db, businessId, row.id);
    expect((await emails())[0]).toMatchObject({ state: 'discarded', reading: null });
  });

  it('a message settled before readings were kept is read again, on the thread', async () => {
    await acceptInboundEmail(db, businessId, Buffer.from('From: x@otro.example\r\nSubject: s\r\n\r\nNombre: Luis\r\n'));
    await drain();
    const [row] = await emails();
    await db.updateTable('inbound_emails').set({ reading: null }).where('id', '=', row.id).execute();
    expect(await emailToReview(db, businessId, row.id)).toMatchObject({ text: 'Nombre: Luis\n', found: { name: 'Luis' } });
  });
});

describe('what an e-mail says is stored as text both engines keep', () => {
  it('a NUL or a lone surrogate in its subject, name or message is cleaned, not a job that fails until it is parked', async () => {
    // Encoded words (RFC 2047) may carry any byte: U+0000, and half of a surrogate pair, which PostgreSQL refuses.
    const raw = Buffer.from(
      'From: web@agencia.example\r\nSubject: =?utf-8?q?Hola=00mundo?=\r\nMessage-ID: <nul@example.org>\r\n' +
        'Content-Type: text/plain; charset=utf-8\r\n\r\nNombre: Ana\u0000 Ruiz\r\nTel\u00e9fono: 612 34 56 78\r\nMensaje: Quiero verlo \ud83c\r\n',
    );
    await acceptInboundEmail(db, businessId, raw);
    await drain();
    const [row] = await emails();
    expect(row.state).toBe('lead');
    expect(row.subject).toBe('Holamundo');
    const lead = await db.selectFrom('leads').select('name').where('id', '=', row.lead_id!).executeTakeFirstOrThrow();
    expect(lead.name).toBe('Ana Ruiz');
    const notes = await db.selectFrom('lead_notes').select('text').where('lead_id', '=', row.lead_id!).execute();
    expect(notes.map((n) => n.text).join('\n')).toContain('Quiero verlo \ufffd');
    expect(await db.selectFrom('jobs').select('state').where('kind', '=', 'process_email').execute()).toEqual([{ state: 'done' }]);
  });
});
