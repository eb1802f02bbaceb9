/**
 * Configuration: environment variables → typed, validated settings.
 *
 * Read once at start; a bad value throws at once with the variable's name rather than
 * failing later inside a request. This is the one module that reads `process.env`: the rest
 * of inmo is given its settings (docs/configuration.md lists them, generated from SETTINGS).
 */

import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseMailbox } from './channels/mailbox.ts';
import { DEFAULT_POOL_SETTINGS, type PoolSettings } from './db/pool-settings.ts';
import { DEFAULT_RATE_LIMITS, type RateLimits } from './rate-limit-settings.ts';
import { LIMIT_SETTINGS, loadLimits, type Limits } from './limits.ts';
import { DEFAULT_WORKER_SETTINGS, type WorkerSettings } from './worker-settings.ts';

/** Settings every command shares. */
export interface Config {
  /** `sqlite:<path>` (default `sqlite:./data/inmo.db`) or `postgres://…` (CONTRACT §9). */
  databaseUrl: string;
  /** pino level for the HTTP server's JSON logs. */
  logLevel: string;
  /** Entries kept in the per-process cache of `total` counts of GET /properties. */
  countCacheSize: number;
  /** Size of the per-process cache of GET /properties page bodies, MiB (0 = off). */
  pageCacheMb: number;
  /** Requests per minute per API key, and per client IP on the POST endpoints (`INMO_RATE_LIMIT_PER_KEY`, `INMO_RATE_LIMIT_POST_PER_IP`, `INMO_RATE_LIMIT_PUBLISHABLE_POST_PER_IP`; 0 = off). */
  rateLimits: RateLimits;
  /** `INMO_TRUST_PROXY`: `true` (any proxy) or the addresses/CIDRs (comma-separated) whose `X-Forwarded-For` is believed. */
  trustProxy: boolean | string[];
  /** PostgreSQL pool: `INMO_PG_POOL_SIZE` connections per process, `INMO_PG_STATEMENT_TIMEOUT_MS`. */
  pool: PoolSettings;
  /** The background worker's tunables (`INMO_WORKER_*`, `INMO_JOB_*`, `INMO_MATCH_LIMIT`, `INMO_SEND_TIMEOUT_MS`). */
  worker: WorkerSettings;
  /**
   * Prometheus metrics (CONTRACT §11): `INMO_METRICS=off` turns them off; `INMO_METRICS_PORT`
   * serves `GET /metrics` on its own port (on `INMO_METRICS_HOST`, default 127.0.0.1) instead
   * of the API's, and lets `inmo worker` serve its own.
   */
  metrics: { enabled: boolean; port: number | null; host: string; token: string | null };
  /** Request limits of CONTRACT §8 (`INMO_MAX_*`, src/limits.ts). */
  limits: Limits;
  /** `INMO_PUBLIC_URL`: this server's public base URL, when set (the console's cookies, the webhook callback URL). */
  publicUrl: string | null;
  /** Where `inmo serve` listens unless `--port`/`--host` say: `PORT` and `HOST`, as hosting platforms set them. */
  listen: { port: number; host: string };
  /** Where outgoing requests may go (`INMO_ALLOW_PRIVATE_NETWORK`, `INMO_CHANNEL_HOSTS`). */
  outbound: OutboundPolicy;
  /** `NODE_ENV=development`: the console reads its templates again on every page. */
  development: boolean;
  /** Where listings' photos are kept (`INMO_MEDIA_*`, CONTRACT §14). */
  media: MediaSettings;
  /** E-mail received by SMTP (`INMO_SMTP_INBOUND_*`, `INMO_INBOUND_DOMAIN`, CONTRACT §25), or null when off. */
  inboundSmtp: InboundSmtpSettings | null;
}

/**
 * E-mail received by SMTP (CONTRACT §25): `inmo serve` listens on `port` for mail to
 * `<token>@domain` (an MX record of `domain` points at this server).
 */
export interface InboundSmtpSettings {
  /** `INMO_SMTP_INBOUND_PORT` (25 behind an MX; 0 picks a free port). */
  port: number;
  /** `INMO_SMTP_INBOUND_HOST`: the interface, or null for the one `inmo serve` listens on. */
  host: string | null;
  /** `INMO_INBOUND_DOMAIN`, lower-case: the domain of the businesses' addresses. */
  domain: string;
  /** `INMO_SMTP_INBOUND_MAX_CONNECTIONS`: connections open at once; more are answered 421. */
  maxConnections: number;
  /** `INMO_SMTP_INBOUND_SESSION_MS`: the longest a connection stays open, whatever it does, ms. */
  sessionMs: number;
  /** `INMO_SMTP_INBOUND_TLS_CERT` and `_KEY`: PEM files offered by STARTTLS; null: no STARTTLS. */
  tls: { certFile: string; keyFile: string } | null;
}

/** Defaults of {@link InboundSmtpSettings}. */
export const DEFAULT_INBOUND_SMTP = Object.freeze({ maxConnections: 50, sessionMs: 10 * 60_000 });

/**
 * The inbound SMTP settings of an environment, or null when `INMO_SMTP_INBOUND_PORT` is unset.
 * @throws Error naming the variable: a port without `INMO_INBOUND_DOMAIN` (or the other way
 *   round), a domain that is not a host name of two labels or more, one TLS file without the other.
 */
export function inboundSmtpSettings(env: NodeJS.ProcessEnv = process.env): InboundSmtpSettings | null {
  const rawDomain = env.INMO_INBOUND_DOMAIN?.trim().toLowerCase().replace(/\.$/, '') || null;
  if (!env.INMO_SMTP_INBOUND_PORT) {
    if (rawDomain !== null) throw new Error('INMO_INBOUND_DOMAIN is set without INMO_SMTP_INBOUND_PORT: set both, or neither');
    return null;
  }
  const port = portFromEnv(env, 'INMO_SMTP_INBOUND_PORT', 0);
  if (rawDomain === null)
    throw new Error('INMO_SMTP_INBOUND_PORT needs INMO_INBOUND_DOMAIN: the domain of the addresses (its MX points here)');
  if (!/^(?=.{1,253}$)[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/.test(rawDomain))
    throw new Error(`INMO_INBOUND_DOMAIN must be a domain name (inbound.agencia.example), got ${JSON.stringify(env.INMO_INBOUND_DOMAIN)}`);
  const certFile = env.INMO_SMTP_INBOUND_TLS_CERT || null;
  const keyFile = env.INMO_SMTP_INBOUND_TLS_KEY || null;
  if ((certFile === null) !== (keyFile === null)) throw new Error('INMO_SMTP_INBOUND_TLS_CERT and INMO_SMTP_INBOUND_TLS_KEY go together');
  return {
    port,
    host: env.INMO_SMTP_INBOUND_HOST || null,
    domain: rawDomain,
    maxConnections: intFromEnv(env, 'INMO_SMTP_INBOUND_MAX_CONNECTIONS', DEFAULT_INBOUND_SMTP.maxConnections, 1),
    sessionMs: intFromEnv(env, 'INMO_SMTP_INBOUND_SESSION_MS', DEFAULT_INBOUND_SMTP.sessionMs, 1000),
    tls: certFile !== null && keyFile !== null ? { certFile, keyFile } : null,
  };
}

/** Where listings' photos are kept (CONTRACT §14): a folder, or an S3-compatible bucket. */
export interface MediaSettings {
  /** `INMO_MEDIA_DIR`: the folder, when no bucket is set. */
  dir: string;
  /** `INMO_MEDIA_S3_*`: the bucket, or null for the folder. */
  s3: {
    bucket: string;
    endpoint: string | null;
    region: string;
    /** `AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`, or null for the SDK's own chain (an instance role). */
    credentials: { accessKeyId: string; secretAccessKey: string } | null;
  } | null;
  /** `INMO_MEDIA_PUBLIC_URL`: the base photo URLs point at, or null for `/media/` on this server. */
  publicUrl: string | null;
}

/** The media settings of an environment (`process.env` unless another is given). @throws Error naming a bad variable. */
export function mediaSettings(env: NodeJS.ProcessEnv = process.env): MediaSettings {
  const bucket = env.INMO_MEDIA_S3_BUCKET || null;
  const endpoint = env.INMO_MEDIA_S3_ENDPOINT || null;
  if (endpoint !== null && !/^https?:\/\/[^\s/]+/.test(endpoint))
    throw new Error(`INMO_MEDIA_S3_ENDPOINT must be an http(s) URL, got ${JSON.stringify(endpoint)}`);
  const publicUrl = env.INMO_MEDIA_PUBLIC_URL ? env.INMO_MEDIA_PUBLIC_URL.replace(/\/+$/, '') : null;
  if (publicUrl !== null && !/^https?:\/\/[^\s/]+/.test(publicUrl))
    throw new Error(`INMO_MEDIA_PUBLIC_URL must be an http(s) URL, got ${JSON.stringify(publicUrl)}`);
  const id = env.AWS_ACCESS_KEY_ID;
  const secret = env.AWS_SECRET_ACCESS_KEY;
  return {
    dir: env.INMO_MEDIA_DIR || './data/media',
    s3:
      bucket === null
        ? null
        : {
            bucket,
            endpoint,
            region: env.INMO_MEDIA_S3_REGION || 'us-east-1',
            credentials: id && secret ? { accessKeyId: id, secretAccessKey: secret } : null,
          },
    publicUrl,
  };
}

/**
 * Where outgoing requests may go (CONTRACT §8, §13): the WhatsApp Graph API, the assistant's
 * model, webhook endpoints and every outgoing request to come. Built from the environment by
 * {@link outboundPolicy}; `inmo serve`, `inmo worker` and the CLI pass it down explicitly.
 */
export interface OutboundPolicy {
  /**
   * `INMO_ALLOW_PRIVATE_NETWORK=1` (or its older alias `INMO_WEBHOOKS_ALLOW_PRIVATE=1`): `http`,
   * loopback, private and link-local destinations are allowed (closed networks, tests' fakes).
   */
  allowPrivateNetwork: boolean;
  /** `INMO_CHANNEL_HOSTS`: host names (lower case) besides `graph.facebook.com` that a channel's base URL may name. */
  channelHosts: string[];
}

/**
 * The outbound policy of an environment (`process.env` unless another is given: a CLI call's
 * own, a test's).
 */
export function outboundPolicy(env: NodeJS.ProcessEnv = process.env): OutboundPolicy {
  return {
    allowPrivateNetwork: env.INMO_ALLOW_PRIVATE_NETWORK === '1' || env.INMO_WEBHOOKS_ALLOW_PRIVATE === '1',
    channelHosts: (env.INMO_CHANNEL_HOSTS ?? '')
      .split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
  };
}

/**
 * Server-wide e-mail out (CONTRACT §19): `INMO_SMTP_URL` (`smtp://user:pass@host:587`, or
 * `smtps://…:465`) and `INMO_SMTP_FROM`, used by every business that has not connected its own
 * server (`inmo email connect`); and the origin of the links e-mails carry (`INMO_PUBLIC_URL`).
 */
export interface EmailOutSettings {
  /**
   * The server-wide SMTP URL and From mailbox, or null when `INMO_SMTP_URL` is unset: `from` the
   * address alone (the envelope's sender), `fromName` the display name `INMO_SMTP_FROM` gave
   * (`Agencia Sol <hola@agencia.example>`), else null (the business's name is shown).
   */
  smtp: { url: string; from: string; fromName: string | null } | null;
  /** `INMO_PUBLIC_URL` without a trailing slash, else `http://127.0.0.1:8080`. */
  publicUrl: string;
}

/**
 * The e-mail out settings of an environment (`process.env` unless another is given).
 * @throws Error naming the variable: an `INMO_SMTP_URL` that is not `smtp://` or `smtps://`, or
 *   set without `INMO_SMTP_FROM`, or an `INMO_SMTP_FROM` that is not one address, bare or with a
 *   display name (the URL itself is never echoed: it holds a password).
 */
export function emailOutSettings(env: NodeJS.ProcessEnv = process.env): EmailOutSettings {
  const publicUrl = (publicUrlFromEnv(env.INMO_PUBLIC_URL) ?? 'http://127.0.0.1:8080').replace(/\/+$/, '');
  const url = env.INMO_SMTP_URL?.trim();
  if (!url) return { smtp: null, publicUrl };
  if (!/^smtps?:\/\/[^\s/]+/.test(url)) throw new Error('INMO_SMTP_URL must be an smtp:// or smtps:// URL');
  const from = env.INMO_SMTP_FROM?.trim();
  if (!from) throw new Error('INMO_SMTP_FROM must be set with INMO_SMTP_URL');
  const mailbox = parseMailbox(from);
  if (!mailbox) {
    throw new Error(
      `INMO_SMTP_FROM must be one e-mail address, alone (hola@agencia.example) or with a display name (Agencia Sol <hola@agencia.example>), got ${JSON.stringify(from)}`,
    );
  }
  return { smtp: { url, from: mailbox.address, fromName: mailbox.name }, publicUrl };
}

/** Where the key that seals secrets comes from (secrets.ts): a passphrase, else a key file. */
export interface SecretKeySource {
  /** `INMO_SECRET_KEY`, or null when unset or empty. */
  text: string | null;
  /** `INMO_SECRET_KEY_FILE`, else {@link defaultSecretKeyFile}. */
  file: string;
}

/** The default key file: `$XDG_CONFIG_HOME/inmo/secret.key`, else `~/.config/inmo/secret.key`. */
export function defaultSecretKeyFile(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'inmo', 'secret.key');
}

/** The secret key's source in an environment (`process.env` unless another is given). */
export function secretKeySource(env: NodeJS.ProcessEnv = process.env): SecretKeySource {
  return { text: env.INMO_SECRET_KEY || null, file: env.INMO_SECRET_KEY_FILE || defaultSecretKeyFile(env) };
}

/**
 * `INMO_FAILPOINT` (tests only, jobs/failpoints.ts): the place and hit at which a worker kills
 * itself, or null when unset or not of the form `name[:hit]`.
 */
export function failpointSetting(env: NodeJS.ProcessEnv = process.env): { name: string; hit: number } | null {
  const armed = /^([a-z:_-]+?)(?::(\d+))?$/.exec(env.INMO_FAILPOINT ?? '');
  return armed ? { name: armed[1], hit: Number(armed[2] ?? 1) } : null;
}

/** Default database location, relative to the working directory. */
/** The bounds of booking a viewing (CONTRACT §20, docs/security.md). */
export interface ViewingRules {
  /** A viewing starts at most this many days (of 24 h) after the booking. */
  horizonDays: number;
  /** Upcoming open viewings one lead may hold through a publishable key or a listing page. */
  leadMaxOpen: number;
  /** `requested` viewings per publishable key, and per listing page, in 24 hours; 0: no limit. */
  requestsPerDay: number;
}

export const DEFAULT_VIEWING_RULES: Readonly<ViewingRules> = Object.freeze({ horizonDays: 90, leadMaxOpen: 3, requestsPerDay: 50 });

export const DEFAULT_DATABASE_URL = 'sqlite:./data/inmo.db';

/** One environment variable inmo reads: its name, what it sets, and its default, in words. */
export interface Setting {
  name: string;
  meaning: string;
  default: string;
  /** The page of docs/ that says more, if any. */
  see?: string;
}

/** How long a received e-mail is read for by default, ms (services/leads/email-read-thread.ts). */
export const EMAIL_READ_TIMEOUT_MS = 10_000;

const ms = (n: number) => `${n.toLocaleString('en')} ms`;

/**
 * Every environment variable inmo reads, wherever it is read: docs/configuration.md is
 * generated from this list (`npm run docs`), and test/unit/docs.test.ts fails while a variable
 * named anywhere in src/ is missing here or the page differs from what this list writes.
 */
export const SETTINGS: readonly Setting[] = [
  {
    name: 'DATABASE_URL',
    meaning:
      '`sqlite:<path>`, or `postgres://user:pass@host:5432/db` with TLS as libpq spells it (`sslmode`, `sslrootcert`, `sslcert`, `sslkey`) and `schema=NAME` for a schema of its own',
    default: `\`${DEFAULT_DATABASE_URL}\``,
    see: 'operators.md',
  },
  { name: 'PORT', meaning: 'the TCP port `inmo serve` listens on unless `--port` says', default: '8080' },
  {
    name: 'HOST',
    meaning: 'the interface `inmo serve` listens on unless `--host` says (`0.0.0.0` for every interface)',
    default: '127.0.0.1',
  },
  {
    name: 'LOG_LEVEL',
    meaning:
      'pino level of the JSON logs on stdout; at `info`, one line per request (`method`, `route`, `status`, `ms`, `reqId`, `key_id`, and `error`, the catalogue code, on a 4xx/5xx), written asynchronously and drained when stopping; `warn` turns request lines off',
    default: '`info`',
  },
  {
    name: 'INMO_TRUST_PROXY',
    meaning: '`true` (any proxy), or the proxies (addresses or CIDRs, comma-separated) whose `X-Forwarded-For` gives the client address',
    default: 'off',
  },
  {
    name: 'INMO_SECRET_KEY',
    meaning: 'the key that seals channel tokens and webhook secrets at rest (16 characters or more; the same on every process)',
    default: 'the key file',
    see: 'operators.md',
  },
  {
    name: 'INMO_SECRET_KEY_FILE',
    meaning: 'where that key is kept when `INMO_SECRET_KEY` is unset (created with mode 0600 on first use)',
    default: '`$XDG_CONFIG_HOME/inmo/secret.key`, else `~/.config/inmo/secret.key`',
  },
  { name: 'XDG_CONFIG_HOME', meaning: 'the folder of the default key file', default: '`~/.config`' },
  {
    name: 'INMO_MEDIA_DIR',
    meaning: "the folder that keeps listings' photos (re-encoded, served under `/media/`) when no S3 bucket is set",
    default: '`./data/media`',
    see: 'operators.md',
  },
  {
    name: 'INMO_MEDIA_S3_BUCKET',
    meaning: "an S3-compatible bucket that keeps listings' photos instead of the folder, shared by every process",
    default: 'none: the folder',
    see: 'operators.md',
  },
  {
    name: 'INMO_MEDIA_S3_ENDPOINT',
    meaning: "the bucket's endpoint, for S3-compatible services other than AWS (path-style requests)",
    default: "AWS's",
  },
  { name: 'INMO_MEDIA_S3_REGION', meaning: "the bucket's region", default: '`us-east-1`' },
  {
    name: 'INMO_MEDIA_PUBLIC_URL',
    meaning: 'the public base URL of the bucket (or a CDN in front of it): photo URLs point there instead of at `/media/` on this server',
    default: 'none: `/media/` on this server',
  },
  { name: 'AWS_ACCESS_KEY_ID', meaning: "the bucket's access key id (with `AWS_SECRET_ACCESS_KEY`)", default: "the AWS SDK's own chain" },
  { name: 'AWS_SECRET_ACCESS_KEY', meaning: "the bucket's secret access key", default: "the AWS SDK's own chain" },
  {
    name: 'INMO_PUBLIC_URL',
    meaning:
      "this server's public base URL: the webhook callback URL that `inmo channel connect` prints; when `https:`, the console's cookies carry the `__Host-` prefix",
    default: '`http://127.0.0.1:8080`',
    see: 'whatsapp.md',
  },
  {
    name: 'INMO_ALLOW_PRIVATE_NETWORK',
    meaning:
      "`1` lets every outgoing request (the WhatsApp Graph API, the assistant's model, webhooks) use `http` and reach loopback, private or link-local addresses: closed networks and tests",
    default: 'off',
  },
  {
    name: 'INMO_CHANNEL_HOSTS',
    meaning:
      "host names (comma-separated) besides Meta's `graph.facebook.com` that a WhatsApp channel's base URL may name: the access token is sent to it",
    default: 'none',
    see: 'whatsapp.md',
  },
  {
    name: 'INMO_SMTP_URL',
    meaning:
      "the SMTP server every business's e-mails go through unless it connected its own (`inmo email connect`): `smtp://user:pass@host:587` (STARTTLS) or `smtps://user:pass@host:465` (TLS); certificates verified unless `INMO_ALLOW_PRIVATE_NETWORK=1`",
    default: "none: no e-mail out without a business's own server",
    see: 'operators.md',
  },
  {
    name: 'INMO_SMTP_FROM',
    meaning:
      'the From address of e-mails sent through `INMO_SMTP_URL` (required with it): `hola@agencia.example`, or with a display name `Agencia Sol <hola@agencia.example>` (else the business’s name is shown); checked at start',
    default: 'none',
  },
  { name: 'INMO_WEBHOOKS_ALLOW_PRIVATE', meaning: 'the older name of `INMO_ALLOW_PRIVATE_NETWORK`, still honoured', default: 'off' },
  {
    name: 'INMO_RATE_LIMIT_PER_KEY',
    meaning: 'requests per minute per API key (0 = off)',
    default: String(DEFAULT_RATE_LIMITS.perKeyPerMinute),
  },
  {
    name: 'INMO_RATE_LIMIT_POST_PER_IP',
    meaning: '`POST /leads/…` per minute per client address (0 = off)',
    default: String(DEFAULT_RATE_LIMITS.postPerIpPerMinute),
  },
  {
    name: 'INMO_RATE_LIMIT_PUBLISHABLE_POST_PER_IP',
    meaning:
      '`POST /leads/…` with a publishable key (a web page’s form) per minute per client address, counted apart and tighter (0 = off)',
    default: String(DEFAULT_RATE_LIMITS.publishablePostPerIpPerMinute),
  },
  ...LIMIT_SETTINGS,
  { name: 'INMO_COUNT_CACHE_SIZE', meaning: 'entries of the per-process cache of `total` counts (0 = off)', default: '2000' },
  {
    name: 'INMO_PAGE_CACHE_MB',
    meaning:
      'MiB of each per-process cache of read pages: catalogue pages, GET /leads pages (SQLite), and the same again for the fast path of repeated reads (0 = all off)',
    default: '32',
  },
  {
    name: 'INMO_PG_POOL_SIZE',
    meaning: 'PostgreSQL connections per process',
    default: String(DEFAULT_POOL_SETTINGS.poolSize),
    see: 'operators.md',
  },
  {
    name: 'INMO_PG_STATEMENT_TIMEOUT_MS',
    meaning: 'PostgreSQL cancels a statement that runs longer (0 = no limit)',
    default: ms(DEFAULT_POOL_SETTINGS.statementTimeoutMs),
  },
  { name: 'INMO_WORKER_CONCURRENCY', meaning: 'jobs a worker runs at once', default: String(DEFAULT_WORKER_SETTINGS.concurrency) },
  {
    name: 'INMO_WORKER_POLL_MS',
    meaning: 'idle wait between looks at the jobs table (a lead taken by the same process wakes it at once)',
    default: ms(DEFAULT_WORKER_SETTINGS.pollMs),
  },
  {
    name: 'INMO_JOB_LEASE_MS',
    meaning: "how long a claimed job stays its worker's; a dead worker's jobs are taken back after it (longer than `INMO_SEND_TIMEOUT_MS`)",
    default: ms(DEFAULT_WORKER_SETTINGS.leaseMs),
  },
  {
    name: 'INMO_JOB_MAX_ATTEMPTS',
    meaning: 'runs of a job before it is parked as failed',
    default: String(DEFAULT_WORKER_SETTINGS.maxAttempts),
  },
  {
    name: 'INMO_JOB_BACKOFF_MS',
    meaning: 'first retry delay, doubled at each retry (with jitter)',
    default: ms(DEFAULT_WORKER_SETTINGS.backoffMs),
  },
  { name: 'INMO_JOB_MAX_BACKOFF_MS', meaning: 'the longest retry delay', default: ms(DEFAULT_WORKER_SETTINGS.maxBackoffMs) },
  {
    name: 'INMO_MATCH_LIMIT',
    meaning: 'matches, and near misses, stored per search entry',
    default: String(DEFAULT_WORKER_SETTINGS.matchLimit),
  },
  {
    name: 'INMO_SEND_TIMEOUT_MS',
    meaning: "wait for the provider's answer before the outcome of a send counts as unknown",
    default: ms(DEFAULT_WORKER_SETTINGS.sendTimeoutMs),
  },
  {
    name: 'INMO_EMAIL_READ_TIMEOUT_MS',
    meaning: 'the longest a received e-mail is read for, on its own thread; one not read by then waits as not understood',
    default: ms(EMAIL_READ_TIMEOUT_MS),
    see: 'security.md',
  },
  {
    name: 'INMO_FEED_MAX_BYTES',
    meaning: 'the largest feed document a scheduled pull reads, bytes once decompressed; a larger one is refused',
    default: `${DEFAULT_WORKER_SETTINGS.feedMaxBytes.toLocaleString('en')} (200 MiB)`,
  },
  {
    name: 'INMO_EMAIL_PULL_TIMEOUT_MS',
    meaning:
      'the deadline of one run of a mailbox pull over IMAP (`inmo email pull`): then its connection is closed and the run ends, what was stored staying; at most half of `INMO_JOB_LEASE_MS` in the worker',
    default: ms(DEFAULT_WORKER_SETTINGS.emailPullTimeoutMs),
    see: 'security.md',
  },
  {
    name: 'INMO_SMTP_INBOUND_PORT',
    meaning:
      "a port on which `inmo serve` also receives e-mail by SMTP for `INMO_INBOUND_DOMAIN` (25 behind that domain's MX record): each business's address `<token>@` that domain, shown on the console's e-mail page; mail to any other address is refused (no relay)",
    default: 'none: no SMTP listener',
    see: 'operators.md',
  },
  {
    name: 'INMO_INBOUND_DOMAIN',
    meaning: 'the domain of the inbound addresses (required with `INMO_SMTP_INBOUND_PORT`); its MX record points at this server',
    default: 'none',
  },
  {
    name: 'INMO_SMTP_INBOUND_HOST',
    meaning: 'the interface the SMTP listener listens on (`0.0.0.0` for every interface)',
    default: "`inmo serve`'s (`--host`, else `HOST`)",
  },
  {
    name: 'INMO_SMTP_INBOUND_MAX_CONNECTIONS',
    meaning: 'SMTP connections open at once; more are answered `421` and closed',
    default: String(DEFAULT_INBOUND_SMTP.maxConnections),
  },
  {
    name: 'INMO_SMTP_INBOUND_SESSION_MS',
    meaning: 'the longest one SMTP connection stays open, whatever it sends; then it is closed (a message not yet accepted is not kept)',
    default: ms(DEFAULT_INBOUND_SMTP.sessionMs),
  },
  {
    name: 'INMO_SMTP_INBOUND_TLS_CERT',
    meaning:
      'a PEM certificate (chain) the SMTP listener offers by STARTTLS, with `INMO_SMTP_INBOUND_TLS_KEY` (its private key, PEM); read at start',
    default: 'none: no STARTTLS',
  },
  { name: 'INMO_SMTP_INBOUND_TLS_KEY', meaning: 'the private key (PEM) of `INMO_SMTP_INBOUND_TLS_CERT`', default: 'none' },
  {
    name: 'INMO_PULL_WITHDRAW_MAX_SHARE',
    meaning:
      "the share of a pulled source's listings (0 to 1) a pull may withdraw by itself; a pull that would withdraw more is held on the console's catalogue page until an owner confirms it (`inmo feeds pull confirm`)",
    default: String(DEFAULT_WORKER_SETTINGS.pullWithdrawMaxShare),
    see: 'operators.md',
  },
  {
    name: 'INMO_LEAD_RETENTION_DAYS',
    meaning:
      'erase leads that are `new`, `closed` or `inactive` and have had no change and no message for this many days (CONTRACT §18); the worker looks once a day and audits each erasure',
    default: 'unset: leads are kept',
    see: 'operators.md',
  },
  {
    name: 'INMO_ALERT_HOUR',
    meaning:
      "the hour (0 to 23, in the business's time zone, Europe/Madrid by default) at which each searching lead that takes alerts is sent one digest of the listings that newly match it (CONTRACT §21); `inmo alerts run` sends the next one at once",
    default: String(DEFAULT_WORKER_SETTINGS.alertHour),
    see: 'operators.md',
  },
  {
    name: 'INMO_OWNER_REPORT_DAYS',
    meaning:
      "the days between the reports sent to each owner with a signed mandate, unless the owner's lead page chose 7, 14 or 30 (CONTRACT §24); `inmo owners report run` sends the due ones at once",
    default: String(DEFAULT_WORKER_SETTINGS.ownerReportDays),
    see: 'operators.md',
  },
  {
    name: 'INMO_VIEWING_REMINDER_HOURS',
    meaning:
      'how many hours before a scheduled or confirmed viewing its lead is reminded of it, by WhatsApp or e-mail (CONTRACT §20); `0` sends no reminders',
    default: String(DEFAULT_WORKER_SETTINGS.viewingReminderHours),
    see: 'whatsapp.md',
  },
  {
    name: 'INMO_VIEWING_HORIZON_DAYS',
    meaning:
      'how far ahead a viewing may start, days (CONTRACT §20): later starts are refused everywhere and the free slots offered stop there',
    default: String(DEFAULT_VIEWING_RULES.horizonDays),
    see: 'security.md',
  },
  {
    name: 'INMO_VIEWING_LEAD_MAX_OPEN',
    meaning:
      'upcoming viewings (requested, scheduled or confirmed) one lead may hold through a publishable key or a listing page, at most one per listing; beyond, the request is kept as an interaction only',
    default: String(DEFAULT_VIEWING_RULES.leadMaxOpen),
    see: 'security.md',
  },
  {
    name: 'INMO_VIEWING_REQUESTS_PER_DAY',
    meaning: '`requested` viewings per publishable key, and per listing page, in 24 hours; beyond, 429 (0 = no limit)',
    default: String(DEFAULT_VIEWING_RULES.requestsPerDay),
    see: 'security.md',
  },
  { name: 'INMO_METRICS', meaning: '`off` turns `GET /metrics` and its counting off', default: '`on`', see: 'operators.md' },
  {
    name: 'INMO_METRICS_PORT',
    meaning: "serve `GET /metrics` on this port instead of the API's (`inmo worker` too)",
    default: "the API's port",
  },
  { name: 'INMO_METRICS_HOST', meaning: 'the interface of `INMO_METRICS_PORT`', default: '127.0.0.1' },
  {
    name: 'INMO_METRICS_TOKEN',
    meaning:
      "on the API's port, `GET /metrics` answers loopback clients only, and any client sending `Authorization: Bearer <this token>` (16 characters or more)",
    default: 'loopback only',
  },
  {
    name: 'NODE_ENV',
    meaning: "`development` reads the console's templates again on every page (while editing them)",
    default: 'production behaviour',
  },
  {
    name: 'INMO_FAILPOINT',
    meaning: 'tests only: `name[:hit]` kills the process with SIGKILL at that place of a job (src/jobs/failpoints.ts)',
    default: 'off',
  },
];

function intFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) {
    throw new Error(`${name} must be an integer >= ${min}, got ${JSON.stringify(raw)}`);
  }
  return value;
}

/** A share from 0 to 1 (`0.5`), or `fallback` when unset. @throws Error naming the variable otherwise. */
function shareFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!/^\s*[\d.]+\s*$/.test(raw) || !Number.isFinite(value) || value < 0 || value > 1) {
    throw new Error(`${name} must be a number from 0 to 1 (0.5 is half), got ${JSON.stringify(raw)}`);
  }
  return value;
}

/**
 * `INMO_OWNER_REPORT_DAYS`: the days between an owner's reports unless the owner chose (CONTRACT §24), at least 1, default 7.
 * @throws Error naming the variable otherwise.
 */
export function ownerReportDaysFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  return intFromEnv(env, 'INMO_OWNER_REPORT_DAYS', DEFAULT_WORKER_SETTINGS.ownerReportDays, 1);
}

/**
 * `INMO_ALERT_HOUR`: the hour of the day's alert digests, 0–23 (business time), default 10.
 * @throws Error naming the variable otherwise.
 */
export function alertHourFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const hour = intFromEnv(env, 'INMO_ALERT_HOUR', DEFAULT_WORKER_SETTINGS.alertHour, 0);
  if (hour > 23) throw new Error(`INMO_ALERT_HOUR must be an hour from 0 to 23, got ${JSON.stringify(env.INMO_ALERT_HOUR)}`);
  return hour;
}

/**
 * `INMO_VIEWING_HORIZON_DAYS` (1 to 3650, default 90), `INMO_VIEWING_LEAD_MAX_OPEN` (at least 1,
 * default 3) and `INMO_VIEWING_REQUESTS_PER_DAY` (0 = no limit, default 50). Read at each booking,
 * so a process always follows its environment; {@link loadConfig} reads it at start to refuse a bad value.
 * @throws Error naming the variable.
 */
export function viewingRulesFromEnv(env: NodeJS.ProcessEnv = process.env): ViewingRules {
  const horizonDays = intFromEnv(env, 'INMO_VIEWING_HORIZON_DAYS', DEFAULT_VIEWING_RULES.horizonDays, 1);
  if (horizonDays > 3650) {
    throw new Error(
      `INMO_VIEWING_HORIZON_DAYS must be a number of days from 1 to 3650, got ${JSON.stringify(env.INMO_VIEWING_HORIZON_DAYS)}`,
    );
  }
  return {
    horizonDays,
    leadMaxOpen: intFromEnv(env, 'INMO_VIEWING_LEAD_MAX_OPEN', DEFAULT_VIEWING_RULES.leadMaxOpen, 1),
    requestsPerDay: intFromEnv(env, 'INMO_VIEWING_REQUESTS_PER_DAY', DEFAULT_VIEWING_RULES.requestsPerDay, 0),
  };
}

/**
 * `INMO_VIEWING_REMINDER_HOURS`: hours before a viewing its reminder goes, 0 (none) to 720, default 24.
 * @throws Error naming the variable otherwise.
 */
export function viewingReminderHoursFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const hours = intFromEnv(env, 'INMO_VIEWING_REMINDER_HOURS', DEFAULT_WORKER_SETTINGS.viewingReminderHours, 0);
  if (hours > 720) {
    throw new Error(
      `INMO_VIEWING_REMINDER_HOURS must be a number of hours from 0 to 720, got ${JSON.stringify(env.INMO_VIEWING_REMINDER_HOURS)}`,
    );
  }
  return hours;
}

/**
 * `INMO_EMAIL_READ_TIMEOUT_MS`: the deadline of reading one received e-mail, ms (at least 1).
 * @throws Error naming the variable when it is not an integer >= 1.
 */
export function emailReadTimeoutFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  return intFromEnv(env, 'INMO_EMAIL_READ_TIMEOUT_MS', EMAIL_READ_TIMEOUT_MS, 1);
}

function trustProxyFromEnv(raw: string | undefined): boolean | string[] {
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  return raw
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
}

/**
 * Builds the configuration from the environment.
 * @throws Error naming the variable when a value is invalid.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const databaseUrl = env.DATABASE_URL || DEFAULT_DATABASE_URL;
  if (!databaseUrl.startsWith('sqlite:') && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new Error(`DATABASE_URL must start with sqlite: or postgres://, got ${JSON.stringify(databaseUrl)}`);
  }
  const worker = {
    concurrency: intFromEnv(env, 'INMO_WORKER_CONCURRENCY', DEFAULT_WORKER_SETTINGS.concurrency, 1),
    pollMs: intFromEnv(env, 'INMO_WORKER_POLL_MS', DEFAULT_WORKER_SETTINGS.pollMs, 10),
    leaseMs: intFromEnv(env, 'INMO_JOB_LEASE_MS', DEFAULT_WORKER_SETTINGS.leaseMs, 100),
    maxAttempts: intFromEnv(env, 'INMO_JOB_MAX_ATTEMPTS', DEFAULT_WORKER_SETTINGS.maxAttempts, 1),
    backoffMs: intFromEnv(env, 'INMO_JOB_BACKOFF_MS', DEFAULT_WORKER_SETTINGS.backoffMs, 0),
    maxBackoffMs: intFromEnv(env, 'INMO_JOB_MAX_BACKOFF_MS', DEFAULT_WORKER_SETTINGS.maxBackoffMs, 0),
    matchLimit: intFromEnv(env, 'INMO_MATCH_LIMIT', DEFAULT_WORKER_SETTINGS.matchLimit, 0),
    sendTimeoutMs: intFromEnv(env, 'INMO_SEND_TIMEOUT_MS', DEFAULT_WORKER_SETTINGS.sendTimeoutMs, 100),
    feedMaxBytes: intFromEnv(env, 'INMO_FEED_MAX_BYTES', DEFAULT_WORKER_SETTINGS.feedMaxBytes, 1),
    emailPullTimeoutMs: intFromEnv(env, 'INMO_EMAIL_PULL_TIMEOUT_MS', DEFAULT_WORKER_SETTINGS.emailPullTimeoutMs, 100),
    pullWithdrawMaxShare: shareFromEnv(env, 'INMO_PULL_WITHDRAW_MAX_SHARE', DEFAULT_WORKER_SETTINGS.pullWithdrawMaxShare),
    leadRetentionDays: env.INMO_LEAD_RETENTION_DAYS ? intFromEnv(env, 'INMO_LEAD_RETENTION_DAYS', 0, 1) : null,
    alertHour: alertHourFromEnv(env),
    viewingReminderHours: viewingReminderHoursFromEnv(env),
    ownerReportDays: ownerReportDaysFromEnv(env),
  };
  viewingRulesFromEnv(env);
  emailOutSettings(env);
  // A lease that ran out while the provider was still answering would let another worker
  // take the job back mid-send (it would then find the message `sending`, never send again).
  if (worker.leaseMs <= worker.sendTimeoutMs) {
    throw new Error(`INMO_JOB_LEASE_MS (${worker.leaseMs}) must be longer than INMO_SEND_TIMEOUT_MS (${worker.sendTimeoutMs})`);
  }
  return {
    databaseUrl,
    logLevel: env.LOG_LEVEL || 'info',
    countCacheSize: intFromEnv(env, 'INMO_COUNT_CACHE_SIZE', 2000, 0),
    pageCacheMb: intFromEnv(env, 'INMO_PAGE_CACHE_MB', 32, 0),
    trustProxy: trustProxyFromEnv(env.INMO_TRUST_PROXY),
    rateLimits: {
      perKeyPerMinute: intFromEnv(env, 'INMO_RATE_LIMIT_PER_KEY', DEFAULT_RATE_LIMITS.perKeyPerMinute, 0),
      postPerIpPerMinute: intFromEnv(env, 'INMO_RATE_LIMIT_POST_PER_IP', DEFAULT_RATE_LIMITS.postPerIpPerMinute, 0),
      publishablePostPerIpPerMinute: intFromEnv(
        env,
        'INMO_RATE_LIMIT_PUBLISHABLE_POST_PER_IP',
        DEFAULT_RATE_LIMITS.publishablePostPerIpPerMinute,
        0,
      ),
    },
    pool: {
      poolSize: intFromEnv(env, 'INMO_PG_POOL_SIZE', DEFAULT_POOL_SETTINGS.poolSize, 1),
      statementTimeoutMs: intFromEnv(env, 'INMO_PG_STATEMENT_TIMEOUT_MS', DEFAULT_POOL_SETTINGS.statementTimeoutMs, 0),
    },
    worker,
    metrics: metricsFromEnv(env),
    limits: loadLimits(env),
    listen: { port: portFromEnv(env, 'PORT', 8080), host: env.HOST || '127.0.0.1' },
    publicUrl: publicUrlFromEnv(env.INMO_PUBLIC_URL),
    outbound: outboundPolicy(env),
    development: env.NODE_ENV === 'development',
    media: mediaSettings(env),
    inboundSmtp: inboundSmtpSettings(env),
  };
}

/** `INMO_PUBLIC_URL`: an http(s) URL, or null when unset. @throws Error naming the variable for anything else. */
function publicUrlFromEnv(raw: string | undefined): string | null {
  if (raw === undefined || raw === '') return null;
  if (!/^https?:\/\/[^\s/]+/.test(raw)) throw new Error(`INMO_PUBLIC_URL must be an http(s) URL, got ${JSON.stringify(raw)}`);
  return raw;
}

/** A TCP port (0 to 65535) from `name`, or `fallback` when unset. @throws Error naming the variable. */
function portFromEnv(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const port = intFromEnv(env, name, fallback, 0);
  if (port > 65535) throw new Error(`${name} must be a port number, got ${JSON.stringify(env[name])}`);
  return port;
}

function metricsFromEnv(env: NodeJS.ProcessEnv): Config['metrics'] {
  const onOff = env.INMO_METRICS || 'on';
  if (onOff !== 'on' && onOff !== 'off') throw new Error(`INMO_METRICS must be on or off, got ${JSON.stringify(onOff)}`);
  const port = env.INMO_METRICS_PORT ? portFromEnv(env, 'INMO_METRICS_PORT', 0) : null;
  const token = env.INMO_METRICS_TOKEN || null;
  if (token !== null && token.length < 16) throw new Error('INMO_METRICS_TOKEN must be at least 16 characters long');
  return { enabled: onOff === 'on', port, host: env.INMO_METRICS_HOST || '127.0.0.1', token };
}
