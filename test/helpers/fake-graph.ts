/**
 * A fake WhatsApp Cloud API (Graph API) on loopback: records every request and answers
 * each with the next scripted response (200 with a message id when the script is empty).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GraphRequest {
  method: string;
  url: string;
  authorization: string | undefined;
  contentType: string | undefined;
  body: any;
}

export interface FakeGraph {
  /** Base URL with a version segment, as a channel stores it. */
  baseUrl: string;
  requests: GraphRequest[];
  /**
   * Scripted answers, used in order: a status (and optional body), given once `until` resolves
   * when there is one; or 'hang' to never answer.
   */
  script: Array<{ status: number; body?: unknown; until?: Promise<unknown> } | 'hang'>;
  /** Sends per recipient (`to`). */
  sendsTo(phone: string): number;
  close(): Promise<void>;
}

export async function startFakeGraph(): Promise<FakeGraph> {
  const requests: GraphRequest[] = [];
  const script: FakeGraph['script'] = [];
  let counter = 0;
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      let body: unknown = raw;
      try {
        body = JSON.parse(raw);
      } catch {
        // kept as text
      }
      requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        authorization: req.headers.authorization,
        contentType: req.headers['content-type'],
        body,
      });
      const next = script.shift();
      if (next === 'hang') return;
      const status = next?.status ?? 200;
      const answer =
        next?.body ??
        (status === 200
          ? {
              messaging_product: 'whatsapp',
              contacts: [{ input: (body as any)?.to, wa_id: String((body as any)?.to).replace('+', '') }],
              messages: [{ id: `wamid.fake${++counter}` }],
            }
          : { error: { message: `scripted ${status}`, type: 'OAuthException', code: status === 429 ? 130429 : 131000 } });
      void Promise.resolve(next?.until).then(() => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(answer));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v21.0`,
    requests,
    script,
    sendsTo: (phone) => requests.filter((r) => r.body?.to === phone).length,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
