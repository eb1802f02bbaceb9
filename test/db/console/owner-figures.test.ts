/**
 * The owner's figures of the last 30 days on "Hoy" (CONTRACT §23, services/console/owner-figures.ts),
 * on this process's engine, at a fixed clock over a fixed data set: leads of several sources and
 * statuses inside and outside the 30 local days, first contacts by an agent's status change (2 h),
 * an agent's message (6 h) and the owner (2 days), the assistant's and the service's acts not
 * counted; listings published, reserved, sold and rented with their days on market. Then the
 * page: an owner's `GET /console` shows each chart and its table; an agent's shows neither the
 * figures nor the count of keys.
 */
import { describe, expect, it } from 'vitest';
import { insertHistory, insertLead } from '../../../src/db/repositories/leads.ts';
import { insertOutbound, insertWelcome } from '../../../src/db/repositories/messaging.ts';
import { disableUser } from '../../../src/db/repositories/users.ts';
import { insertBusiness } from '../../../src/db/repositories/businesses.ts';
import { moveListing } from '../../../src/services/catalogue/listings.ts';
import { ownerFigures } from '../../../src/services/console/owner-figures.ts';
import { Browser, loggedIn, userWithPassword } from '../../helpers/console.ts';
import { importRecords, listing, propertyId } from '../../helpers/db.ts';
import { withApp } from '../../helpers/http.ts';

/** Friday 27 November 2026, 12:00 in Madrid (UTC+1): the 30 days start on 29 October at 00:00 Madrid. */
const NOW = Date.parse('2026-11-27T11:00:00.000Z');
const H = 3600;

describe("the owner's figures", () => {
  const users = { owner: 0, ana: 0, bea: 0, old: 0 };
  const t = withApp({
    seed: async ({ db, businessId }) => {
      users.owner = (await userWithPassword(db, businessId, 'duena@agencia.example', 'owner')).id;
      users.ana = (await userWithPassword(db, businessId, 'ana@agencia.example', 'agent')).id;
      users.bea = (await userWithPassword(db, businessId, 'bea@agencia.example', 'agent')).id;
      users.old = (await userWithPassword(db, businessId, 'antiguo@agencia.example', 'agent')).id;
      await disableUser(db, users.old, '2026-11-01T10:00:00.000+00:00');
      let phone = 600_000_000;
      const lead = async (source: string | null, status: string, created: string, assigned: number | null) =>
        (
          await insertLead(db, {
            business_id: businessId,
            name: null,
            type: 'demandante',
            status,
            active: 1,
            source,
            phone_number_1: `+34${++phone}`,
            rating: 3,
            assigned_user_id: assigned,
            created_at: created,
            updated_at: created,
          })
        ).id;
      const statusChange = (leadId: number, userId: number | null, at: string) =>
        insertHistory(db, { business_id: businessId, lead_id: leadId, user_id: userId, change: 'status', detail: '{}', created_at: at });
      const message = (leadId: number, author: string, at: string) =>
        insertOutbound(db, {
          business_id: businessId,
          lead_id: leadId,
          kind: 'text',
          author,
          body: 'Hola',
          created_at: at,
          updated_at: at,
        });

      // Contacted after 2 h by Ana's status change; the welcome and the assistant before it are no person.
      const l1 = await lead('idealista', 'searching_property', '2026-11-20T09:00:00.000+00:00', users.ana);
      await insertWelcome(db, {
        business_id: businessId,
        lead_id: l1,
        kind: 'template',
        template: 'bienvenida',
        state: 'sent',
        created_at: '2026-11-20T09:00:30.000+00:00',
        updated_at: '2026-11-20T09:00:30.000+00:00',
      });
      await message(l1, 'assistant', '2026-11-20T09:05:00.000+00:00');
      await statusChange(l1, users.ana, '2026-11-20T11:00:00.000+00:00');
      // Contacted after 6 h by Ana's message; her status change the next day comes later.
      const l2 = await lead('idealista', 'active_negotiation', '2026-11-21T10:00:00.000+00:00', users.ana);
      await message(l2, 'agent', '2026-11-21T16:00:00.000+00:00');
      await statusChange(l2, users.ana, '2026-11-22T10:00:00.000+00:00');
      // Bea's lead: only the service changed it, so nobody contacted it.
      const l3 = await lead('www.agencia.example', 'new', '2026-11-25T08:00:00.000+00:00', users.bea);
      await statusChange(l3, null, '2026-11-25T08:10:00.000+00:00');
      // Unassigned, 01:30 in Madrid on the first day of the 30; the owner moved it after 2 days.
      const l4 = await lead('manual', 'closed', '2026-10-29T00:30:00.000+00:00', null);
      await statusChange(l4, users.owner, '2026-10-31T00:30:00.000+00:00');
      await lead(null, 'new', '2026-11-26T12:00:00.000+00:00', null);
      // Outside the 30 days: 23:30 in Madrid the day before they start, and September.
      await lead('idealista', 'new', '2026-10-28T22:30:00.000+00:00', users.ana);
      await lead('fotocasa', 'closed', '2026-09-01T10:00:00.000+00:00', users.bea);

      const dates = (created_at: string, updated_at: string) => ({ created_at, updated_at });
      await importRecords(db, businessId, [
        // Published in the period, still available: 17 days and 1 hour on the market so far.
        listing('P1', dates('2026-11-10T10:00:00+00:00', '2026-11-10T10:00:00+00:00')),
        // Published in the period and sold 20 days later.
        listing('P2', { status: 'vendida', ...dates('2026-11-01T10:00:00+00:00', '2026-11-21T10:00:00+00:00') }),
        // Sold after 167 days, rented after 32, reserved after 86.
        listing('P3', { status: 'vendida', ...dates('2026-06-01T10:00:00+00:00', '2026-11-15T10:00:00+00:00') }),
        listing('P4', {
          status: 'alquilada',
          operation: 'alquiler',
          price: null,
          price_rent: 900,
          ...dates('2026-10-01T10:00:00+00:00', '2026-11-02T10:00:00+00:00'),
        }),
        listing('P5', { status: 'reservada', ...dates('2026-09-01T10:00:00+00:00', '2026-11-26T10:00:00+00:00') }),
        // Not counted: sold before the period, not public, published before the period.
        listing('P6', { status: 'vendida', ...dates('2026-05-01T10:00:00+00:00', '2026-10-01T10:00:00+00:00') }),
        listing('P7', { public: false, ...dates('2026-11-20T10:00:00+00:00', '2026-11-20T10:00:00+00:00') }),
        listing('P8', dates('2026-10-01T10:00:00+00:00', '2026-10-01T10:00:00+00:00')),
      ]);
    },
  });

  it('counts the last 30 local days exactly', async () => {
    const figures = await ownerFigures(t.db, t.businessId, NOW);
    expect(figures).toEqual({
      timezone: 'Europe/Madrid',
      from: '2026-10-28T23:00:00.000+00:00',
      to: '2026-11-27T11:00:00.000+00:00',
      leads: 5,
      bySource: [
        { source: 'idealista', count: 2 },
        { source: 'manual', count: 1 },
        { source: 'www.agencia.example', count: 1 },
        { source: null, count: 1 },
      ],
      byStatus: [
        { status: 'new', count: 2 },
        { status: 'searching_property', count: 1 },
        { status: 'active_negotiation', count: 1 },
        { status: 'closed', count: 1 },
        { status: 'inactive', count: 0 },
      ],
      firstContact: { leads: 5, contacted: 3, medianSeconds: 6 * H },
      agents: [
        { userId: users.owner, name: 'duena@agencia.example', leads: 0, contacted: 0, medianSeconds: null },
        { userId: users.ana, name: 'ana@agencia.example', leads: 2, contacted: 2, medianSeconds: 4 * H },
        { userId: users.bea, name: 'bea@agencia.example', leads: 1, contacted: 0, medianSeconds: null },
      ],
      unassigned: { leads: 2, contacted: 1, medianSeconds: 48 * H },
      listings: [
        // Medians of (17.04, 20) and (20, 167) days, rounded.
        { move: 'published', count: 2, medianDays: 19 },
        { move: 'reservada', count: 1, medianDays: 86 },
        { move: 'vendida', count: 2, medianDays: 94 },
        { move: 'alquilada', count: 1, medianDays: 32 },
      ],
    });
  });

  it('dates a sale or rental by the day recorded when it was marked, not by its last write', async () => {
    const business = (await insertBusiness(t.db, 'Agencia Cierres', '2026-01-01T00:00:00.000+00:00')).id;
    const dates = (created_at: string) => ({ created_at, updated_at: created_at });
    await importRecords(t.db, business, [
      listing('C1', dates('2026-06-01T10:00:00+00:00')),
      listing('C2', dates('2026-06-01T10:00:00+00:00')),
      listing('C3', { operation: 'alquiler', price: null, price_rent: 900, ...dates('2026-10-01T10:00:00+00:00') }),
    ]);
    const [c1, c2, c3] = await Promise.all(['C1', 'C2', 'C3'].map((ref) => propertyId(t.db, ref)));
    const actor = { type: 'user' as const, id: users.owner };
    // Marked today (its last write), sold on 10 October: before the 30 days.
    await moveListing(t.db, business, c1, 'vendida', actor, { price: 250_000, on: '2026-10-10' }, NOW);
    // Sold on 20 November, its last write dated before the 30 days (as a feed's later line may date it).
    await moveListing(t.db, business, c2, 'vendida', actor, { price: 240_000, on: '2026-11-20' }, NOW);
    await t.db.updateTable('properties').set({ updated_at: '2026-08-01T10:00:00.000+00:00' }).where('id', '=', c2).execute();
    // Rented on 2 November, 32 days after it came in.
    await moveListing(t.db, business, c3, 'alquilada', actor, { price: 880, on: '2026-11-02' }, NOW);
    const stored = await t.db
      .selectFrom('properties')
      .select(['closed_price', 'closed_on'])
      .where('business_id', '=', business)
      .orderBy('id')
      .execute();
    expect(stored).toEqual([
      { closed_price: 250_000, closed_on: '2026-10-10' },
      { closed_price: 240_000, closed_on: '2026-11-20' },
      { closed_price: 880, closed_on: '2026-11-02' },
    ]);
    const { listings } = await ownerFigures(t.db, business, NOW);
    expect(listings).toEqual([
      { move: 'published', count: 0, medianDays: null },
      { move: 'reservada', count: 0, medianDays: null },
      // C2: 1 June to 20 November, whole days of Madrid's calendar.
      { move: 'vendida', count: 1, medianDays: 172 },
      { move: 'alquilada', count: 1, medianDays: 32 },
    ]);
  });

  it("shows the figures to an owner on GET /console, and neither them nor the keys' count to an agent", async () => {
    const owner = await loggedIn(t.app, 'duena@agencia.example');
    const page = await owner.get('/console');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Cómo va la agencia');
    for (const heading of ['Leads por origen', 'Leads por estado', 'Tiempo hasta el primer contacto, por agente', 'Inmuebles'])
      expect(page.body).toContain(`>${heading}</h3>`);
    expect(page.body.match(/<table>/g)).toHaveLength(4);
    expect(page.body).toContain('Claves activas');
    // No code of a vocabulary shown raw: the statuses are words.
    expect(page.body).not.toMatch(/>(searching_property|active_negotiation|vendida|alquilada|reservada|manual)</);

    // In English too, the sources and statuses in words.
    const english = new Browser(t.app, { 'accept-language': 'en' });
    await english.login('duena@agencia.example');
    const inEnglish = (await english.get('/console')).body;
    for (const words of ['How the agency is doing', 'Leads by source', 'Time to first contact, by agent', 'Days on market (median)'])
      expect(inEnglish).toContain(words);

    const agent = await loggedIn(t.app, 'ana@agencia.example');
    const agents = await agent.get('/console');
    expect(agents.statusCode).toBe(200);
    expect(agents.body).toContain('<h1>');
    expect(agents.body).not.toContain('owner-figures');
    expect(agents.body).not.toContain('Cómo va la agencia');
    expect(agents.body).not.toContain('Claves activas');
  });
});
