/**
 * "Hoy", the console's home page (issue 47, CONTRACT §23): an agent's and an owner's day, and
 * what is done from it — a viewing confirmed, a follow-up put off and then done, a new lead
 * taken. Every refusal changes nothing.
 */
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { listLeadHistory } from '../../src/services/leads/pipeline.ts';
import { loggedIn, userWithPassword } from '../helpers/console.ts';
import { snapshot } from '../helpers/db.ts';
import { seedDay, ZONE } from '../helpers/today.ts';
import { withApp } from '../helpers/http.ts';

describe('Hoy', () => {
  const t = withApp();

  it("lists an agent's day and an owner's, and confirms, puts off, does and takes from there", async () => {
    const ana = await userWithPassword(t.db, t.businessId, 'ana@inmo.example', 'owner');
    const bea = await userWithPassword(t.db, t.businessId, 'bea@inmo.example', 'agent');
    const { now, lucia, mario, overdue, beasViewing } = await seedDay(t.db, t.businessId, bea.id, ana.id);

    const agent = await loggedIn(t.app, 'bea@inmo.example');
    const page = await agent.get('/console');
    expect(page.statusCode).toBe(200);
    const section = (html: string, id: string) =>
      html.slice(html.indexOf(`id="${id}"`), html.indexOf('</section>', html.indexOf(`id="${id}"`)));
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
