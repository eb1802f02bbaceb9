/**
 * The business's time zone and viewing hours on the console's settings page (CONTRACT §20): an
 * owner sees them and changes them; what cannot be read is refused beside its field with
 * nothing stored; agents and forms without their token change nothing.
 */
import { describe, expect, it } from 'vitest';
import { businessClock } from '../../../src/services/viewings/clock.ts';
import { loggedIn, userWithPassword } from '../../helpers/console.ts';
import { snapshot } from '../../helpers/db.ts';
import { withApp } from '../../helpers/http.ts';

describe("the business's clock in the console's settings", () => {
  const t = withApp();
  const form = (overrides: Record<string, string> = {}) => ({
    timezone: 'Europe/Madrid',
    hours_mon: '10:00-14:00, 16:00-20:00',
    hours_tue: '10:00-14:00, 16:00-20:00',
    hours_wed: '10:00-14:00, 16:00-20:00',
    hours_thu: '10:00-14:00, 16:00-20:00',
    hours_fri: '10:00-14:00, 16:00-20:00',
    hours_sat: '10:00-14:00',
    hours_sun: '',
    ...overrides,
  });

  it('shows the default zone and hours, and saves others with an audit entry', async () => {
    await userWithPassword(t.db, t.businessId, 'duena@reloj.example', 'owner');
    const owner = await loggedIn(t.app, 'duena@reloj.example');
    const page = (await owner.get('/console/settings')).body;
    expect(page).toContain('Zona horaria y horario de visitas');
    expect(page).toMatch(/id="timezone" name="timezone"[^>]*value="Europe\/Madrid"/);
    expect(page).toMatch(/id="hours-mon" name="hours_mon" value="10:00-14:00, 16:00-20:00"/);
    expect(page).toMatch(/id="hours-sun" name="hours_sun" value=""/);
    expect(page).toContain('<option value="Atlantic/Canary">');

    const saved = await owner.submit(
      '/console/settings',
      '/console/settings/clock',
      form({ timezone: 'Atlantic/Canary', hours_mon: '9:30-13:30', hours_sat: '', hours_sun: '11:00 – 13:00' }),
    );
    expect([saved.statusCode, saved.headers.location]).toEqual([303, '/console/settings?saved=clock']);
    const clock = await businessClock(t.db, t.businessId);
    expect(clock.zone).toBe('Atlantic/Canary');
    expect(clock.hours).toEqual({
      mon: [['09:30', '13:30']],
      tue: [
        ['10:00', '14:00'],
        ['16:00', '20:00'],
      ],
      wed: [
        ['10:00', '14:00'],
        ['16:00', '20:00'],
      ],
      thu: [
        ['10:00', '14:00'],
        ['16:00', '20:00'],
      ],
      fri: [
        ['10:00', '14:00'],
        ['16:00', '20:00'],
      ],
      sun: [['11:00', '13:00']],
    });
    const after = (await owner.get('/console/settings?saved=clock')).body;
    expect(after).toContain('Zona horaria y horario guardados.');
    expect(after).toMatch(/id="hours-sat" name="hours_sat" value=""/);
    const audit = await t.db.selectFrom('audit_log').select(['action', 'target_id']).where('action', '=', 'business.clock').execute();
    expect(audit).toEqual([{ action: 'business.clock', target_id: String(t.businessId) }]);
    expect((await owner.get('/console/audit')).body).toContain('Cambió la zona horaria o el horario de visitas');
  });

  it('refuses a zone or a day it cannot read beside the field, and agents or a form without its token, storing nothing', async () => {
    await userWithPassword(t.db, t.businessId, 'agente@reloj.example', 'agent');
    const owner = await loggedIn(t.app, 'duena@reloj.example');
    const agent = await loggedIn(t.app, 'agente@reloj.example');
    const before = await snapshot(t.db);
    const bad = await owner.submit(
      '/console/settings',
      '/console/settings/clock',
      form({ timezone: 'Mars/Olympus', hours_mon: '10-14', hours_tue: '14:00-10:00', hours_wed: '10:00-14:00, 13:00-15:00' }),
    );
    expect(bad.statusCode).toBe(422);
    for (const id of ['timezone', 'hours-mon', 'hours-tue', 'hours-wed'])
      expect(bad.body).toMatch(new RegExp(`id="${id}"[^>]*aria-invalid="true"`));
    expect(bad.body).not.toMatch(/id="hours-thu"[^>]*aria-invalid/);
    expect(bad.body).toContain('No es una zona horaria que conozcamos');
    // What was typed stays in the form.
    expect(bad.body).toContain('value="Mars/Olympus"');
    expect(bad.body).toContain('value="10:00-14:00, 13:00-15:00"');
    expect((await agent.submit('/console', '/console/settings/clock', form({ timezone: 'Europe/Lisbon' }))).statusCode).toBe(403);
    expect((await owner.request('POST', '/console/settings/clock', form({ timezone: 'Europe/Lisbon' }))).statusCode).toBe(403);
    expect(await snapshot(t.db)).toBe(before);
  });
});
