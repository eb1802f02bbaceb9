/**
 * A browser of the console over HTTP (app.inject): it keeps its cookies, submits forms with the
 * CSRF token of the page they are on, logs in, and uploads files as the catalogue page does.
 */
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { createHash, randomBytes, scryptSync } from 'node:crypto';
import type { Db } from '../../src/db/database.ts';
import { setPasswordHash, spendToken } from '../../src/db/repositories/users.ts';
import { createUser } from '../../src/services/access/console-users.ts';
import { toRfc3339 } from '../../src/domain/time.ts';

/** The password of every console user the tests make. */
export const PASSWORD = 'tejado-azul-sobre-Zaragoza';

let browsers = 0;

/** A file of a multipart form: its field, name, bytes and type (`application/x-ndjson` unless said). */
export interface UploadFile {
  name: string;
  field: string;
  content: string | Buffer;
  type?: string;
}

/** A browser of one: its cookies, kept between requests. */
export class Browser {
  private readonly cookies = new Map<string, string>();
  constructor(
    private readonly app: FastifyInstance,
    private readonly headers: Record<string, string> = {},
    /** The client's address (the login limits count per IP): by default, one of its own. */
    private readonly remoteAddress = `10.0.${Math.floor(++browsers / 250)}.${browsers % 250}`,
  ) {}

  async request(method: 'GET' | 'POST', url: string, form?: Record<string, string | string[]>) {
    const body = form && new URLSearchParams(Object.entries(form).flatMap(([k, v]) => [v].flat().map((x) => [k, x]))).toString();
    const response = await this.app.inject({
      method,
      url,
      headers: {
        ...this.headers,
        cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        ...(body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      payload: body,
      remoteAddress: this.remoteAddress,
    });
    for (const c of response.cookies as Array<{ name: string; value: string; maxAge?: number; expires?: Date }>) {
      if (c.value === '' || (c.expires && c.expires.getTime() <= Date.now())) this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    return response;
  }

  get(url: string) {
    return this.request('GET', url);
  }

  /**
   * POSTs a multipart form: its CSRF token (`fields._csrf`) in the URL, as the page's form does;
   * the other fields, then the files (bytes as they are).
   */
  async upload(url: string, fields: Record<string, string>, files: UploadFile | UploadFile[]) {
    const boundary = '----inmo-test-boundary';
    const { _csrf, ...rest } = fields;
    if (_csrf !== undefined) url = `${url}?_csrf=${encodeURIComponent(_csrf)}`;
    const parts: Buffer[] = Object.entries(rest).map(([k, v]) =>
      Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`),
    );
    for (const file of [files].flat()) {
      parts.push(
        Buffer.from(
          `--${boundary}\r\ncontent-disposition: form-data; name="${file.field}"; filename="${file.name}"\r\ncontent-type: ${file.type ?? 'application/x-ndjson'}\r\n\r\n`,
        ),
        Buffer.from(file.content),
        Buffer.from('\r\n'),
      );
    }
    parts.push(Buffer.from(`--${boundary}--\r\n`));
    const response = await this.app.inject({
      method: 'POST',
      url,
      headers: {
        ...this.headers,
        cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        'content-type': `multipart/form-data; boundary=${boundary}`,
      },
      payload: Buffer.concat(parts),
      remoteAddress: this.remoteAddress,
    });
    return response;
  }

  /** The CSRF token of the page's first form. */
  async token(url: string): Promise<string> {
    const page = await this.get(url);
    const match = /name="_csrf" value="([^"]+)"/.exec(page.body);
    if (!match) throw new Error(`no CSRF token on ${url} (${page.statusCode})`);
    return match[1];
  }

  /** Submits a form of the page at `pageUrl` to `action`, with the page's CSRF token. */
  async submit(pageUrl: string, action: string, form: Record<string, string | string[]>) {
    return this.request('POST', action, { _csrf: await this.token(pageUrl), ...form });
  }

  async login(email: string, password = PASSWORD) {
    return this.submit('/console/login', '/console/login', { email, password });
  }

  cookie(name: string) {
    return this.cookies.get(name);
  }

  /** The same browser (its cookies, its address) talking to another app on the same database. */
  on(app: FastifyInstance): Browser {
    const other = new Browser(app, this.headers, this.remoteAddress);
    for (const [name, value] of this.cookies) other.cookies.set(name, value);
    return other;
  }

  /** Sets a cookie as another site, or an attacker who copied one, could. */
  setCookie(name: string, value: string) {
    this.cookies.set(name, value);
  }
}

/**
 * {@link PASSWORD}, stored as src/domain/access/passwords.ts stores a hash (`scrypt$N$r$p$salt$key`)
 * but at N = 2^10 instead of 2^15: a stored hash carries its own cost, so a login checks it in
 * about 1 ms instead of 75 (160 on a loaded machine), and the suite's few thousand logins stop
 * costing minutes of CPU. The production cost is what `setPasswordWithLink` writes, tested where
 * passwords are set (test/db/access/console-users.test.ts, test/db/access/auth.test.ts).
 */
const TEST_PASSWORD_HASH = (() => {
  const [N, r, p] = [2 ** 10, 8, 1];
  const salt = randomBytes(16);
  const key = scryptSync(PASSWORD.normalize('NFC'), salt, 32, { N, r, p });
  return ['scrypt', N, r, p, salt.toString('base64'), key.toString('base64')].join('$');
})();

/** A console user with {@link PASSWORD} set, their one-time link spent, as setting it through the link leaves them. */
export async function userWithPassword(db: Db, businessId: number, email: string, role: 'owner' | 'agent') {
  const user = await createUser(db, { businessId, email, role });
  const at = toRfc3339(new Date());
  const linkHash = createHash('sha256').update(user.set_password_url.split('/').pop()!).digest('hex');
  expect(await spendToken(db, linkHash, at)).toBe(true);
  await setPasswordHash(db, user.id, TEST_PASSWORD_HASH, at);
  return user;
}

/** A browser logged in to `app`'s console as `email` (with {@link PASSWORD}). */
export async function loggedIn(app: FastifyInstance, email: string): Promise<Browser> {
  const browser = new Browser(app);
  await browser.login(email);
  return browser;
}
