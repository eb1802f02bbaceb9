/**
 * Outgoing requests to the services inmo calls (the WhatsApp Graph API, a chat-completions
 * API), whose URLs are settings: they never reach a loopback, private, link-local or other
 * non-public address unless `INMO_ALLOW_PRIVATE_NETWORK=1` allows it (a provider on the
 * local network, or a test's fake). A URL someone could set, or a DNS name that resolves to
 * 169.254.169.254, must not turn inmo into a way into the network it runs in.
 *
 * The check is made on the very addresses the connection uses (undici's `connect.lookup`),
 * so a DNS answer that changes between a check and the connection cannot slip past it;
 * an address written in the URL itself is checked before any connection, and redirects are
 * not followed (a 3xx is the answer).
 */
import { lookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import type { Agent, Dispatcher } from 'undici';
import type { OutboundPolicy } from '../config.ts';

/** The error code of a refused destination. */
export const PRIVATE_ADDRESS = 'EPRIVATEADDRESS';

/**
 * The blocks of IANA's special-purpose address registries (RFC 6890 and its updates: iana.org,
 * `iana-ipv4-special-registry` and `iana-ipv6-special-registry`, with multicast), none of
 * which inmo ever calls, whether or not the registry marks one globally reachable: a
 * provider or a webhook receiver lives at an ordinary public address.
 */
const SPECIAL_PURPOSE = [
  // IPv4
  '0.0.0.0/8', // "this network"
  '10.0.0.0/8', // private
  '100.64.0.0/10', // shared address space (carrier-grade NAT)
  '127.0.0.0/8', // loopback
  '169.254.0.0/16', // link-local (cloud metadata services)
  '172.16.0.0/12', // private
  '192.0.0.0/24', // IETF protocol assignments
  '192.0.2.0/24', // documentation (TEST-NET-1)
  '192.31.196.0/24', // AS112-v4
  '192.52.193.0/24', // AMT
  '192.88.99.0/24', // deprecated 6to4 relay anycast
  '192.168.0.0/16', // private
  '192.175.48.0/24', // direct delegation AS112
  '198.18.0.0/15', // benchmarking
  '198.51.100.0/24', // documentation (TEST-NET-2)
  '203.0.113.0/24', // documentation (TEST-NET-3)
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved, and the limited broadcast 255.255.255.255
  // IPv6
  '::/96', // unspecified, loopback, and the deprecated IPv4-compatible addresses (::a.b.c.d)
  '::ffff:0:0/96', // IPv4-mapped (an address is judged as its IPv4 first; this catches the rest)
  '64:ff9b::/96', // NAT64, well-known prefix
  '64:ff9b:1::/48', // NAT64, local use
  '100::/64', // discard-only
  '2001::/23', // IETF protocol assignments (Teredo, benchmarking, ORCHID, AMT, AS112 …)
  '2001:db8::/32', // documentation
  '2002::/16', // 6to4
  '2620:4f:8000::/48', // direct delegation AS112 service
  '3fff::/20', // documentation
  '5f00::/16', // segment routing SIDs
  'fc00::/7', // unique local
  'fe80::/10', // link-local
  'ff00::/8', // multicast
].map((cidr) => ipaddr.parseCIDR(cidr));

/** Global unicast IPv6 (RFC 4291): every public IPv6 address is in it. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/**
 * A host as WHATWG's URL parser reads it in an `http` URL (brackets removed, lower case): an IPv4
 * address in any spelling the resolver also takes (`127.1`, `0x7f000001`, `2130706433`,
 * `0177.0.0.1`) in dotted decimal, an IPv6 one compressed. `new URL('imap://127.1')` keeps such a
 * host as written (not a special scheme), which `getaddrinfo` would still reach as 127.0.0.1.
 * @returns null when it is no host an `http` URL could name.
 */
export function canonicalHost(hostname: string): string | null {
  const bare = hostname.replace(/^\[|\]$/g, '');
  if (bare === '' || /[\s/\\?#@]/.test(bare)) return null;
  try {
    return new URL(`http://${isIP(bare) === 6 ? `[${bare}]` : bare}/`).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  } catch {
    return null;
  }
}

/**
 * Whether a URL's host (`URL.hostname`, brackets and all, or without them) names a place that is
 * not public: `localhost`, a `.localhost` name, or an IP literal outside public space, in any
 * spelling ({@link canonicalHost}: `127.1`, `0x7f000001`, `[::ffff:127.0.0.1]`…). A DNS name is
 * judged when it is connected to (the addresses it resolves to), never here.
 */
export function isPrivateHost(hostname: string): boolean {
  const raw = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const canonical = canonicalHost(hostname);
  return [raw, ...(canonical === null ? [] : [canonical])].some((spelling) => {
    const host = spelling.replace(/\.$/, '');
    return host === 'localhost' || host.endsWith('.localhost') || (isIP(host) !== 0 && !isPublicAddress(host));
  });
}

/**
 * Whether an IP address is public: in no special-purpose block of IANA's registries, and, for
 * IPv6, in global unicast `2000::/3`. An IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) is
 * judged as its IPv4.
 */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address);
  if (SPECIAL_PURPOSE.some(([block, bits]) => block.kind() === parsed.kind() && parsed.match(block, bits))) return false;
  return parsed.kind() === 'ipv4' || parsed.match(GLOBAL_UNICAST_V6);
}

function refusal(host: string, address: string): Error {
  return Object.assign(
    new Error(`refused to connect to ${host}: ${address} is not a public address (INMO_ALLOW_PRIVATE_NETWORK=1 allows it)`),
    {
      code: PRIVATE_ADDRESS,
    },
  );
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** `dns.lookup` that fails when any address of the name is not public. */
function publicOnlyLookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
  lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, []);
    const refused = addresses.find((a) => !isPublicAddress(a.address));
    if (refused) return callback(refusal(hostname, refused.address), []);
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
}

/**
 * undici (about 40 modules) loads at the first outgoing request to a checked destination, not
 * with every process; with it, the one agent that connects to public addresses only.
 */
let undici: Promise<{ module: typeof import('undici'); publicOnly: Agent }> | undefined;
const loadUndici = () =>
  (undici ??= import('undici').then((module) => ({
    module,
    publicOnly: new module.Agent({ connect: { lookup: publicOnlyLookup as never } }),
  })));

/**
 * `fetch` for outgoing calls to configured services and webhook endpoints.
 * @param policy where requests may go (config.ts `outboundPolicy`): private destinations only
 *   with `allowPrivateNetwork`.
 * @throws TypeError('fetch failed') whose cause has code {@link PRIVATE_ADDRESS} for a refused
 *   destination (nothing was sent), or the usual network errors.
 */
export async function outboundFetch(url: string, request: RequestInit, policy: OutboundPolicy): Promise<Response> {
  // A redirect is never followed: its target would skip these checks (an address in a
  // Location header is never looked up). The caller sees the 3xx as a failure.
  const init: RequestInit = { ...request, redirect: 'manual' };
  if (!checkedDestination(url, policy)) return fetch(url, init);
  const { module, publicOnly } = await loadUndici();
  return (await module.fetch(url, { ...(init as object), dispatcher: publicOnly })) as unknown as Response;
}

/**
 * Whether a request to `url` must go through the agent that connects to public addresses only:
 * false when private destinations are allowed.
 * @throws TypeError('fetch failed') whose cause has code {@link PRIVATE_ADDRESS} when the URL
 *   itself names a private address (no lookup, nothing sent).
 */
function checkedDestination(url: string, policy: OutboundPolicy): boolean {
  if (policy.allowPrivateNetwork) return false;
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && !isPublicAddress(host)) throw new TypeError('fetch failed', { cause: refusal(host, host) });
  return true;
}

/**
 * A GET as {@link outboundFetch} makes it, through undici's `request`: the body is a Node
 * stream rather than a web stream, for a large download (a feed pull: 200 MB through `fetch`
 * grew the process by 66 MiB, through this by 38 MiB). The body is not decompressed, and a
 * redirect is not followed (a 3xx is the answer).
 * @throws the signal's reason when it aborts (a `TimeoutError`); else `TypeError('fetch failed')`
 *   with the cause, as `fetch` does (`EPRIVATEADDRESS` for a refused destination).
 */
export async function outboundGet(
  url: string,
  options: { headers: Record<string, string>; signal: AbortSignal },
  policy: OutboundPolicy,
): Promise<Dispatcher.ResponseData> {
  const checked = checkedDestination(url, policy);
  const { module, publicOnly } = await loadUndici();
  try {
    return await module.request(url, { method: 'GET', ...options, ...(checked ? { dispatcher: publicOnly } : {}) });
  } catch (error) {
    if (options.signal.aborted) throw options.signal.reason;
    throw new TypeError('fetch failed', { cause: error });
  }
}
