/**
 * A real IMAP server for the e-mail pull tests: Debian's dovecot (dovecot-imapd, which `.ci/run`
 * installs), started as a configuration of its own in a temporary folder (its own base_dir,
 * 127.0.0.1 and a free port, one user in a passwd-file, maildir in the folder), and stopped with
 * its folder removed. Without TLS (`ssl = no`) unless asked: then it also listens for `imaps://`
 * on a second port, with a self-signed certificate for `localhost` and 127.0.0.1 made by
 * openssl (which Debian's dovecot-core depends on). Skipped, saying so, where dovecot is
 * missing, except under `INMO_REQUIRE_IMAP=1` (which `.ci/run` sets).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { ImapFlow } from 'imapflow';

const DOVECOT = '/usr/sbin/dovecot';

/** Whether dovecot can be run here; when not, says so (and fails under `INMO_REQUIRE_IMAP=1`). */
export function dovecotHere(suite: string): boolean {
  if (existsSync(DOVECOT) && spawnSync(DOVECOT, ['--version'], { stdio: 'ignore' }).status === 0) return true;
  if (process.env.INMO_REQUIRE_IMAP)
    throw new Error('dovecot is missing and INMO_REQUIRE_IMAP is set (.ci/run): apt-get install -y dovecot-imapd');
  process.stdout.write(`[inmo] ${suite}: skipped (dovecot is missing: apt-get install -y dovecot-imapd)\n`);
  return false;
}

/** A running dovecot with one mailbox user. */
export interface Dovecot {
  port: number;
  user: string;
  password: string;
  /** `imap://user:password@127.0.0.1:port/INBOX`. */
  url: string;
  /** With `tls`: the `imaps://` port, its URL (`imaps://user:password@127.0.0.1:port/INBOX`) and its self-signed certificate (PEM). */
  tls: { port: number; url: string; certificate: string } | null;
  /** The INBOX's Maildir (`new/`, `cur/`, `tmp/`), there once the user has logged in. */
  maildir: string;
  /** An imapflow client logged in as the user over the plain port, without STARTTLS (the caller logs out). */
  client(): Promise<ImapFlow>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`dovecot exited (${child.exitCode}): ${log()}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`dovecot did not listen on ${port} within 30 s: ${log()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Makes a self-signed certificate and its key for `localhost` and 127.0.0.1 in `dir` with openssl. */
function selfSignedCertificate(dir: string): { cert: string; key: string } {
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  const made = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '2',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
    ],
    { encoding: 'utf8' },
  );
  if (made.status !== 0) throw new Error(`openssl could not make a certificate: ${made.stderr}`);
  return { cert, key };
}

/**
 * Starts dovecot in a new temporary folder. As root (a CI container) the mail belongs to
 * `nobody`, since dovecot refuses to give mail to UID 0; otherwise to the current user.
 * @param options.tls also serve `imaps://` with a self-signed certificate (see the module's comment).
 */
export async function startDovecot(options: { tls?: boolean } = {}): Promise<Dovecot> {
  const dir = mkdtempSync(join(tmpdir(), 'inmo-dovecot-'));
  const me = userInfo();
  const root = me.uid === 0;
  const [uid, gid, login, group] = root ? [65534, 65534, 'nobody', 'nogroup'] : [me.uid, me.gid, me.username, me.username];
  for (const sub of ['run', 'state', 'mail']) mkdirSync(join(dir, sub));
  // As root, dovecot's processes run as nobody: they must reach the folder, read the users and write the mail.
  if (root) {
    chmodSync(dir, 0o755);
    chmodSync(join(dir, 'mail'), 0o777);
  }
  const user = 'agent@example.test';
  const password = 'imap-test-password';
  writeFileSync(join(dir, 'passwd'), `${user}:{PLAIN}${password}\n`);
  const port = await freePort();
  const tls = options.tls ? { port: await freePort(), ...selfSignedCertificate(dir) } : null;
  const conf = join(dir, 'dovecot.conf');
  writeFileSync(
    conf,
    `base_dir = ${dir}/run
state_dir = ${dir}/state
log_path = ${dir}/dovecot.log
protocols = imap
listen = 127.0.0.1
${tls ? `ssl = yes\nssl_cert = <${tls.cert}\nssl_key = <${tls.key}` : 'ssl = no'}
disable_plaintext_auth = no
auth_mechanisms = plain login
default_login_user = ${login}
default_internal_user = ${login}
default_internal_group = ${group}
first_valid_uid = ${Math.min(uid, 500)}
first_valid_gid = 0
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${dir}/passwd
}
userdb {
  driver = static
  args = uid=${uid} gid=${gid} home=${dir}/mail/%u
}
mail_location = maildir:${dir}/mail/%u/Maildir
service imap-login {
  chroot =
  inet_listener imap {
    address = 127.0.0.1
    port = ${port}
  }
  inet_listener imaps {
    ${tls ? `address = 127.0.0.1\n    port = ${tls.port}\n    ssl = yes` : 'port = 0'}
  }
}
service anvil {
  chroot =
}
service stats {
  inet_listener http {
    port = 0
  }
}
`,
  );
  const child = spawn(DOVECOT, ['-F', '-c', conf], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitForPort(port, child, () => output);
    if (tls) await waitForPort(tls.port, child, () => output);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    port,
    user,
    password,
    url: `imap://${encodeURIComponent(user)}:${password}@127.0.0.1:${port}/INBOX`,
    tls: tls && {
      port: tls.port,
      url: `imaps://${encodeURIComponent(user)}:${password}@127.0.0.1:${tls.port}/INBOX`,
      certificate: readFileSync(tls.cert, 'utf8'),
    },
    maildir: join(dir, 'mail', user, 'Maildir'),
    async client() {
      const client = new ImapFlow({
        host: '127.0.0.1',
        port,
        secure: false,
        doSTARTTLS: false,
        auth: { user, pass: password },
        logger: false,
        disableAutoIdle: true,
      });
      client.on('error', () => {});
      await client.connect();
      return client;
    },
    stop,
  };
}
