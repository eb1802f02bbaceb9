/**
 * "Hoy", the console's home page (issue 47, CONTRACT §23): an agent's and an owner's day, and
 * what is done from it — a viewing confirmed, a follow-up put off and then done, a new lead
 * taken. Every refusal changes nothing.
 */
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { changeLeadStatus, listLeadHistory } from '../../../src/services/leads/pipeline.ts';
import { messageOfNote, TODAY_SHOWN } from '../../../src/services/console/today.ts';
import { loggedIn, userWithPassword } from '../../helpers/console.ts';
import { importRecords, listing, snapshot } from '../../helpers/db.ts';
import { seedDay, ZONE } from '../../helpers/today.ts';
import { post, withApp } from '../../helpers/http.ts';

const section = (html: string, id: string) =>
  html.slice(html.indexOf(`id="${id}"`), html.indexOf('</section>', html.indexOf(`id="${id}"`)));

describe('Hoy', () => {
  const t = withApp();

  it("lists an agent's day and an owner's, and confirms, puts off, does and takes from there", async () => {
    const ana = await userWithPassword(t.db, t.businessId, 'ana@inmo.example', 'owner');
    const bea = await userWithPassword(t.db, t.businessId, 'bea@inmo.example', 'agent');
    const { now, lucia, mario, overdue, beasViewing } = await seedDay(t.db, t.businessId, bea.id, ana.id);

    const agent = await loggedIn(t.app, 'bea@inmo.example');
    const page = await agent.get('/console');
    expect(page.statusCode).toBe(200);
    // Her own viewings of today, not tomorrow's and not the owner's.
    expect(section(page.body, 'h-viewings')).toContain('Lucía Beatriz');
    expect(section(page.body, 'h-viewings')).toContain('Piso en Delicias');
    expect(section(page.body, 'h-viewings')).not.toContain('Olga Deana');
    expect(section(page.body, 'h-viewings')).not.toContain('Mario Sinagente');
    // Follow-ups of her leads and of nobody's, the overdue one said so; not the owner's lead.
    const follow = section(page.body, 'h-follow');
    expect(follow).toContain('Lucía Beatriz');
    expect(follow).toContain('atrasado desde');
    expect(follow).toContain('Mario Sinagente');
    expect(follow).not.toContain('Olga Deana');
    expect(section(page.body, 'h-waiting')).toContain('Mario Sinagente');
    expect(section(page.body, 'h-unassigned')).toContain('Mario Sinagente');
    expect(section(page.body, 'h-unassigned')).not.toContain('Lucía Beatriz');
    expect(section(page.body, 'h-again')).toContain('Lucía Beatriz');
    expect(section(page.body, 'h-emails')).toContain('Ningún e-mail');
    expect(page.body).not.toContain('Claves activas');

    const owner = await loggedIn(t.app, 'ana@inmo.example');
    const ownersDay = (await owner.get('/console')).body;
    expect(section(ownersDay, 'h-viewings')).toContain('Olga Deana');
    expect(section(ownersDay, 'h-viewings')).toContain('Lucía Beatriz');
    expect(section(ownersDay, 'h-follow')).toContain('Olga Deana');
    expect(ownersDay).toContain('Claves activas');

    // Confirmed from "Hoy", back to it; the same again, or an action that is none, is refused and changes nothing.
    const confirmed = await agent.submit('/console', `/console/viewings/${beasViewing}`, { action: 'confirm', back: 'today' });
    expect([confirmed.statusCode, confirmed.headers.location]).toEqual([303, '/console#h-viewings']);
    expect((await t.db.selectFrom('viewings').select('status').where('id', '=', beasViewing).executeTakeFirstOrThrow()).status).toBe(
      'confirmed',
    );
    const before = await snapshot(t.db);
    const again = await agent.submit('/console', `/console/viewings/${beasViewing}`, { action: 'confirm', back: 'today' });
    expect(again.statusCode).toBe(409);
    expect(again.body).toContain('ya no admite ese cambio');
    expect((await agent.submit('/console', `/console/viewings/${beasViewing}`, { action: 'explode' })).statusCode).toBe(409);
    expect((await agent.submit('/console', '/console/viewings/999999', { action: 'cancel' })).statusCode).toBe(404);
    expect(await snapshot(t.db)).toBe(before);

    // Put off until tomorrow at 9:00 (the business's), it leaves "Hoy" and stays due; done still applies.
    const snoozed = await agent.submit('/console', `/console/leads/${lucia}/follow-ups/${overdue}/snooze`, { back: 'today' });
    expect([snoozed.statusCode, snoozed.headers.location]).toEqual([303, '/console#h-follow']);
    const stored = await t.db
      .selectFrom('follow_ups')
      .select(['state', 'snoozed_until'])
      .where('id', '=', overdue)
      .executeTakeFirstOrThrow();
    expect(stored.state).toBe('due');
    expect(DateTime.fromISO(stored.snoozed_until!, { zone: ZONE }).toFormat('yyyy-MM-dd HH:mm')).toBe(
      `${now.plus({ days: 1 }).toISODate()} 09:00`,
    );
    expect(section((await agent.get('/console')).body, 'h-follow')).not.toContain('Lucía Beatriz');
    expect((await listLeadHistory(t.db, t.businessId, lucia))[0].detail).toEqual({ id: overdue, snoozed: stored.snoozed_until });
    expect((await agent.get(`/console/leads/${lucia}`)).body).toContain('Seguimiento pospuesto hasta');
    const done = await agent.submit('/console', `/console/leads/${lucia}/follow-ups/${overdue}/done`, { back: 'today' });
    expect([done.statusCode, done.headers.location]).toEqual([303, '/console#h-follow']);
    expect((await t.db.selectFrom('follow_ups').select('state').where('id', '=', overdue).executeTakeFirstOrThrow()).state).toBe('done');
    // Done is not due: it cannot be put off.
    const settled = await snapshot(t.db);
    expect((await agent.submit('/console', `/console/leads/${lucia}/follow-ups/${overdue}/snooze`, { back: 'today' })).statusCode).toBe(
      409,
    );
    expect(await snapshot(t.db)).toBe(settled);

    // Taken: assigned to her, off the list of new leads nobody has.
    const taken = await agent.submit('/console', `/console/leads/${mario}/assign`, { user_id: String(bea.id), back: 'today' });
    expect(taken.statusCode).toBe(303);
    expect(
      (await t.db.selectFrom('leads').select('assigned_user_id').where('id', '=', mario).executeTakeFirstOrThrow()).assigned_user_id,
    ).toBe(bea.id);
    expect(section((await agent.get('/console')).body, 'h-unassigned')).not.toContain('Mario Sinagente');
  });
});

describe('Hoy shows what the agent needs (issue 57)', () => {
  const t = withApp();

  it('lists every new lead nobody has taken, searching ones too, with its source in words, its listing and its first words', async () => {
    await userWithPassword(t.db, t.businessId, 'ana@inmo.example', 'owner');
    const bea = await userWithPassword(t.db, t.businessId, 'bea@inmo.example', 'agent');
    await importRecords(t.db, t.businessId, [listing('ATI-7', { title: 'Ático con terraza en Chamberí', city: 'Madrid' })]);
    // Eleven new leads of nobody before her, and one a person has already moved on (not new any more).
    for (let i = 0; i < TODAY_SHOWN + 1; i++)
      expect(
        (
          await post(t.app, '/leads/inquiries', t.key, {
            name: `Lead ${i}`,
            type: 'demandante',
            phone_number_1: `+34 622 00 00 ${String(i).padStart(2, '0')}`,
          })
        ).status,
      ).toBe(200);
    // A searching lead (its search had content: born `searching_property`), from idealista, about ATI-7, with a long message.
    const message =
      'Hola, me interesa mucho el ático de Chamberí y querría verlo esta misma semana, a ser posible por la tarde después de las seis';
    const searching = await post(t.app, '/leads/inquiries', t.key, {
      name: 'Sara Buscando',
      type: 'demandante',
      phone_number_1: '+34 611 00 00 01',
      source: 'idealista',
      notes: `${message}\nRef. ATI-7`,
      search_preferences: [{ operations: ['venta'], property_types: ['apartamento'], locations: [{ name: 'Madrid' }] }],
    });
    expect(searching.status).toBe(200);
    const sara = searching.body.lead_id as number;
    expect((await t.db.selectFrom('leads').select('status').where('id', '=', sara).executeTakeFirstOrThrow()).status).toBe(
      'searching_property',
    );
    const worked = await post(t.app, '/leads/inquiries', t.key, {
      name: 'Ya Trabajado',
      type: 'demandante',
      phone_number_1: '+34 633 00 00 01',
    });
    await changeLeadStatus(
      t.db,
      { userId: bea.id, role: 'agent', businessId: t.businessId },
      worked.body.lead_id as number,
      'searching_property',
    );

    const owner = await loggedIn(t.app, 'ana@inmo.example');
    const unassigned = section((await owner.get('/console')).body, 'h-unassigned');
    // Twelve leads are new and of nobody: the count says so, ten are listed and the rest linked.
    expect(unassigned).toContain('<span class="count">(12)</span>');
    expect(unassigned).toContain('y 2 más');
    expect(unassigned).toContain('href="/console/leads?assigned=none"');
    expect(unassigned).not.toContain('Ya Trabajado');
    expect(unassigned).not.toContain('Todos los leads nuevos tienen quien los lleve');
    const saras = unassigned.slice(unassigned.indexOf('Sara Buscando'), unassigned.indexOf('</li>', unassigned.indexOf('Sara Buscando')));
    expect(saras).toContain('idealista ·');
    expect(saras).toMatch(/sobre <a href="\/console\/properties\/\d+">Ático con terraza en Chamberí<\/a>/);
    expect(saras).toContain('Hola, me interesa mucho el ático de Chamberí y querría verlo esta misma semana, a ser…');
    // A lead typed in by hand says so in words.
    expect(unassigned).toContain('Por la API, sin origen indicado');
  });

  it('cuts a message to its first words', () => {
    expect(messageOfNote('Consulta recibida por la web.\nMensaje: Hola\nRef. X')).toBe('Hola');
    expect(messageOfNote('Consulta recibida por la web.')).toBeNull();
    expect(messageOfNote(null)).toBeNull();
    const long = messageOfNote(`Mensaje: ${'palabra '.repeat(30)}`)!;
    expect(long.length).toBeLessThanOrEqual(90);
    expect(long).toMatch(/palabra…$/);
  });

  it('shows each viewing’s address and the lead’s phone on Hoy, the agenda and the viewing page', async () => {
    const ana = await userWithPassword(t.db, t.businessId, 'olga@inmo.example', 'owner');
    const bea = await userWithPassword(t.db, t.businessId, 'rosa@inmo.example', 'agent');
    const { beasViewing } = await seedDay(t.db, t.businessId, bea.id, ana.id);
    await importRecords(t.db, t.businessId, [
      listing('PISO-1', { title: 'Piso en Delicias', address: 'Calle Delicias 12, 2º A', city: 'Zaragoza' }),
    ]);
    const agent = await loggedIn(t.app, 'rosa@inmo.example');
    const call = 'href="tel:+34600000001"';
    const viewings = section((await agent.get('/console')).body, 'h-viewings');
    expect(viewings).toContain('Calle Delicias 12, 2º A, Zaragoza');
    expect(viewings).toContain(call);
    const agenda = (await agent.get('/console/agenda')).body;
    expect(agenda).toContain('Calle Delicias 12, 2º A, Zaragoza');
    expect(agenda).toContain(call);
    const page = (await agent.get(`/console/viewings/${beasViewing}`)).body;
    expect(page).toContain('Calle Delicias 12, 2º A, Zaragoza');
    expect(page).toContain(call);
  });
});
