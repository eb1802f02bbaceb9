/**
 * Users shown by name (issue 47, CONTRACT §23): an owner names a user when inviting them or
 * later on the users page; the lead page, the leads filter, the audit page and the signed-in line
 * then show the name instead of the e-mail. A name refused changes nothing.
 */
import { describe, expect, it } from 'vitest';
import { loggedIn, userWithPassword } from '../../helpers/console.ts';
import { snapshot } from '../../helpers/db.ts';
import { post, withApp } from '../../helpers/http.ts';
import { insertBusiness } from '../../../src/db/repositories/businesses.ts';
import { nowRfc3339 } from '../../../src/domain/time.ts';

describe('display names', () => {
  const ids: { agent?: number; stranger?: number } = {};
  const t = withApp({
    seed: async ({ db, businessId }) => {
      await userWithPassword(db, businessId, 'owner@uno.example', 'owner');
      ids.agent = (await userWithPassword(db, businessId, 'pablo.agente@uno.example', 'agent')).id;
      const other = await insertBusiness(db, 'Dos', nowRfc3339());
      ids.stranger = (await userWithPassword(db, other.id, 'owner@dos.example', 'owner')).id;
    },
  });

  it('an owner names a user; every page shows the name, never the e-mail', async () => {
    const owner = await loggedIn(t.app, 'owner@uno.example');
    const renamed = await owner.submit('/console/users', `/console/users/${ids.agent}/name`, { name: '  Pablo   Ortega ' });
    expect(renamed.statusCode).toBe(303);
    expect((await owner.get('/console/users')).body).toMatch(/value="Pablo Ortega"/);

    const created = await post(t.app, '/leads/inquiries', t.key, { name: 'Marta', type: 'buyer', phone_number_1: '+34 611 30 00 10' });
    const lead = `/console/leads/${created.body.lead_id}`;
    expect((await owner.submit(lead, `${lead}/assign`, { user_id: String(ids.agent) })).statusCode).toBe(303);
    const page = (await owner.get(lead)).body;
    expect(page).toContain('Pablo Ortega');
    expect(page).not.toContain('pablo.agente@uno.example');
    expect((await owner.get('/console/leads')).body).toMatch(new RegExp(`<option value="${ids.agent}"[^>]*>Pablo Ortega</option>`));
    const audit = (await owner.get('/console/audit')).body;
    expect(audit).toContain('Cambió el nombre de un usuario');
    expect(audit).toContain('Pablo Ortega');

    const agent = await loggedIn(t.app, 'pablo.agente@uno.example');
    expect((await agent.get('/console/leads')).body).toContain('<span class="who">Sesión de Pablo Ortega</span>');
  });

  it('an invitation carries the name; a name refused, another business’s user or an agent change nothing', async () => {
    const owner = await loggedIn(t.app, 'owner@uno.example');
    const invited = await owner.submit('/console/users', '/console/users', { email: 'rosa@uno.example', role: 'agent', name: 'Rosa Gil' });
    expect(invited.statusCode).toBe(201);
    expect(invited.body).toMatch(/value="Rosa Gil"/);

    const agent = await loggedIn(t.app, 'pablo.agente@uno.example');
    const before = await snapshot(t.db);
    const tooLong = await owner.submit('/console/users', `/console/users/${ids.agent}/name`, { name: 'x'.repeat(81) });
    expect(tooLong.statusCode).toBe(422);
    expect(tooLong.body).toContain('Escribe un nombre de 1 a 80 caracteres');
    const control = await owner.submit('/console/users', `/console/users/${ids.agent}/name`, { name: 'Pablo\u0007' });
    expect(control.statusCode).toBe(422);
    const badInvite = await owner.submit('/console/users', '/console/users', {
      email: 'otro@uno.example',
      role: 'agent',
      name: 'y'.repeat(81),
    });
    expect(badInvite.statusCode).toBe(422);
    expect(badInvite.body).toContain('value="otro@uno.example"');
    expect((await owner.submit('/console/users', `/console/users/${ids.stranger}/name`, { name: 'Intruso' })).statusCode).toBe(404);
    expect((await agent.submit('/console/leads', `/console/users/${ids.agent}/name`, { name: 'Yo mismo' })).statusCode).toBe(403);
    expect(await snapshot(t.db)).toBe(before);
  });
});
