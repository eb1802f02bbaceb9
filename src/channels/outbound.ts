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
import { Agent, fetch as undiciFetch } from 'undici';

/** The error code of a refused destination. */
export const PRIVATE_ADDRESS = 'EPRIVATEADDRESS';

/**
 * Whether private destinations are allowed, for every outgoing request (channels, the
 * assistant's model, webhooks): `INMO_ALLOW_PRIVATE_NETWORK=1`, or its older alias for
 * webhooks, `INMO_WEBHOOKS_ALLOW_PRIVATE=1` (CONTRACT §8, §13). Read on every call, so tests
 * and operators can change it.
 */
export const allowsPrivateNetwork = (env: NodeJS.ProcessEnv = process.env) =>
  env.INMO_ALLOW_PRIVATE_NETWORK === '1' || env.INMO_WEBHOOKS_ALLOW_PRIVATE === '1';

/** Whether an IP address is public unicast (IPv4-mapped IPv6 judged as its IPv4). */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
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

const publicOnly = new Agent({ connect: { lookup: publicOnlyLookup as never } });

/**
 * `fetch` for outgoing calls to configured services and webhook endpoints.
 * @param allowPrivate whether private destinations are allowed (default: {@link allowsPrivateNetwork}).
 * @throws TypeError('fetch failed') whose cause has code {@link PRIVATE_ADDRESS} for a refused
 *   destination (nothing was sent), or the usual network errors.
 */
export async function outboundFetch(url: string, request: RequestInit, allowPrivate: boolean = allowsPrivateNetwork()): Promise<Response> {
  // A redirect is never followed: its target would skip these checks (an address in a
  // Location header is never looked up). The caller sees the 3xx as a failure.
  const init: RequestInit = { ...request, redirect: 'manual' };
  if (allowPrivate) return fetch(url, init);
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && !isPublicAddress(host)) throw new TypeError('fetch failed', { cause: refusal(host, host) });
  return (await undiciFetch(url, { ...(init as object), dispatcher: publicOnly })) as unknown as Response;
}
