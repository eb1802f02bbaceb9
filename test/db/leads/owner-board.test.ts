/**
 * The owner pipeline (issue 58 item 2, CONTRACT §24): the business's `propietario` leads on the
 * board of /console/owners, one column per stage, an owner never moved at `new`; moved by an
 * agent's form (CSRF-checked) to any stage, recorded in the audit trail by the lead's id alone,
 * and read back in GET /v1/ext/leads/{id} as `owner_stage`. A refusal is said in words, 422, and
 * changes nothing.
 */
import { describe, expect, it } from 'vitest';
import { moveOwnerStage } from '../../../src/services/leads/owners.ts';
import { loggedIn, userWithPassword, type Browser } from '../../helpers/console.ts';
import { businessWithKey, importRecords, listing, propertyId, snapshot } from '../../helpers/db.ts';
import { get, withApp } from '../../helpers/http.ts';
import { leadOfType } from '../../helpers/leads.ts';

const t = withApp({
  each: true,
  seed: async ({ db, businessId }) => {
    await userWithPassword(db, businessId, 'ana@inmo.example', 'agent');
    await importRecords(db, businessId, [listing('OWN-1'), listing('OWN-2')]);
  },
});

/** A lead made by hand, of `type`. */
const leadOf = (type: 'propietario' | 'demandante', phone: string, name: string, businessId = t.businessId) =>
  leadOfType(t.db, businessId, type, phone, name);

/** The board's column of `stage` (its section, up to the next one). */
function column(body: string, stage: string): string {
  const start = body.indexOf(`aria-labelledby="stage-${stage}"`);
  expect(start).toBeGreaterThan(-1);
  const end = body.indexOf('<section', start);
  return body.slice(start, end === -1 ? undefined : end);
}

/** Posts the card's form of owner `leadId` as the board shows it, with `stage` chosen. */
const move = (browser: Browser, leadId: number, stage: string) =>
  browser.submit('/console/owners', `/console/owners/${leadId}/stage`, { stage });

const storedStage = async (id: number) =>
  (await t.db.selectFrom('leads').select('owner_stage').where('id', '=', id).executeTakeFirstOrThrow()).owner_stage;

describe('the owner board', () => {
  it('shows each owner in the column of its stage with its listings, and none of the other leads', async () => {
    const rosa = await leadOf('propietario', '+34611333111', 'Rosa Propietaria');
    const pedro = await leadOf('propietario', '+34611333222', 'Pedro Propietario');
    await leadOf('demandante', '+34611333333', 'Daniel Demandante');
    for (const ref of ['OWN-1', 'OWN-2'])
      await t.db
        .updateTable('properties')
        .set({ owner_lead_id: rosa })
        .where('id', '=', await propertyId(t.db, ref))
        .execute();
    await t.db.updateTable('leads').set({ owner_stage: 'valued' }).where('id', '=', pedro).execute();
    const ana = await loggedIn(t.app, 'ana@inmo.example');

    const page = await ana.get('/console/owners');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<a href="/console/owners" aria-current="page">Propietarios</a>');
    expect(column(page.body, 'new')).toContain(`<a href="/console/leads/${rosa}">Rosa Propietaria</a>`);
    expect(column(page.body, 'new')).toContain('2 inmuebles');
    expect(column(page.body, 'valued')).toContain(`<a href="/console/leads/${pedro}">Pedro Propietario</a>`);
    expect(column(page.body, 'valued')).toContain('Sin inmuebles vinculados');
    expect(column(page.body, 'lost')).toContain('Nadie en esta etapa.');
    expect(page.body).not.toContain('Daniel Demandante');
  });

  it('moves an owner to another stage, says so, audits it by id, and the API reads it back', async () => {
    const rosa = await leadOf('propietario', '+34611333444', 'Rosa Propietaria');
    const searcher = await leadOf('demandante', '+34611333555', 'Daniel Demandante');
    const ana = await loggedIn(t.app, 'ana@inmo.example');
    expect((await get(t.app, `/leads/${rosa}`, t.key)).body.owner_stage).toBe('new');
    expect((await get(t.app, `/leads/${searcher}`, t.key)).body).not.toHaveProperty('owner_stage');
    // Only the one lead's answer says it: never the list's (CONTRACT §24, as `listings`).
    const list = await get(t.app, '/leads', t.key);
    expect(list.body.data.find((l: { id: number }) => l.id === rosa)).not.toHaveProperty('owner_stage');

    const moved = await move(ana, rosa, 'valuation_scheduled');
    expect([moved.statusCode, moved.headers.location]).toEqual([303, `/console/owners?moved=${rosa}#owner-${rosa}`]);
    expect(await storedStage(rosa)).toBe('valuation_scheduled');
    const board = await ana.get(String(moved.headers.location).split('#')[0]);
    expect(board.body).toContain('Rosa Propietaria está ahora en «Valoración agendada».');
    expect(column(board.body, 'valuation_scheduled')).toContain('Rosa Propietaria');
    expect(column(board.body, 'new')).not.toContain('Rosa Propietaria');
    expect((await get(t.app, `/leads/${rosa}`, t.key)).body.owner_stage).toBe('valuation_scheduled');
    // The owner's lead page says the stage, and links to its card on the board.
    const leadPage = await ana.get(`/console/leads/${rosa}`);
    expect(leadPage.body).toContain('Etapa de captación: <strong>Valoración agendada</strong>');
    expect(leadPage.body).toContain(`<a href="/console/owners#owner-${rosa}">Ver en el tablero de propietarios</a>`);
    // Back to an earlier stage too: the stages say where things stand.
    expect((await move(ana, rosa, 'new')).statusCode).toBe(303);
    expect(await storedStage(rosa)).toBe('new');

    // As every change of a lead's work: a history line on its page and `lead.updated` for integrators.
    const history = await t.db.selectFrom('lead_history').select(['change', 'detail']).where('lead_id', '=', rosa).orderBy('id').execute();
    expect(history).toEqual([
      { change: 'owner_stage', detail: JSON.stringify({ from: 'new', to: 'valuation_scheduled' }) },
      { change: 'owner_stage', detail: JSON.stringify({ from: 'valuation_scheduled', to: 'new' }) },
    ]);
    expect((await ana.get(`/console/leads/${rosa}`)).body).toContain('Etapa de captación: Valoración agendada → Nuevo');
    const updated = await t.db.selectFrom('events').select('type').where('lead_id', '=', rosa).where('type', '=', 'lead.updated').execute();
    expect(updated).toHaveLength(2);
    const audit = await t.db.selectFrom('audit_log').selectAll().where('action', '=', 'lead.owner_stage').execute();
    expect(audit.map((a) => [a.target_type, a.target_id])).toEqual([
      ['lead', String(rosa)],
      ['lead', String(rosa)],
    ]);
    expect(JSON.stringify(audit)).not.toContain('Rosa');
    // Moved to the stage it is at: nothing changes, nothing is audited.
    const before = await snapshot(t.db);
    await moveOwnerStage(t.db, { businessId: t.businessId, leadId: rosa, stage: 'new', actor: { type: 'cli' } });
    expect(await snapshot(t.db)).toBe(before);
  });

  it('refuses an unknown stage, a lead that is not an owner, another business’s lead and a form without its token, changing nothing', async () => {
    const rosa = await leadOf('propietario', '+34611333666', 'Rosa Propietaria');
    const searcher = await leadOf('demandante', '+34611333777', 'Daniel Demandante');
    const other = await businessWithKey(t.db, 'Otra Agencia');
    const elsewhere = await leadOf('propietario', '+34611333888', 'Otra Propietaria', other.businessId);
    const ana = await loggedIn(t.app, 'ana@inmo.example');
    const before = await snapshot(t.db);

    const unknown = await move(ana, rosa, 'signed');
    expect(unknown.statusCode).toBe(422);
    expect(unknown.body).toContain('Elige una de las etapas de la lista.');
    const notOwner = await ana.submit('/console/owners', `/console/owners/${searcher}/stage`, { stage: 'valued' });
    expect(notOwner.statusCode).toBe(422);
    expect(notOwner.body).toContain('Solo un lead de tipo propietario tiene etapa de captación.');
    const foreign = await ana.submit('/console/owners', `/console/owners/${elsewhere}/stage`, { stage: 'valued' });
    expect(foreign.statusCode).toBe(404);
    const forged = await ana.request('POST', `/console/owners/${rosa}/stage`, { stage: 'valued' });
    expect(forged.statusCode).toBe(403);
    expect(await snapshot(t.db)).toBe(before);
  });
});
