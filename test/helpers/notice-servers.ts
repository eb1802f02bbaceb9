/**
 * What a test of what leads are told needs around it: a real SMTP server for the file
 * (test/helpers/smtp.ts), and for each test a fresh fake Graph API (test/helpers/fake-graph.ts),
 * an empty mailbox and vitest's fake `Date` (only `Date`) at `now`.
 */
import { afterAll, afterEach, beforeAll, beforeEach, vi } from 'vitest';
import { startFakeGraph, type FakeGraph } from './fake-graph.ts';
import { startSmtp, type TestSmtp } from './smtp.ts';

/** Registers the hooks; read `smtp` and `graph` inside tests (they are set by the hooks). */
export function withNoticeServers(now: string): { readonly smtp: TestSmtp; readonly graph: FakeGraph } {
  const servers = {} as { smtp: TestSmtp; graph: FakeGraph };
  beforeAll(async () => {
    servers.smtp = await startSmtp();
  });
  afterAll(async () => {
    await servers.smtp.close();
  });
  beforeEach(async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date(now));
    servers.graph = await startFakeGraph();
    servers.smtp.received.length = 0;
  });
  afterEach(async () => {
    vi.useRealTimers();
    await servers.graph.close();
  });
  return servers;
}
