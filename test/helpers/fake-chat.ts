/**
 * A fake OpenAI-compatible chat-completions API on loopback: records every request and
 * answers each with the next scripted reply (a fixed answer when the script is empty).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ChatRequest {
  url: string;
  authorization: string | undefined;
  body: any;
}

export interface FakeChat {
  /** Base URL, as `inmo channel assistant --url` takes it. */
  baseUrl: string;
  requests: ChatRequest[];
  script: Array<{ status: number; content: string }>;
  close(): Promise<void>;
}

export async function startFakeChat(): Promise<FakeChat> {
  const requests: ChatRequest[] = [];
  const script: FakeChat['script'] = [];
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (raw += chunk));
    req.on('end', () => {
      requests.push({ url: req.url ?? '', authorization: req.headers.authorization, body: JSON.parse(raw || 'null') });
      const next = script.shift() ?? { status: 200, content: 'Respuesta del modelo.' };
      res.writeHead(next.status, { 'content-type': 'application/json' });
      res.end(
        next.status === 200
          ? JSON.stringify({
              id: 'chatcmpl-1',
              object: 'chat.completion',
              choices: [{ index: 0, message: { role: 'assistant', content: next.content }, finish_reason: 'stop' }],
            })
          : JSON.stringify({ error: { message: 'scripted failure' } }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    script,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
