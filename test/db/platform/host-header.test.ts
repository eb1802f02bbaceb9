/**
 * The links inmo writes never carry the request's `Host` (issue 41, http/origin.ts): with
 * `INMO_PUBLIC_URL` unset, a console user whose requests say `Host: evil.example` still gets
 * photo URLs, a set-password link and a feed URL of this server (the WhatsApp callback URL is
 * written by the same function); with it
 * set, that URL. On this process's engine.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freshDatabaseUrl } from '../../helpers/db.ts';
import { startServe } from '../../helpers/processes.ts';
import { FolderMediaStore } from '../../../src/media/store.ts';
import { Browser, userWithPassword } from '../../helpers/console.ts';
import { importRecords, listing, propertyId } from '../../helpers/db.ts';
import { get, withApp } from '../../helpers/http.ts';
import { phonePhoto } from '../../helpers/images.ts';

const HOST = { host: 'evil.example:6666', 'x-forwarded-host': 'evil.example' };

describe.each([
  ['unset', null, /^http:\/\/localhost(:80)?\//],
  ['set', 'https://inmo.agency.example', /^https:\/\/inmo\.agency\.example\//],
])('links written with INMO_PUBLIC_URL %s', (_name, publicUrl, expected) => {
  let id = 0;
  const t = withApp({
    app: { publicUrl, media: { store: new FolderMediaStore(mkdtempSync(join(tmpdir(), 'inmo-media-'))), publicUrl: null } },
    seed: async ({ db, businessId }) => {
      await userWithPassword(db, businessId, 'owner@uno.example', 'owner');
      await importRecords(db, businessId, [listing('FOTO-1')]);
      id = await propertyId(db, 'FOTO-1');
    },
  });

  const owner = async () => {
    const browser = new Browser(t.app, HOST);
    expect((await browser.login('owner@uno.example')).statusCode).toBe(303);
    return browser;
  };

  it('are of this server, whatever Host the request says', async () => {
    const browser = await owner();
    const uploaded = await browser.upload(
      `/console/properties/${id}/images`,
      { _csrf: await browser.token(`/console/properties/${id}`) },
      { field: 'image', name: 'salon.jpg', content: await phonePhoto(800, 600), type: 'image/jpeg' },
    );
    expect(uploaded.statusCode).toBe(303);
    const [image] = (await get(t.app, `/properties/${id}`, t.key)).body.data.images as Array<{ url: string }>;
    expect(image.url).toMatch(expected);

    const user = await browser.submit('/console/users', '/console/users', { email: 'nuevo@uno.example', role: 'agent' });
    expect(user.statusCode).toBe(201);
    const feed = await browser.submit('/console/catalogue', '/console/catalogue/feeds', {});
    expect(feed.statusCode).toBe(201);
    for (const page of [user.body, feed.body]) {
      expect(page).not.toContain('evil.example');
      const links = [...page.matchAll(/(?:value="|<code>)(https?:\/\/[^"<]+)/g)]
        .map((m) => m[1])
        .filter((link) => /\/(feeds|console)\//.test(link));
      expect(links).toHaveLength(1);
      for (const link of links) expect(link).toMatch(expected);
    }
  });
});

it('inmo serve warns when it listens beyond this machine without INMO_PUBLIC_URL, and not on loopback', async () => {
  const env = { ...process.env, DATABASE_URL: await freshDatabaseUrl(), LOG_LEVEL: 'warn', INMO_PUBLIC_URL: '' };
  const outputOf = async (...args: string[]) => {
    const served = await startServe(env, '--no-worker', ...args);
    // Its streams are read to their end: 'exit' may come before the last lines are read.
    const closed = new Promise((resolve) => served.child.once('close', resolve));
    await served.stop();
    await closed;
    return served.output();
  };
  expect(await outputOf('--host', '0.0.0.0')).toContain('INMO_PUBLIC_URL is not set');
  expect(await outputOf('--host', '127.0.0.1')).not.toContain('INMO_PUBLIC_URL is not set');
});
