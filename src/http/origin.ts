/**
 * This server's own origin, for the links it writes (photo URLs, a feed's URL, a set-password
 * link, the webhook callback): `INMO_PUBLIC_URL` when set, else the address and port the
 * connection actually reached. Never the request's `Host` or `X-Forwarded-Host`, which its
 * sender chooses: a crafted `Host` would otherwise put a stranger's host into every photo
 * URL a console user uploads, or into a set-password link (issue 41). Behind a proxy, set
 * `INMO_PUBLIC_URL` (docs/operators.md).
 */
import type { FastifyRequest } from 'fastify';

/**
 * The origin links are written with, without a trailing slash: `publicUrl` when set, else
 * `http(s)://<local address>:<local port>` of the request's connection (`http://localhost` for
 * a request injected without a socket, as tests do).
 */
export function serverOrigin(request: FastifyRequest, publicUrl: string | null): string {
  if (publicUrl !== null) return publicUrl.replace(/\/+$/, '');
  const socket = request.raw.socket as (typeof request.raw.socket & { encrypted?: boolean }) | undefined;
  const scheme = socket?.encrypted ? 'https' : 'http';
  const address = socket?.localAddress;
  if (!address) return `${scheme}://localhost`;
  const host = address.includes(':') ? (address.startsWith('::ffff:') ? address.slice(7) : `[${address}]`) : address;
  return `${scheme}://${host}:${socket.localPort}`;
}
