/**
 * Outgoing calls never reach a non-public address unless INMO_ALLOW_PRIVATE_NETWORK=1
 * (src/channels/outbound.ts): an address in the URL or one a name resolves to, checked on
 * the connection itself. The fake providers of the other suites listen on loopback, which
 * is exactly what is refused here with the setting off.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outboundPolicy } from '../../src/config.ts';
import ipaddr from 'ipaddr.js';
import { isPrivateHost, isPublicAddress } from '../../src/channels/outbound.ts';
import { sendWhatsAppMessage } from '../../src/channels/whatsapp-cloud.ts';
import { ChatCompletionsAssistant } from '../../src/services/messaging/assistant.ts';
import { understand } from '../../src/domain/messaging/assistant.ts';
import { startFakeGraph, type FakeGraph } from '../helpers/fake-graph.ts';
import { startFakeChat, type FakeChat } from '../helpers/fake-chat.ts';

/**
 * IANA's special-purpose address registries (iana-ipv4-special-registry,
 * iana-ipv6-special-registry, as of 2026), with multicast and the IPv6 space outside global
 * unicast: every block, at its first and last address, is refused.
 */
const RESERVED = [
  ['0.0.0.0/8', 'this network'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'shared address space'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'IETF protocol assignments'],
  ['192.0.0.0/29', 'IPv4 service continuity prefix'],
  ['192.0.0.8/32', 'IPv4 dummy address'],
  ['192.0.0.9/32', 'port control protocol anycast'],
  ['192.0.0.10/32', 'traversal using relays around NAT anycast'],
  ['192.0.0.170/31', 'NAT64/DNS64 discovery'],
  ['192.0.2.0/24', 'documentation (TEST-NET-1)'],
  ['192.31.196.0/24', 'AS112-v4'],
  ['192.52.193.0/24', 'AMT'],
  ['192.88.99.0/24', 'deprecated 6to4 relay anycast'],
  ['192.168.0.0/16', 'private'],
  ['192.175.48.0/24', 'direct delegation AS112 service'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation (TEST-NET-2)'],
  ['203.0.113.0/24', 'documentation (TEST-NET-3)'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved'],
  ['255.255.255.255/32', 'limited broadcast'],
  ['::1/128', 'loopback'],
  ['::/128', 'unspecified'],
  ['::/96', 'IPv4-compatible (deprecated)'],
  ['::ffff:0:0/96', 'IPv4-mapped'],
  ['64:ff9b::/96', 'IPv4-IPv6 translation'],
  ['64:ff9b:1::/48', 'IPv4-IPv6 translation, local use'],
  ['100::/64', 'discard-only'],
  ['100:0:0:1::/64', 'dummy IPv6 prefix'],
  ['2001::/23', 'IETF protocol assignments'],
  ['2001::/32', 'Teredo'],
  ['2001:1::1/128', 'port control protocol anycast'],
  ['2001:1::2/128', 'traversal using relays around NAT anycast'],
  ['2001:1::3/128', 'DNS-SD service registration protocol anycast'],
  ['2001:2::/48', 'benchmarking'],
  ['2001:3::/32', 'AMT'],
  ['2001:4:112::/48', 'AS112-v6'],
  ['2001:10::/28', 'deprecated ORCHID'],
  ['2001:20::/28', 'ORCHIDv2'],
  ['2001:30::/28', 'drone remote ID protocol entity tags'],
  ['2001:db8::/32', 'documentation'],
  ['2002::/16', '6to4'],
  ['2620:4f:8000::/48', 'direct delegation AS112 service'],
  ['3fff::/20', 'documentation'],
  ['5f00::/16', 'segment routing SIDs'],
  ['fc00::/7', 'unique local'],
  ['fe80::/10', 'link-local'],
  ['ff00::/8', 'multicast'],
  ['4000::/3', 'outside global unicast'],
  ['8000::/1', 'outside global unicast'],
] as const;

describe('isPublicAddress', () => {
  const edges = (cidr: string) => {
    const [address] = ipaddr.parseCIDR(cidr);
    const family = address.kind() === 'ipv4' ? ipaddr.IPv4 : ipaddr.IPv6;
    return [family.networkAddressFromCIDR(cidr).toString(), family.broadcastAddressFromCIDR(cidr).toString()];
  };

  it.each(RESERVED)('refuses %s (%s) from its first address to its last', (cidr) => {
    for (const address of edges(cidr)) expect(isPublicAddress(address), address).toBe(false);
  });

  it.each([
    ['::127.0.0.1', 'loopback written as IPv4-compatible'],
    ['::7f00:1', 'the same, in hex'],
    ['::a9fe:a9fe', 'link-local metadata, IPv4-compatible'],
    ['::ffff:127.0.0.1', 'loopback, IPv4-mapped'],
    ['::ffff:10.0.0.1', 'private, IPv4-mapped'],
    ['64:ff9b::a9fe:a9fe', 'metadata through NAT64'],
    ['2002:a9fe:a9fe::1', 'metadata through 6to4'],
    ['not an address', 'not an address'],
  ])('refuses %s (%s)', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['8.8.8.8', '1.1.1.1', '157.240.1.35', '2a03:2880:f10c:83:face:b00c:0:25de', '2001:4860:4860::8888', '2606:4700:4700::1111'])(
    'accepts the public address %s',
    (address) => {
      expect(isPublicAddress(address)).toBe(true);
    },
  );
});

describe('isPrivateHost', () => {
  it.each([
    ['localhost', true],
    ['LOCALHOST', true],
    ['crm.localhost', true],
    ['127.0.0.1', true],
    ['10.1.2.3', true],
    ['[::1]', true],
    ['[fd00::1]', true],
    ['169.254.169.254', true],
    ['8.8.8.8', false],
    ['[2606:4700::1111]', false],
    ['crm.example.com', false],
    // Every spelling getaddrinfo reads as an IPv4 address (issue 55): a URL of a scheme that is not
    // special (imap:, smtp:) keeps the host as written.
    ['127.1', true],
    ['0x7f000001', true],
    ['2130706433', true],
    ['0177.0.0.1', true],
    ['0x7f.1', true],
    ['127.0.0.1.', true],
    ['localhost.', true],
    ['0', true],
    ['10.1', true],
    ['::1', true],
    ['[::ffff:127.0.0.1]', true],
    ['[::ffff:7f00:1]', true],
    ['0:0:0:0:0:ffff:7f00:1', true],
    ['0x08080808', false],
    ['134744072', false],
  ])('judges %s', (host, expected) => {
    expect(isPrivateHost(host)).toBe(expected);
  });
});

describe('the outbound policy of an environment (config.ts)', () => {
  it('allows private destinations with INMO_ALLOW_PRIVATE_NETWORK=1 or its older alias, and nothing else', () => {
    expect(outboundPolicy({}).allowPrivateNetwork).toBe(false);
    expect(outboundPolicy({ INMO_ALLOW_PRIVATE_NETWORK: '1' }).allowPrivateNetwork).toBe(true);
    expect(outboundPolicy({ INMO_WEBHOOKS_ALLOW_PRIVATE: '1' }).allowPrivateNetwork).toBe(true);
    expect(outboundPolicy({ INMO_ALLOW_PRIVATE_NETWORK: 'true' }).allowPrivateNetwork).toBe(false);
  });

  it('reads INMO_CHANNEL_HOSTS as lower-case names, blanks dropped', () => {
    expect(outboundPolicy({ INMO_CHANNEL_HOSTS: ' Graph.Example.EU, ,other.example ' }).channelHosts).toEqual([
      'graph.example.eu',
      'other.example',
    ]);
    expect(outboundPolicy({}).channelHosts).toEqual([]);
  });
});

describe('with INMO_ALLOW_PRIVATE_NETWORK unset', () => {
  let graph: FakeGraph;
  let chat: FakeChat;
  const strict = outboundPolicy({});
  const allowed = outboundPolicy({ INMO_ALLOW_PRIVATE_NETWORK: '1' });
  beforeAll(async () => {
    graph = await startFakeGraph();
    chat = await startFakeChat();
  });
  afterAll(async () => {
    await graph.close();
    await chat.close();
  });

  const send = (baseUrl: string, outbound = strict) =>
    sendWhatsAppMessage(
      { baseUrl, phoneNumberId: '1', accessToken: 't', to: '+34600000000', callbackData: '1', content: { type: 'text', body: 'hola' } },
      { outbound, timeoutMs: 15_000 },
    );

  it('a send to an address in the URL, or to a name that resolves to loopback, is refused for good and never reaches it', async () => {
    const port = new URL(graph.baseUrl).port;
    for (const base of [graph.baseUrl, `http://localhost:${port}/v21.0`, `http://[::ffff:127.0.0.1]:${port}/v21.0`]) {
      const outcome = await send(base);
      expect(outcome.kind, base).toBe('rejected');
      expect((outcome as { error: string }).error).toMatch(/is not a public address \(INMO_ALLOW_PRIVATE_NETWORK=1 allows it\)$/);
    }
    expect(graph.requests).toHaveLength(0);
    // Allowed, the same send goes through.
    expect((await send(graph.baseUrl, allowed)).kind).toBe('sent');
    expect(graph.requests).toHaveLength(1);
  });

  it('a redirect is never followed: its target would skip the address check', async () => {
    const { createServer } = await import('node:http');
    const redirector = createServer((_req, res) => {
      res.writeHead(307, { location: `${graph.baseUrl}/1/messages` });
      res.end();
    });
    await new Promise<void>((resolve) => redirector.listen(0, '127.0.0.1', resolve));
    try {
      const before = graph.requests.length;
      const outcome = await send(`http://127.0.0.1:${(redirector.address() as { port: number }).port}/v21.0`, allowed);
      expect(outcome).toMatchObject({ kind: 'rejected', error: expect.stringMatching(/^HTTP 307/) });
      expect(graph.requests).toHaveLength(before);
    } finally {
      await new Promise((resolve) => redirector.close(resolve));
    }
  });

  it('a chat-completions endpoint on a private address fails (the built-in assistant then answers)', async () => {
    const assistant = new ChatCompletionsAssistant({ url: chat.baseUrl, model: 'm', apiKey: null }, strict);
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
