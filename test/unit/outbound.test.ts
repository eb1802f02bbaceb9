/**
 * Outgoing calls never reach a non-public address unless INMO_ALLOW_PRIVATE_NETWORK=1
 * (src/channels/outbound.ts): an address in the URL or one a name resolves to, checked on
 * the connection itself. The fake providers of the other suites listen on loopback, which
 * is exactly what is refused here with the setting off.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { isPublicAddress } from '../../src/channels/outbound.ts';
import { sendWhatsAppMessage } from '../../src/channels/whatsapp-cloud.ts';
import { ChatCompletionsAssistant } from '../../src/services/assistant.ts';
import { understand } from '../../src/domain/assistant.ts';
import { startFakeGraph, type FakeGraph } from '../helpers/fake-graph.ts';
import { startFakeChat, type FakeChat } from '../helpers/fake-chat.ts';

describe('isPublicAddress', () => {
  it.each([
    ['8.8.8.8', true],
    ['157.240.1.35', true],
    ['2a03:2880:f10c:83:face:b00c:0:25de', true],
    ['127.0.0.1', false],
    ['10.1.2.3', false],
    ['172.16.0.1', false],
    ['192.168.1.10', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['0.0.0.0', false],
    ['255.255.255.255', false],
    ['224.0.0.1', false],
    ['::1', false],
    ['::', false],
    ['fe80::1', false],
    ['fc00::1', false],
    ['::ffff:127.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    ['not an address', false],
  ])('%s → %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });
});

describe('with INMO_ALLOW_PRIVATE_NETWORK unset', () => {
  let graph: FakeGraph;
  let chat: FakeChat;
  const saved = process.env.INMO_ALLOW_PRIVATE_NETWORK;
  beforeAll(async () => {
    graph = await startFakeGraph();
    chat = await startFakeChat();
  });
  afterAll(async () => {
    await graph.close();
    await chat.close();
  });
  beforeEach(() => {
    delete process.env.INMO_ALLOW_PRIVATE_NETWORK;
  });
  afterEach(() => {
    process.env.INMO_ALLOW_PRIVATE_NETWORK = saved;
  });

  const send = (baseUrl: string) =>
    sendWhatsAppMessage(
      { baseUrl, phoneNumberId: '1', accessToken: 't', to: '+34600000000', callbackData: '1', content: { type: 'text', body: 'hola' } },
      2000,
    );

  it('a send to an address in the URL, or to a name that resolves to loopback, is refused for good and never reaches it', async () => {
    const port = new URL(graph.baseUrl).port;
    for (const base of [graph.baseUrl, `http://localhost:${port}/v21.0`, `http://[::ffff:127.0.0.1]:${port}/v21.0`]) {
      const outcome = await send(base);
      expect(outcome.kind, base).toBe('rejected');
      expect((outcome as { error: string }).error).toMatch(/is not a public address \(INMO_ALLOW_PRIVATE_NETWORK=1 allows it\)$/);
    }
    expect(graph.requests).toHaveLength(0);
    // Allowed again, the same send goes through.
    process.env.INMO_ALLOW_PRIVATE_NETWORK = '1';
    expect((await send(graph.baseUrl)).kind).toBe('sent');
    expect(graph.requests).toHaveLength(1);
  });

  it('a redirect is never followed: its target would skip the address check', async () => {
    process.env.INMO_ALLOW_PRIVATE_NETWORK = '1';
    const { createServer } = await import('node:http');
    const redirector = createServer((_req, res) => {
      res.writeHead(307, { location: `${graph.baseUrl}/1/messages` });
      res.end();
    });
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
    try {
      const before = graph.requests.length;
      const outcome = await send(`http://127.0.0.1:${(redirector.address() as { port: number }).port}/v21.0`);
      expect(outcome).toMatchObject({ kind: 'rejected', error: expect.stringMatching(/^HTTP 307/) });
      expect(graph.requests).toHaveLength(before);
    } finally {
      await new Promise((resolve) => redirector.close(resolve));
    }
  });

  it('a chat-completions endpoint on a private address fails (the built-in assistant then answers)', async () => {
    const assistant = new ChatCompletionsAssistant({ url: chat.baseUrl, model: 'm', apiKey: null });
    const input = {
      understanding: understand('hola'),
      language: 'es' as const,
      matches: [],
      operations: [],
      handsOff: false,
      leadName: null,
      searches: [],
      thread: [{ direction: 'in' as const, text: 'hola' }],
    };
    await expect(assistant.reply(input)).rejects.toThrow();
    expect(chat.requests).toHaveLength(0);
  });
});
