/**
 * The fast path's request log line (http/fast-path.ts `BatchedLog`): put together by hand where
 * pino would write plain JSON, it is byte for byte the line `log.info(fields, 'request')` writes;
 * where the logger changes lines (a formatter), pino makes each one.
 */
import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { FastifyBaseLogger } from 'fastify';
import { BatchedLog } from '../../src/http/fast-path.ts';

function logger(options: pino.LoggerOptions = {}) {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  const log = pino({ level: 'info', ...options }, stream);
  return { log, lines };
}

/** The line without its time, which differs between two writes. */
const timeless = (line: string) => line.replace(/"time":\d+/, '"time":0');

describe('the fast path’s request log line', () => {
  it('is the line pino writes for the same fields, escapes included', async () => {
    const { log, lines } = logger({ redact: ['req.headers["x-api-key"]'] });
    const batched = new BatchedLog(log as unknown as FastifyBaseLogger);
    expect(batched.plain).toBe(true);
    batched.request('req-"1"\\x', '/v1/ext/properties/:id', 200, 0.37, 'key_01');
    batched.flush();
    log.info({ reqId: 'req-"1"\\x', method: 'GET', route: '/v1/ext/properties/:id', status: 200, ms: 0.37, key_id: 'key_01' }, 'request');
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toHaveLength(2);
    expect(timeless(lines[0])).toBe(timeless(lines[1]));
    expect(JSON.parse(lines[0])).toMatchObject({ level: 30, reqId: 'req-"1"\\x', status: 200, ms: 0.37, msg: 'request' });
  });

  it('is made by pino where the logger formats its lines', async () => {
    const { log, lines } = logger({ formatters: { log: (fields) => ({ ...fields, service: 'inmo' }) } });
    const batched = new BatchedLog(log as unknown as FastifyBaseLogger);
    expect(batched.plain).toBe(false);
    batched.request('r-2', '/v1/ext/me', 304, 1.5, 'key_02');
    batched.flush();
    await new Promise((resolve) => setImmediate(resolve));
    expect(JSON.parse(lines[0])).toMatchObject({ reqId: 'r-2', route: '/v1/ext/me', status: 304, service: 'inmo' });
  });

  it('writes nothing below its level', async () => {
    const { log, lines } = logger({ level: 'warn' });
    const batched = new BatchedLog(log as unknown as FastifyBaseLogger);
    batched.request('r-3', '/v1/ext/me', 200, 1, 'key_03');
    batched.flush();
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines).toEqual([]);
  });
});
