/**
 * The e-mail reader's thread (services/leads/email-read-thread.ts, issue 55, hole 1): a message
 * is read on a thread of its own, so the thread that serves requests keeps answering while a
 * hostile message is read; one thread serves message after message; a deadline stops it.
 */
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readingThreadsStarted, readInThread, stopReadingThread } from '../../src/services/leads/email-read-thread.ts';
import { REPO_ROOT } from '../helpers/db.ts';

afterAll(() => stopReadingThread());

const fixture = (name: string) => readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'email', name));

/** 10 MiB of hostile text: a fotocasa sender, blank lines, and a quotation opened on every line. */
const hostile = Buffer.from(
  `From: x@messaging.fotocasa.es\r\nSubject: s\r\nMessage-ID: <a${' '.repeat(100_000)}b>\r\n\r\n${'\u201c\r\n\r\n'.repeat(1_700_000)}`,
);

describe("the e-mail reader's thread", () => {
  it('reads messages one after another on one thread', async () => {
    const started = readingThreadsStarted();
    const first = await readInThread(fixture('idealista.eml'));
    const second = await readInThread(fixture('fotocasa.eml'));
    expect(first).toMatchObject({ outcome: 'read', read: { contact: { parser: 'idealista', name: 'María López Fernández' } } });
    expect(second).toMatchObject({ outcome: 'read', read: { contact: { parser: 'fotocasa', name: 'Jordi Puig i Serra' } } });
    expect(readingThreadsStarted()).toBeLessThanOrEqual(started + 1);
    expect(await readInThread(Buffer.from('not a message at all'))).toMatchObject({ outcome: 'read', read: { text: '' } });
  });

  it('while a 10 MiB hostile message is read, a cheap HTTP request on this thread gets its answer', async () => {
    await readInThread(fixture('idealista.eml'));
    const server = createServer((_request, response) => response.end('ok'));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      let settled = false;
      const reading = readInThread(hostile, { timeoutMs: 600_000 });
      void reading.then(() => (settled = true));
      const answer = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/healthz`);
      expect(await answer.text()).toBe('ok');
      // The answer came before the reading ended: the reading is not on this thread.
      expect(settled).toBe(false);
      expect(await reading).toMatchObject({ outcome: 'read', read: { contact: { parser: 'fotocasa', name: null, message: null } } });
    } finally {
      server.close();
    }
  });

  it('a tiny deadline stops the thread: the message is timed out, and the next one starts another thread', async () => {
    await readInThread(fixture('idealista.eml'));
    const started = readingThreadsStarted();
    expect(await readInThread(hostile, { timeoutMs: 1 })).toEqual({ outcome: 'timed_out' });
    expect(await readInThread(fixture('pisos-com.eml'))).toMatchObject({ outcome: 'read', read: { contact: { reference: 'VLC-88' } } });
    expect(readingThreadsStarted()).toBe(started + 1);
  });
});
