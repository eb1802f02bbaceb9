/**
 * A contact form on the agency's own site posts an inquiry straight to inmo with a
 * publishable key (CONTRACT §13), in Debian's Chromium driven by playwright-core: the form is
 * served from one local origin (`http://localhost:P`), inmo from another (`http://127.0.0.1:Q`).
 * The same page cannot do it with a secret key, nor with a publishable key of another origin,
 * and neither attempt stores anything.
 *
 * Skipped, saying so, where /usr/bin/chromium is missing, except under `INMO_REQUIRE_BROWSER=1`
 * (`.ci/run`). No browser is ever downloaded.
 */
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/services/access/api-keys.ts';
import { withApp } from '../helpers/http.ts';
import { CHROMIUM, chromiumHere, startSite, type Site } from '../helpers/browser.ts';

const here = chromiumHere('publishable-key browser test');

/** The agency's page: a form whose script posts the inquiry with the key, as the README shows. */
const page = (api: string, key: string) => `<!doctype html>
<html lang="es"><head><meta charset="utf-8"><title>Contacto</title></head><body>
<form id="contact">
  <label>Nombre <input name="name" value="Irene Web"></label>
  <label>Teléfono <input name="phone" value="+34 611 60 00 01"></label>
  <button>Enviar</button>
</form>
<output id="result"></output>
<script>
  const form = document.getElementById('contact');
  const submission = crypto.randomUUID(); // one Idempotency-Key per submission: retries are safe
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const send = () => fetch(${JSON.stringify(`${api}/leads/inquiries`)}, {
      method: 'POST',
      headers: { 'X-Api-Key': ${JSON.stringify(key)}, 'Content-Type': 'application/json', 'Idempotency-Key': submission },
      body: JSON.stringify({ name: data.get('name'), type: 'buyer', phone_number_1: data.get('phone') }),
    });
    const first = await send();
    const again = await send(); // a retry after a timeout, say
    const body = await again.json();
    document.getElementById('result').textContent = JSON.stringify({
      status: first.status, lead_id: body.lead_id, outcome: first.headers.get('Inmo-Lead-Outcome'), replayed: again.headers.get('Idempotent-Replayed'),
    });
  });
</script></body></html>`;

describe.skipIf(!here)('a browser form with a publishable key', () => {
  const t = withApp({ listen: true });
  let browser: Browser;
  let site: Site;
  let siteOrigin: string;

  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    site = await startSite();
    siteOrigin = site.origin;
  });
  afterAll(async () => {
    await browser?.close();
    await site?.close();
  });

  const leadCount = async () => (await t.db.selectFrom('leads').select('id').execute()).length;

  it('posts an inquiry cross-origin, retries it safely, and cannot with a secret key or from another origin', async () => {
    expect(new URL(t.base).origin).not.toBe(siteOrigin);
    const { key } = await createApiKey(t.db, { businessId: t.businessId, scopes: ['leads:ingest'], origins: [siteOrigin] });
    site.serve(page(t.base, key));
    const context = await browser.newContext();
    const tab = await context.newPage();
    await tab.goto(`${siteOrigin}/contacto`);
    await tab.click('button');
    await tab.waitForFunction(() => document.getElementById('result')!.textContent !== '');
    const result = JSON.parse((await tab.textContent('#result'))!);
    // A publishable key is told neither the lead's id nor whether it was new (CONTRACT §13).
    expect(result).toEqual({ status: 200, outcome: null, replayed: 'true' });
    expect(await leadCount()).toBe(1);

    // The same page's script with the secret key, or with a key of another origin: blocked, nothing stored.
    const other = await createApiKey(t.db, { businessId: t.businessId, scopes: ['leads:ingest'], origins: ['https://otra.example'] });
    for (const [name, attempt] of [
      ['secret', t.key],
      ['another origin', other.key],
    ]) {
      const outcome = await tab.evaluate(
        async ({ url, key: used }) => {
          try {
            const response = await fetch(url, {
              method: 'POST',
              headers: { 'X-Api-Key': used, 'Content-Type': 'application/json' },
              body: JSON.stringify({ name: 'Intruso', type: 'buyer', phone_number_1: '+34611600002' }),
            });
            return `read ${response.status}`;
          } catch {
            return 'blocked';
          }
        },
        { url: `${t.base}/leads/inquiries`, key: attempt },
      );
      expect(outcome, name).toBe('blocked');
    }
    expect(await leadCount()).toBe(1);
    await context.close();
  });
});
