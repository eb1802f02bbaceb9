/**
 * A listing's mandate in the console (issue 58 item 3, CONTRACT §24) on both engines: the page
 * from the listing, the draft saved from its form (refused field by field in words, 422, nothing
 * stored), signed on the screen with a drawn signature, printed as a PDF, ended with a reason;
 * a listing without an owner says so; another business's listing is a 404. Hoy lists the
 * mandates ending within 30 days (a fixed clock: vitest's fake `Date`).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CLI } from '../../../src/services/access/audit.ts';
import { saveMandateDraft, signMandate } from '../../../src/services/owners/mandates.ts';
import { loggedIn, userWithPassword } from '../../helpers/console.ts';
import { businessWithKey, importRecords, listing, propertyId, snapshot } from '../../helpers/db.ts';
import { withApp } from '../../helpers/http.ts';
import { mandateTerms } from '../../helpers/mandates.ts';
import { leadOfType, linkOwner } from '../../helpers/leads.ts';
import { readPdf } from '../../helpers/pdf.ts';
import { drawnSignature } from '../../helpers/signature.ts';

const t = withApp({
  each: true,
  seed: async ({ db, businessId }) => {
    await userWithPassword(db, businessId, 'ana@inmo.example', 'agent');
    await importRecords(db, businessId, [listing('CASA-1', { title: 'Piso en Delicias', price: 250000 }), listing('CASA-2')]);
  },
});

describe('the mandate page', () => {
  it('drafts, refuses in words, signs on the screen, prints and ends a listing’s mandate', async () => {
    const owner = await leadOfType(t.db, t.businessId, 'propietario', '+34612500001', 'Rosa Propietaria');
    await linkOwner(t.db, owner, ['CASA-1']);
    const house = await propertyId(t.db, 'CASA-1');
    const ana = await loggedIn(t.app, 'ana@inmo.example');
    const page = `/console/properties/${house}/mandate`;

    // The listing's page links it; the owner's lead page too.
    expect((await ana.get(`/console/properties/${house}`)).body).toContain(`<a href="${page}">Hoja de encargo</a>`);
    expect((await ana.get(`/console/leads/${owner}`)).body).toContain(`<a href="${page}">Hoja de encargo</a>`);
    const first = await ana.get(page);
    expect(first.statusCode).toBe(200);
    expect(first.body).toContain('Preparar la hoja de encargo');
    expect(first.body).toContain('value="250000"');

    const before = await snapshot(t.db);
    const bad = await ana.submit(page, page, { ...mandateTerms(), fee_value: '30', ends_on: '2026-01-01' });
    expect(bad.statusCode).toBe(422);
    expect(bad.body).toContain('Escribe un porcentaje entre 0,01 y 20, con dos decimales como mucho.');
    expect(bad.body).toContain('El final no puede ser antes del comienzo.');
    expect(await snapshot(t.db)).toBe(before);

    const saved = await ana.submit(page, page, mandateTerms());
    expect([saved.statusCode, saved.headers.location]).toEqual([303, `${page}?saved=draft#h-draft`]);
    const drafted = await ana.get(`${page}?saved=draft`);
    expect(drafted.body).toContain('Borrador guardado.');
    expect(drafted.body).toContain('Firmar en pantalla');

    const unsigned = await ana.submit(page, `${page}/sign`, {
      visitor_name: 'Rosa Propietaria',
      document_type: 'dni',
      document_number: '12345678A',
      signature: await drawnSignature(),
    });
    expect(unsigned.statusCode).toBe(422);
    expect(unsigned.body).toContain('la hoja no se ha firmado');
    const signed = await ana.submit(page, `${page}/sign`, {
      visitor_name: 'Rosa Propietaria',
      document_type: 'dni',
      document_number: '12345678Z',
      signature: await drawnSignature(),
    });
    expect([signed.statusCode, signed.headers.location]).toEqual([303, `${page}?saved=signed#h-current`]);
    const inForce = await ana.get(page);
    expect(inForce.body).toContain('Encargo en vigor');
    expect(inForce.body).toContain('Rosa Propietaria');
    const pdf = await ana.get(`/console/properties/${house}/mandate.pdf?version=1`);
    expect([pdf.statusCode, pdf.headers['content-type']]).toEqual([200, 'application/pdf']);
    expect((await readPdf(pdf.rawPayload)).text.join(' ')).toContain('DNI 12345678Z');
    expect((await ana.get(`/console/properties/${house}/mandate.pdf?version=9`)).statusCode).toBe(404);

    const noReason = await ana.submit(page, `${page}/end`, { reason: '' });
    expect(noReason.statusCode).toBe(422);
    expect(noReason.body).toContain('Di por qué termina');
    const ended = await ana.submit(page, `${page}/end`, { reason: 'Vendido por el propietario' });
    expect(ended.statusCode).toBe(303);
    const after = await ana.get(page);
    expect(after.body).toContain('Ninguna hoja de encargo firmada.');
    expect(after.body).toContain('Vendido por el propietario');
  });

  it('signs only the terms the page showed: a draft saved again meanwhile is refused in words, nothing signed', async () => {
    const owner = await leadOfType(t.db, t.businessId, 'propietario', '+34612500009', 'Rosa Propietaria');
    await linkOwner(t.db, owner, ['CASA-1']);
    const house = await propertyId(t.db, 'CASA-1');
    const ana = await loggedIn(t.app, 'ana@inmo.example');
    const page = `/console/properties/${house}/mandate`;
    await ana.submit(page, page, mandateTerms());
    const shown = /name="draft_at" value="([^"]+)"/.exec((await ana.get(page)).body)?.[1];
    expect(shown).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    // Another agent changes the price while the owner signs on the first one's screen.
    await new Promise((resolve) => setTimeout(resolve, 5));
    await ana.submit(page, page, mandateTerms({ asking_price: '240000' }));
    const before = await snapshot(t.db);
    const signer = {
      visitor_name: 'Rosa Propietaria',
      document_type: 'dni',
      document_number: '12345678Z',
      signature: await drawnSignature(),
    };
    const stale = await ana.submit(page, `${page}/sign`, { ...signer, draft_at: shown! });
    expect(stale.statusCode).toBe(409);
    expect(stale.body).toContain('La hoja de encargo se guardó de nuevo mientras la firmaban');
    expect(await snapshot(t.db)).toBe(before);
    const current = /name="draft_at" value="([^"]+)"/.exec(stale.body)?.[1];
    const signed = await ana.submit(page, `${page}/sign`, { ...signer, draft_at: current! });
    expect(signed.statusCode).toBe(303);
    expect(await t.db.selectFrom('mandates').select(['status', 'asking_price']).executeTakeFirstOrThrow()).toEqual({
      status: 'signed',
      asking_price: 240000,
    });
  });

  it('says a listing without an owner has none to sign, and another business’s listing is not found', async () => {
    const ana = await loggedIn(t.app, 'ana@inmo.example');
    const listingPage = `/console/properties/${await propertyId(t.db, 'CASA-2')}`;
    const page = `${listingPage}/mandate`;
    const shown = await ana.get(page);
    expect(shown.body).toContain('Este inmueble no tiene propietario vinculado');
    expect(shown.body).not.toContain('Guardar el borrador');
    const before = await snapshot(t.db);
    const refused = await ana.submit(listingPage, page, mandateTerms());
    expect(refused.statusCode).toBe(422);
    expect(refused.body).toContain('role="alert" id="mandate-problem">Este inmueble no tiene propietario vinculado');
    expect(await snapshot(t.db)).toBe(before);
    const other = await businessWithKey(t.db, 'Otra agencia');
    await importRecords(t.db, other.businessId, [listing('AJENA-1')]);
    expect((await ana.get(`/console/properties/${await propertyId(t.db, 'AJENA-1')}/mandate`)).statusCode).toBe(404);
  });

  it('prints the agency’s own clause, set on the settings page by an owner; one too long is refused', async () => {
    await userWithPassword(t.db, t.businessId, 'duena@inmo.example', 'owner');
    const owner = await leadOfType(t.db, t.businessId, 'propietario', '+34612500003', 'Rosa Propietaria');
    await linkOwner(t.db, owner, ['CASA-1']);
    const house = await propertyId(t.db, 'CASA-1');
    const duena = await loggedIn(t.app, 'duena@inmo.example');
    expect((await duena.get('/console/settings')).body).toContain('La propiedad encarga a la agencia');
    const before = await snapshot(t.db);
    const long = await duena.submit('/console/settings', '/console/settings/mandate', { mandate_clause: 'x'.repeat(6001) });
    expect(long.statusCode).toBe(422);
    expect(long.body).toContain('La cláusula tiene como máximo 6000 caracteres.');
    expect(await snapshot(t.db)).toBe(before);
    const saved = await duena.submit('/console/settings', '/console/settings/mandate', {
      mandate_clause: 'Cláusula propia de la agencia: honorarios al firmar las arras.',
    });
    expect(saved.statusCode).toBe(303);
    const draft = await saveMandateDraft(t.db, t.businessId, house, mandateTerms(), CLI);
    await signMandate(
      t.db,
      t.businessId,
      draft.id,
      { visitor_name: 'Rosa', document_type: 'dni', document_number: '12345678Z', signature: await drawnSignature() },
      { by: 'link' },
    );
    const pdf = await duena.get(`/console/properties/${house}/mandate.pdf`);
    expect((await readPdf(pdf.rawPayload)).text.join(' ')).toContain('honorarios al firmar las arras');
  });

  it('is on Hoy when it ends within 30 days, the last week marked', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-06-10T09:00:00Z'));
    const owner = await leadOfType(t.db, t.businessId, 'propietario', '+34612500002', 'Rosa Propietaria');
    await linkOwner(t.db, owner, ['CASA-1', 'CASA-2']);
    const sign = async (ref: string, ends: string) => {
      const draft = await saveMandateDraft(t.db, t.businessId, await propertyId(t.db, ref), { ...mandateTerms(), ends_on: ends }, CLI);
      await signMandate(
        t.db,
        t.businessId,
        draft.id,
        { visitor_name: 'Rosa', document_type: 'dni', document_number: '12345678Z', signature: await drawnSignature() },
        { by: 'link' },
      );
    };
    await sign('CASA-1', '2026-06-17');
    await sign('CASA-2', '2026-07-30');
    const ana = await loggedIn(t.app, 'ana@inmo.example');
    const today = (await ana.get('/console')).body;
    const section = today.slice(today.indexOf('id="h-mandates"'), today.indexOf('id="h-emails"'));
    expect(section).toContain('Encargos que terminan en 30 días <span class="count">(1)</span>');
    expect(section).toContain(`<a href="/console/properties/${await propertyId(t.db, 'CASA-1')}/mandate">CASA-1 · Piso en Delicias</a>`);
    expect(section).toContain('<span class="state warning-soon">termina en 7 días</span>');
    expect(section).not.toContain('CASA-2');
  });
});

afterEach(() => {
  vi.useRealTimers();
});
