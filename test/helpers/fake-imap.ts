/**
 * A hostile (or broken) IMAP server on loopback, for the bounds of an e-mail pull
 * (services/leads/email-pulls.ts): only as much IMAP4rev1 (RFC 3501) as imapflow needs to log in,
 * open INBOX, search, fetch and flag. What it claims (UIDNEXT, RFC822.SIZE) and what it sends (a
 * literal larger than it said, a message a few bytes at a time, nothing at all) is scripted, and
 * it counts what the client asked and whether the client hung up before an answer was whole.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** One message of the INBOX. */
export interface FakeMessage {
  uid: number;
  /** Its bytes (what an honest server sends). */
  body?: Buffer;
  /** The RFC822.SIZE announced (default: the body's length). */
  size?: number;
  /**
   * Sends a literal of this many bytes for the message's body instead, whatever was asked (a
   * partial fetch too), in chunks as fast as the client reads them.
   */
  literal?: number;
  /** Sends the body `bytes` at a time, one chunk every `everyMs`. */
  drip?: { bytes: number; everyMs: number };
  seen?: boolean;
}

export interface FakeImapOptions {
  messages?: FakeMessage[];
  /** The UIDNEXT SELECT announces (default: the largest UID + 1). */
  uidNext?: number;
  uidValidity?: number;
  /** Never answers LOGIN (the connection stays open, silent). */
  hangAtLogin?: boolean;
  /** Closes the connection after this many SEARCH commands (so a runaway client ends). */
  maxSearches?: number;
  /** Never answers LOGOUT: sends an untagged `* OK` every this many ms instead (each resets an idle timer). */
  dripAfterLogoutMs?: number;
}

export interface FakeImap {
  port: number;
  /** `imap://agent:secret@127.0.0.1:PORT/INBOX`. */
  url: string;
  messages: FakeMessage[];
  /** Commands received, by name (`UID SEARCH` counted as `SEARCH`, `UID FETCH` as `FETCH`). */
  commands: Map<string, number>;
  /** FETCH commands that asked for a message's body, by UID. */
  bodyFetches: Map<number, number>;
  /** Connections accepted, and those open now. */
  connections: number;
  open: number;
  /** Bodies (literals) begun and ended, and those the client hung up on before they ended. */
  literals: { begun: number; ended: number; cutShort: number };
  /** Bytes of bodies written to sockets. */
  bodyBytesSent: number;
  /** Resolves when `n` connections are open. */
  openCount(n: number): Promise<void>;
  close(): Promise<void>;
}

const count = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);

/** Starts the server. */
export async function startFakeImap(options: FakeImapOptions = {}): Promise<FakeImap> {
  const messages = options.messages ?? [];
  const sockets = new Set<Socket>();
  const waiters: Array<{ n: number; resolve: () => void }> = [];
  const fake: FakeImap = {
    port: 0,
    url: '',
    messages,
    commands: new Map(),
    bodyFetches: new Map(),
    connections: 0,
    open: 0,
    literals: { begun: 0, ended: 0, cutShort: 0 },
    bodyBytesSent: 0,
    openCount: (n) =>
      new Promise((resolve) => {
        if (fake.open >= n) resolve();
        else waiters.push({ n, resolve });
      }),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const uidNext = () => options.uidNext ?? Math.max(0, ...messages.map((m) => m.uid)) + 1;
  const sequenceOf = (uid: number) => messages.findIndex((m) => m.uid === uid) + 1;

  /** The UIDs of a UID set (`1,3:5`, `*` being the largest), among the messages. */
  const uidsOf = (set: string): number[] => {
    const top = Math.max(0, ...messages.map((m) => m.uid));
    const wanted = (uid: number) =>
      set.split(',').some((part) => {
        const [a, b] = part.split(':').map((n) => (n === '*' ? top : Number(n)));
        return b === undefined ? uid === a : uid >= Math.min(a, b) && uid <= Math.max(a, b);
      });
    return messages.filter((m) => wanted(m.uid)).map((m) => m.uid);
  };

  const server: Server = createServer((socket) => {
    sockets.add(socket);
    fake.connections++;
    fake.open++;
    for (const waiter of waiters.splice(0)) {
      if (fake.open >= waiter.n) waiter.resolve();
      else waiters.push(waiter);
    }
    let closed = false;
    socket.on('close', () => {
      closed = true;
      fake.open--;
      sockets.delete(socket);
    });
    socket.on('error', () => {});
    const write = (text: string) => {
      if (!closed) socket.write(text);
    };
    write('* OK [CAPABILITY IMAP4rev1] fake ready\r\n');

    /** Writes a message's body as a literal, as its script says; resolves when done or cut short. */
    const sendBody = async (message: FakeMessage, prefix: string, partial: number | null) => {
      const body = message.body ?? Buffer.alloc(0);
      const total = message.literal ?? (partial === null ? body.length : Math.min(partial, body.length));
      socket.write(`${prefix} BODY[]${partial === null ? '' : '<0>'} {${total}}\r\n`);
      fake.literals.begun++;
      const chunkOf = (from: number, size: number) =>
        message.literal !== undefined
          ? Buffer.alloc(Math.min(size, total - from), 0x61)
          : body.subarray(from, Math.min(from + size, total));
      let sent = 0;
      while (sent < total) {
        if (closed) {
          fake.literals.cutShort++;
          return;
        }
        const chunk = chunkOf(sent, message.drip?.bytes ?? 64 * 1024);
        sent += chunk.length;
        fake.bodyBytesSent += chunk.length;
        const flushed = socket.write(chunk);
        if (message.drip) await new Promise((resolve) => setTimeout(resolve, message.drip!.everyMs));
        else if (!flushed)
          await new Promise<void>((resolve) => (closed ? resolve() : socket.once('drain', resolve).once('close', resolve)));
      }
      if (closed) {
        fake.literals.cutShort++;
        return;
      }
      fake.literals.ended++;
      socket.write(')\r\n');
    };

    const answer = async (line: string) => {
      const match = /^(\S+) (UID )?(\S+)(?: (.*))?$/.exec(line);
      if (!match) return;
      const [, tag, uidPrefix, verb, rest = ''] = match;
      const name = verb.toUpperCase();
      count(fake.commands, name);
      switch (name) {
        case 'CAPABILITY':
          write('* CAPABILITY IMAP4rev1\r\n');
          return write(`${tag} OK done\r\n`);
        case 'LOGIN':
          if (options.hangAtLogin) return;
          return write(`${tag} OK [CAPABILITY IMAP4rev1] logged in\r\n`);
        case 'LIST':
          write('* LIST (\\HasNoChildren) "/" INBOX\r\n');
          return write(`${tag} OK done\r\n`);
        case 'STATUS': {
          const unseen = messages.filter((m) => !m.seen).length;
          write(`* STATUS INBOX (MESSAGES ${messages.length} UNSEEN ${unseen} UIDNEXT ${uidNext()})\r\n`);
          return write(`${tag} OK done\r\n`);
        }
        case 'SELECT':
        case 'EXAMINE':
          write(`* ${messages.length} EXISTS\r\n* 0 RECENT\r\n* FLAGS (\\Seen)\r\n`);
          write(`* OK [UIDVALIDITY ${options.uidValidity ?? 7}] ok\r\n* OK [UIDNEXT ${uidNext()}] ok\r\n`);
          return write(`${tag} OK [READ-WRITE] done\r\n`);
        case 'SEARCH': {
          const searches = fake.commands.get('SEARCH')!;
          if (options.maxSearches !== undefined && searches > options.maxSearches) return socket.destroy();
          const range = /UID (\S+)/i.exec(rest)?.[1];
          const inRange = range ? new Set(uidsOf(range)) : null;
          const found = messages
            .filter((m) => !m.seen && (!inRange || inRange.has(m.uid)))
            .map((m) => (uidPrefix ? m.uid : sequenceOf(m.uid)));
          write(`* SEARCH${found.map((n) => ` ${n}`).join('')}\r\n`);
          return write(`${tag} OK done\r\n`);
        }
        case 'FETCH': {
          const [set, ...items] = rest.split(' ');
          const what = items.join(' ').toUpperCase();
          for (const uid of uidsOf(set)) {
            const message = messages.find((m) => m.uid === uid)!;
            const prefix = `* ${sequenceOf(uid)} FETCH (UID ${uid}`;
            if (what.includes('BODY.PEEK[]') || what.includes('BODY[]')) {
              fake.bodyFetches.set(uid, (fake.bodyFetches.get(uid) ?? 0) + 1);
              const partial = /BODY(?:\.PEEK)?\[\]<0\.(\d+)>/.exec(what);
              await sendBody(message, prefix, partial ? Number(partial[1]) : null);
              if (closed) return;
            } else {
              const size = message.size ?? message.body?.length ?? 0;
              write(`${prefix} RFC822.SIZE ${size}${what.includes('FLAGS') ? ` FLAGS (${message.seen ? '\\Seen' : ''})` : ''})\r\n`);
            }
          }
          return write(`${tag} OK done\r\n`);
        }
        case 'STORE': {
          const [set] = rest.split(' ');
          for (const uid of uidsOf(set)) {
            const message = messages.find((m) => m.uid === uid)!;
            if (/\+FLAGS/i.test(rest) && /\\Seen/i.test(rest)) message.seen = true;
            write(`* ${sequenceOf(uid)} FETCH (UID ${uid} FLAGS (${message.seen ? '\\Seen' : ''}))\r\n`);
          }
          return write(`${tag} OK done\r\n`);
        }
        case 'LOGOUT':
          if (options.dripAfterLogoutMs) {
            const every = options.dripAfterLogoutMs;
            const drip = setInterval(() => (socket.destroyed ? clearInterval(drip) : write('* OK still here\r\n')), every);
            socket.on('close', () => clearInterval(drip));
            return;
          }
          write('* BYE bye\r\n');
          write(`${tag} OK done\r\n`);
          return socket.end();
        default:
          return write(`${tag} OK done\r\n`);
      }
    };

    // One command at a time, in order, as a client waits for each tagged answer.
    let buffered = '';
    let queue: Promise<unknown> = Promise.resolve();
    socket.on('data', (data) => {
      buffered += data.toString('latin1');
      let end: number;
      while ((end = buffered.indexOf('\r\n')) >= 0) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        queue = queue.then(() => answer(line)).catch(() => {});
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.port = (server.address() as AddressInfo).port;
  fake.url = `imap://agent:secret@127.0.0.1:${fake.port}/INBOX`;
  return fake;
}
