/**
 * The owner's reports on its lead page (issue 58 item 4, CONTRACT §24): how often they go (7, 14
 * or 30 days, or the installation's), saved with CSRF and audited, another number refused in words
 * with nothing changed; the reports sent listed and each opened as the owner sees it; another
 * owner's report a 404; not offered on a searching lead's page.
 */
import { describe, expect, it } from 'vitest';
import { insertOwnerReport } from '../../../src/db/repositories/owner-reports.ts';
import { loggedIn, userWithPassword } from '../../helpers/console.ts';
import { importRecords, listing, snapshot } from '../../helpers/db.ts';
import { withApp } from '../../helpers/http.ts';
import { leadOfType, linkOwner } from '../../helpers/leads.ts';

const t = withApp({
  each: true,
  seed: async ({ db, businessId }) => {
    await userWithPassword(db, businessId, 'ana@inmo.example', 'agent');
    await importRecords(db, businessId, [listing('CASA-1', { title: 'Piso en Delicias', price: 250000 })]);
  },
});

describe('an owner’s reports on its lead page', () => {
  it('saves how often they go, refuses another number, and opens each report sent', async () => {
    const owner = await leadOfType(t.db, t.businessId, 'propietario', '+34612500001', 'Rosa Propietaria');
    const other = await leadOfType(t.db, t.businessId, 'propietario', '+34612500002', 'Otro Propietario');
    const searcher = await leadOfType(t.db, t.businessId, 'demandante', '+34612500003', 'Luis Buscador');
    await linkOwner(t.db, owner, ['CASA-1']);
    const ana = await loggedIn(t.app, 'ana@inmo.example');
    const page = `/console/leads/${owner}`;

    const first = await ana.get(page);
    expect(first.body).toContain('Informes al propietario');
    expect(first.body).toContain('<option value="" selected>Cada 7 días (lo habitual de la agencia)</option>');
    expect(first.body).toContain('Aún no se le ha enviado ningún informe');
    expect((await ana.get(`/console/leads/${searcher}`)).body).not.toContain('Informes al propietario');

    const saved = await ana.submit(page, `${page}/owner-reports`, { days: '14' });
    expect([saved.statusCode, saved.headers.location]).toEqual([303, `${page}#h-owner-reports`]);
    expect(
      (await t.db.selectFrom('leads').select('owner_report_days').where('id', '=', owner).executeTakeFirstOrThrow()).owner_report_days,
    ).toBe(14);
    expect((await ana.get(page)).body).toContain('<option value="14" selected>Cada 14 días</option>');
    const audit = await t.db
      .selectFrom('audit_log')
      .select(['action', 'target_id'])
      .where('action', '=', 'lead.owner_report_days')
      .execute();
    expect(audit).toEqual([{ action: 'lead.owner_report_days', target_id: String(owner) }]);

    const before = await snapshot(t.db);
    const refused = await ana.submit(page, `${page}/owner-reports`, { days: '10' });
    expect(refused.statusCode).toBe(422);
    expect(refused.body).toContain('Elija 7, 14 o 30 días.');
    expect(await snapshot(t.db)).toBe(before);
    // Back to the installation's.
    await ana.submit(page, `${page}/owner-reports`, { days: '' });
    expect(
      (await t.db.selectFrom('leads').select('owner_report_days').where('id', '=', owner).executeTakeFirstOrThrow()).owner_report_days,
    ).toBeNull();

    const figures = { from: '2030-03-01T09:00:00.000+00:00', to: '2030-03-08T09:00:00.000+00:00', listings: [] };
    const report = await insertOwnerReport(t.db, {
      business_id: t.businessId,
      lead_id: owner,
      period_from: figures.from,
      period_to: figures.to,
      figures: JSON.stringify(figures),
      language: 'fr',
      message_id: null,
      page_token_hash: null,
      created_at: figures.to,
    });
    const listed = await ana.get(page);
    expect(listed.body).toContain(`<a href="/console/leads/${owner}/reports/${report}">Del `);
    const shown = await ana.get(`/console/leads/${owner}/reports/${report}`);
    expect(shown.statusCode).toBe(200);
    // As the owner reads it: in French.
    expect(shown.body).toContain('Rapport pour le propriétaire');
    expect((await ana.get(`/console/leads/${other}/reports/${report}`)).statusCode).toBe(404);
  });
});
