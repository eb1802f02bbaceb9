/**
 * Mandates ("hojas de encargo", issue 58 item 3, CONTRACT §24) on both engines: drafted from the
 * listing and its owner, signed on the screen with name, DNI and a drawn signature, read back from
 * the A4 PDF; a signed version never changes (a change is a new version that replaces it when
 * signed); the owner moves to `mandate_signed`; events `mandate.signed` and `mandate.ended`;
 * expiry at the end takes the listing out of GET /properties and the Kyero feed (which still
 * validates) unless the owner keeps it listed; the warnings at 30, 15 and 7 days by a fixed clock;
 * `inmo mandates list`; the owner's export and erasure.
 *
 * "Now" is vitest's fake `Date` (only `Date`) where a test needs the business's day.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { exportLead } from '../../../src/services/leads/leads.ts';
import { eraseLead, eraseQuietLeads } from '../../../src/services/leads/erasure.ts';
import {
  endMandate,
  expireDueMandates,
  mandateOfListing,
  mandatePdf,
  mandatesEnding,
  saveMandateDraft,
  signMandate,
  MandateFormError,
} from '../../../src/services/owners/mandates.ts';
import { VisitSheetFormError } from '../../../src/services/viewings/visit-sheet.ts';
import { CLI } from '../../../src/services/access/audit.ts';
import { createUser } from '../../../src/services/access/console-users.ts';
import { inmo } from '../../helpers/cli.ts';
import { importRecords, listing, propertyId, snapshot } from '../../helpers/db.ts';
import { get, withApp } from '../../helpers/http.ts';
import { leadOfType, linkOwner } from '../../helpers/leads.ts';
import { readPdf } from '../../helpers/pdf.ts';
import { drawnSignature } from '../../helpers/signature.ts';
import { validateXml, xmllintHere } from '../../helpers/xmllint.ts';

const canValidate = xmllintHere('mandate expiry feed test');

const t = withApp({
  each: true,
  seed: async ({ db, businessId }) => {
    await importRecords(db, businessId, [
      listing('CASA-1', { title: 'Piso en Delicias', price: 250000, address: 'Calle Mayor 1', city: 'Madrid' }),
      listing('CASA-2', { title: 'Ático en el Centro', operation: 'alquiler', price: null, price_rent: 1200 }),
    ]);
  },
});

afterEach(() => {
  vi.useRealTimers();
});

/** Sets "now" (the fake `Date`). */
const now = (iso: string) => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date(iso));
};

/** An owner lead linked to the listings `refs`. @returns its id. */
async function ownerOf(refs: string[], phone = '+34612400001'): Promise<number> {
  const id = await leadOfType(t.db, t.businessId, 'propietario', phone, 'Rosa Propietaria');
  await linkOwner(t.db, id, refs);
  return id;
}

/** The terms' form of a sale, changed by `changes`. */
const terms = (changes: Record<string, string> = {}) => ({
  kind: 'exclusive',
  operation: 'venta',
  asking_price: '250.000',
  starts_on: '2026-03-01',
  ends_on: '2027-02-28',
  fee_type: 'percent',
  fee_value: '3,5',
  minimum_fee: '3000',
  vat: 'excluded',
  keys: '1',
  sign_board: '',
  keep_listed_after_expiry: '',
  ...changes,
});

const signer = async () => ({
  visitor_name: 'Rosa María Propietaria',
  document_type: 'dni',
  document_number: '12345678Z',
  signature: await drawnSignature(),
});

let agentSeq = 0;
const agent = async () =>
  (await createUser(t.db, { businessId: t.businessId, email: `agente${++agentSeq}@inmo.example`, role: 'agent' })).id;

const events = async (type: string) =>
  (await t.db.selectFrom('events').select('data').where('type', '=', type).orderBy('id').execute()).map((e) => JSON.parse(e.data));

describe('drafting and signing', () => {
  it('drafts from the listing, signs on the screen, moves the owner and says so; the PDF reads back owner, DNI, fee, dates and clause', async () => {
    const owner = await ownerOf(['CASA-1']);
    const house = await propertyId(t.db, 'CASA-1');
    const userId = await agent();
    now('2026-03-01T10:00:00Z');
    // Before any draft, the terms start from the listing: exclusive, its price, 12 months, 3 % with a minimum.
    const fresh = await mandateOfListing(t.db, t.businessId, house);
    expect(fresh.terms).toMatchObject({
      kind: 'exclusive',
      operation: 'venta',
      asking_price: 250000,
      starts_on: '2026-03-01',
      ends_on: '2027-02-28',
      fee: { percent_bp: 300 },
      minimum_fee: 3000,
    });
    // A letting's fee starts as one month's rent.
    expect((await mandateOfListing(t.db, t.businessId, await propertyId(t.db, 'CASA-2'))).terms).toMatchObject({
      operation: 'alquiler',
      asking_price: 1200,
      fee: { amount: 1200 },
      minimum_fee: null,
    });

    const draft = await saveMandateDraft(t.db, t.businessId, house, terms(), CLI);
    expect(draft).toMatchObject({ version: 1, status: 'draft', fee: { percent_bp: 350 }, keys: true, owner_lead_id: owner });
    const signed = await signMandate(t.db, t.businessId, draft.id, await signer(), { by: 'screen', userId });
    expect(signed).toMatchObject({ status: 'signed', signer_document: '12345678Z', signed_how: 'screen' });
    expect(await events('mandate.signed')).toEqual([{ id: draft.id, property_id: house, status: 'signed' }]);
    expect((await get(t.app, `/leads/${owner}`, t.key)).body.owner_stage).toBe('mandate_signed');
    const audit = await t.db.selectFrom('audit_log').selectAll().where('action', '=', 'mandate.sign').execute();
    expect(audit.map((a) => [a.target_id, a.actor_id])).toEqual([[String(draft.id), String(userId)]]);

    const { pdf, fileName } = await mandatePdf(t.db, t.businessId, house, 'es');
    expect(fileName).toBe('hoja-de-encargo-CASA-1-v1.pdf');
    const read = await readPdf(pdf);
    const text = read.text.join(' ').replace(/\s+/g, ' ');
    expect(read.title).toBe('Hoja de encargo · versión 1 · CASA-1');
    for (const words of [
      'Rosa María Propietaria',
      'DNI 12345678Z',
      '3,5 % del precio, mínimo 3000 €, más IVA',
      'del 1 de marzo de 2026 al 28 de febrero de 2027',
      'En exclusiva',
      'cláusula',
      'Firmada en pantalla el',
    ])
      expect(text.toLowerCase()).toContain(words.toLowerCase());
    expect(read.images).toHaveLength(1);
  });

  it('refuses what is wrong and changes nothing: no owner, bad terms, a bad signer, a signed version', async () => {
    const house = await propertyId(t.db, 'CASA-1');
    const before = await snapshot(t.db);
    await expect(saveMandateDraft(t.db, t.businessId, house, terms(), CLI)).rejects.toMatchObject({ code: 'MANDATE_NO_OWNER' });
    await ownerOf(['CASA-1']);
    const afterOwner = await snapshot(t.db);
    expect(afterOwner).not.toBe(before);
    const refused = await saveMandateDraft(
      t.db,
      t.businessId,
      house,
      terms({ kind: 'forever', asking_price: 'mucho', ends_on: '2026-02-01', fee_value: '25', minimum_fee: '-1' }),
      CLI,
    ).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(MandateFormError);
    expect((refused as MandateFormError).faults).toEqual({
      kind: 'choice',
      asking_price: 'number',
      ends_on: 'order',
      fee_value: 'percent',
      minimum_fee: 'number',
    });
    expect(
      await saveMandateDraft(t.db, t.businessId, house, terms({ ends_on: '2032-03-02' }), CLI).catch((e: MandateFormError) => e.faults),
    ).toEqual({ ends_on: 'too_long' });
    expect(await snapshot(t.db)).toBe(afterOwner);

    const draft = await saveMandateDraft(t.db, t.businessId, house, terms(), CLI);
    const drafted = await snapshot(t.db);
    const badSigner = await signMandate(
      t.db,
      t.businessId,
      draft.id,
      { ...(await signer()), document_number: '12345678A' },
      { by: 'link' },
    ).catch((error: unknown) => error);
    expect(badSigner).toBeInstanceOf(VisitSheetFormError);
    expect((badSigner as VisitSheetFormError).faults).toEqual({ document_number: 'letter' });
    expect(await snapshot(t.db)).toBe(drafted);

    // A draft whose last day has passed is not signed.
    now('2027-03-01T10:00:00Z');
    await expect(signMandate(t.db, t.businessId, draft.id, await signer(), { by: 'link' })).rejects.toMatchObject({
      code: 'MANDATE_ENDS_IN_PAST',
    });
    expect(await snapshot(t.db)).toBe(drafted);
    vi.useRealTimers();
    now('2026-03-02T10:00:00Z');
    await signMandate(t.db, t.businessId, draft.id, await signer(), { by: 'link' });
    const signed = await snapshot(t.db);
    await expect(signMandate(t.db, t.businessId, draft.id, await signer(), { by: 'link' })).rejects.toMatchObject({
      code: 'MANDATE_SIGNED',
    });
    await expect(endMandate(t.db, t.businessId, draft.id, '   ', CLI)).rejects.toMatchObject({ code: 'MANDATE_END_REASON' });
    expect(await snapshot(t.db)).toBe(signed);
  });

  it('keeps a signed version as it was: a change is a new version that ends it when signed', async () => {
    await ownerOf(['CASA-1']);
    const house = await propertyId(t.db, 'CASA-1');
    const first = await saveMandateDraft(t.db, t.businessId, house, terms(), CLI);
    await signMandate(t.db, t.businessId, first.id, await signer(), { by: 'link' });
    const second = await saveMandateDraft(t.db, t.businessId, house, terms({ asking_price: '240000' }), CLI);
    expect([second.version, second.status, second.asking_price]).toEqual([2, 'draft', 240000]);
    // Saving again changes the draft, not the signed version.
    const again = await saveMandateDraft(t.db, t.businessId, house, terms({ asking_price: '235000' }), CLI);
    expect(again.id).toBe(second.id);
    let state = await mandateOfListing(t.db, t.businessId, house);
    expect([state.current?.version, state.current?.asking_price, state.draft?.asking_price]).toEqual([1, 250000, 235000]);

    await signMandate(t.db, t.businessId, second.id, await signer(), { by: 'link' });
    state = await mandateOfListing(t.db, t.businessId, house);
    expect(state.versions.map((v) => [v.version, v.status, v.ended_reason])).toEqual([
      [2, 'signed', null],
      [1, 'ended', 'replaced'],
    ]);
    expect(await events('mandate.ended')).toEqual([{ id: first.id, property_id: house, status: 'ended' }]);
    const ended = await endMandate(t.db, t.businessId, second.id, 'Vendido por el propietario', CLI);
    expect([ended.status, ended.ended_reason]).toEqual(['ended', 'Vendido por el propietario']);
  });
});

describe('the end of a mandate', () => {
  it('warns at 30, 15 and 7 days; at its end expires it and takes the listing out of the API and the feed, unless kept listed', async () => {
    await ownerOf(['CASA-1', 'CASA-2']);
    const [house, flat] = [await propertyId(t.db, 'CASA-1'), await propertyId(t.db, 'CASA-2')];
    now('2026-05-01T10:00:00Z');
    const a = await saveMandateDraft(t.db, t.businessId, house, terms({ ends_on: '2026-06-30' }), CLI);
    const b = await saveMandateDraft(
      t.db,
      t.businessId,
      flat,
      terms({
        operation: 'alquiler',
        asking_price: '1200',
        fee_type: 'amount',
        fee_value: '1200',
        ends_on: '2026-06-30',
        keep_listed_after_expiry: '1',
      }),
      CLI,
    );
    for (const m of [a, b]) await signMandate(t.db, t.businessId, m.id, await signer(), { by: 'link' });
    const warnings = async (at: string) => {
      now(at);
      return (await mandatesEnding(t.db, t.businessId, 30)).map((m) => [m.days_left, m.warning]);
    };
    expect(await warnings('2026-05-30T10:00:00Z')).toEqual([]);
    expect(await warnings('2026-05-31T10:00:00Z')).toEqual([
      [30, 30],
      [30, 30],
    ]);
    expect((await warnings('2026-06-15T10:00:00Z'))[0]).toEqual([15, 15]);
    expect((await warnings('2026-06-23T10:00:00Z'))[0]).toEqual([7, 7]);
    // 23:30 in Madrid on the last day (21:30 UTC) is still the last day: nothing expires.
    now('2026-06-30T21:30:00Z');
    expect(await expireDueMandates(t.db, new Date())).toBe(0);
    const cli = await inmo(
      { ...process.env, DATABASE_URL: t.url, LOG_LEVEL: 'warn' },
      'mandates',
      'list',
      '--business',
      String(t.businessId),
      '--ending-within',
      '7',
      '--json',
    );
    expect(cli.json).toEqual([
      expect.objectContaining({
        id: a.id,
        property_id: house,
        external_ref: 'CASA-1',
        version: 1,
        kind: 'exclusive',
        ends_on: '2026-06-30',
        warning: 7,
      }),
      expect.objectContaining({ id: b.id, external_ref: 'CASA-2', keep_listed_after_expiry: true }),
    ]);
    expect(cli.stdout).not.toContain('Rosa');

    // 00:30 in Madrid the next day: both expire; only the house leaves the catalogue.
    now('2026-06-30T22:30:00Z');
    expect(await expireDueMandates(t.db, new Date())).toBe(2);
    expect(await expireDueMandates(t.db, new Date())).toBe(0);
    expect((await events('mandate.ended')).map((e) => e.status)).toEqual(['expired', 'expired']);
    expect((await get(t.app, `/properties/${house}`, t.key)).status).toBe(404);
    expect((await get(t.app, `/properties/${flat}`, t.key)).status).toBe(200);
    const feed = await inmo(
      { ...process.env, DATABASE_URL: t.url, LOG_LEVEL: 'warn' },
      'feeds',
      'publish',
      '--business',
      String(t.businessId),
      '--json',
    );
    const xml = (await t.app.inject({ method: 'GET', url: (feed.json as { url: string }).url })).body;
    expect(xml).not.toContain(`<ref>${house}</ref>`);
    expect(xml).toContain(`<ref>${flat}</ref>`);
    if (canValidate) expect(validateXml(xml).ok).toBe(true);
    expect((await mandatesEnding(t.db, t.businessId, null)).length).toBe(0);
  });
});

describe('personal data', () => {
  it('exports the owner’s mandates with the signer and the signature, and erases them with the owner', async () => {
    const owner = await ownerOf(['CASA-1']);
    const house = await propertyId(t.db, 'CASA-1');
    const draft = await saveMandateDraft(t.db, t.businessId, house, terms(), CLI);
    await signMandate(t.db, t.businessId, draft.id, await signer(), { by: 'link' });
    const exported = await exportLead(t.db, t.businessId, owner, CLI);
    expect(exported.mandates).toEqual([
      expect.objectContaining({ id: draft.id, property_id: house, signer_name: 'Rosa María Propietaria', signer_document: '12345678Z' }),
    ]);
    expect(exported.mandates[0].signature_png_base64).toMatch(/^iVBORw0KGgo/);
    // Retention leaves a quiet owner with a listing and a signed mandate alone (the agency's client).
    expect(await eraseQuietLeads(t.db, 1, new Date('2030-01-01T00:00:00Z'))).toBe(0);
    await eraseLead(t.db, owner, { actor: CLI });
    expect(await t.db.selectFrom('mandates').selectAll().execute()).toEqual([]);
    expect((await t.db.selectFrom('properties').select('id').where('id', '=', house).execute()).length).toBe(1);
  });
});
