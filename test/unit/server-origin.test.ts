/**
 * The origin inmo writes its links with (http/origin.ts), over a real socket: the address and
 * port the connection reached, whatever `Host` the client sends; IPv6 in brackets; and
 * `INMO_PUBLIC_URL` when set.
 */
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyRequest } from 'fastify';
import { expect, it } from 'vitest';
import { serverOrigin } from '../../src/http/origin.ts';

async function originSeenAt(host: string, publicUrl: string | null): Promise<string> {
  const server = createServer((req, res) => res.end(serverOrigin({ raw: req } as FastifyRequest, publicUrl)));
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  try {
    return await new Promise<string>((resolve, reject) => {
      const req = httpRequest(
        { host, port, path: '/', headers: { host: 'evil.example:6666', 'x-forwarded-host': 'evil.example' } },
        (res) => {
          let body = '';
          res.on('data', (chunk) => (body += chunk));
          res.on('end', () => resolve(body.replace(`:${port}`, ':PORT')));
        },
      );
      req.on('error', reject);
      req.end();
    });
  } finally {
    server.close();
  }
}

it('is the address the connection reached, never the Host header', async () => {
  expect(await originSeenAt('127.0.0.1', null)).toBe('http://127.0.0.1:PORT');
  expect(await originSeenAt('::1', null)).toBe('http://[::1]:PORT');
  expect(await originSeenAt('127.0.0.1', 'https://inmo.agency.example/')).toBe('https://inmo.agency.example');
});
