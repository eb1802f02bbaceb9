/**
 * The e-mail reader's thread (services/leads/email-read-thread.ts), started on this file's bundle
 * (thread-bundle.ts): loads the readers, posts `ready`, then reads each message it is sent,
 * `{id, raw, belief}`, one at a time, and posts `{id, read}` (services/leads/email-reading.ts
 * `MessageRead`) or `{id, unreadable: true}`; one sent as `{id, raw, answer: true}` is read as a
 * lead's answer (`readAnswer`), posted as `{id, read: text}`. What a message says crosses back to the serving
 * thread only; nothing of it is logged here.
 */
import { parentPort } from 'node:worker_threads';
import type { Belief } from '../../domain/leads/portal-emails/index.ts';
import { loadReaders, readAnswer, readMessage } from './email-reading.ts';

const port = parentPort!;
port.on('message', async ({ id, raw, belief, answer }: { id: number; raw: Uint8Array; belief?: Belief; answer?: boolean }) => {
  try {
    port.postMessage({ id, read: answer ? await readAnswer(raw) : await readMessage(raw, belief) });
  } catch {
    port.postMessage({ id, unreadable: true });
  }
});
await loadReaders();
port.postMessage('ready');
