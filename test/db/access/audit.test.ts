/**
 * The audit trail (issue 31, CONTRACT §18): creating or revoking keys, inviting or disabling
 * users, changing the channel or webhook endpoints, exporting or erasing a lead and withdrawing
 * listings are each recorded once, with who (a user's id, a key's id, the command line or the
 * system), what and when, and nothing of anyone's personal data; `inmo audit list` and
 * `/console/audit` (owners) list them, newest first.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectChannel, saveAssistantSettings } from '../../../src/services/messaging/channels.ts';
import { addWebhook, disableWebhook, rotateWebhookSecret } from '../../../src/services/integrations/outgoing-webhooks.ts';
import { createApiKey, revokeApiKey } from '../../../src/services/access/api-keys.ts';
import { createUser, disableUser } from '../../../src/services/access/console-users.ts';
import { listAudit } from '../../../src/services/access/audit.ts';
import { moveListing } from '../../../src/services/catalogue/listings.ts';
import { Browser, loggedIn, userWithPassword } from '../../helpers/console.ts';
import { inmo } from '../../helpers/cli.ts';
import { importRecords, listing, propertyId } from '../../helpers/db.ts';
import { get, post, withApp } from '../../helpers/http.ts';

const t = withApp({ each: true });

/** The trail as `[actor_type, actor_id, action, target_type, target_id]`, oldest first. */
const trail = async () =>
  (await listAudit(t.db, t.businessId, { limit: 1000 }))
    .reverse()
    .map((e) => [e.actor_type, e.actor_id, e.action, e.target_type, e.target_id]);

describe('the audit trail', () => {
  it('records each action once, by whom, with no personal data', async () => {
    const owner = await userWithPassword(t.db, t.businessId, 'owner@agencia.example', 'owner');
    const ownerId = String(owner.id);
    const by = { type: 'user' as const, id: owner.id };
    const start = (await trail()).length;

    const key = await createApiKey(t.db, { businessId: t.businessId, scopes: ['leads:read'] }, by);
    await revokeApiKey(t.db, key.key_id, t.businessId, by);
    await revokeApiKey(t.db, key.key_id, t.businessId, by); // already revoked: not again
    const agent = await createUser(t.db, { businessId: t.businessId, email: 'agente.privado@agencia.example', role: 'agent' });
    await disableUser(t.db, agent.id, t.businessId, new Date(), by);
    await disableUser(t.db, agent.id, t.businessId, new Date(), by); // already disabled: not again
    await connectChannel(
      t.db,
      { businessId: t.businessId, provider: 'whatsapp-cloud', phoneNumberId: '88', tokenEnv: 'T', template: 'hola' },
      { T: 'token' },
    );
    await saveAssistantSettings(t.db, t.businessId, { enabled: false, listingUrl: '', url: '', model: '', apiKey: '' }, by);
    const hook = await addWebhook(t.db, { businessId: t.businessId, url: 'http://127.0.0.1:9/hooks' });
    await rotateWebhookSecret(t.db, hook.id);
    await disableWebhook(t.db, hook.id);

    const lead = await post(t.app, '/leads/inquiries', t.key, {
      name: 'Begoña Secreta',
      type: 'buyer',
      phone_number_1: '+34611900001',
      personal_email: 'begona.secreta@example.net',
    });
    const leadId = lead.body.lead_id as number;
    expect((await get(t.app, `/leads/${leadId}/export`, t.key)).status).toBe(200);
    const erased = await t.app.inject({ method: 'DELETE', url: `/v1/ext/leads/${leadId}`, headers: { 'x-api-key': t.key } });
    expect(erased.statusCode).toBe(200);
    await t.app.inject({ method: 'DELETE', url: `/v1/ext/leads/${leadId}`, headers: { 'x-api-key': t.key } }); // again: not recorded again

    await importRecords(t.db, t.businessId, [listing('A-1'), listing('A-2')]);
    const a1 = await propertyId(t.db, 'A-1');
    await moveListing(t.db, t.businessId, a1, 'retirada', by);

    expect((await trail()).slice(start)).toEqual([
      ['user', ownerId, 'key.create', 'api_key', key.key_id],
      ['user', ownerId, 'key.revoke', 'api_key', key.key_id],
      ['cli', null, 'user.invite', 'user', String(agent.id)],
      ['user', ownerId, 'user.disable', 'user', String(agent.id)],
      ['cli', null, 'channel.connect', 'channel', String(t.businessId)],
      ['user', ownerId, 'channel.change', 'channel', String(t.businessId)],
      ['cli', null, 'webhook.add', 'webhook_endpoint', String(hook.id)],
      ['cli', null, 'webhook.rotate_secret', 'webhook_endpoint', String(hook.id)],
      ['cli', null, 'webhook.disable', 'webhook_endpoint', String(hook.id)],
      ['key', t.keyId, 'lead.export', 'lead', String(leadId)],
      ['key', t.keyId, 'lead.erase', 'lead', String(leadId)],
      ['user', ownerId, 'property.withdraw', 'property', String(a1)],
    ]);
    const rows = JSON.stringify(await t.db.selectFrom('audit_log').selectAll().execute());
    for (const personal of ['Begoña', '611900001', 'begona.secreta', 'agente.privado', 'owner@agencia.example'])
      expect(rows).not.toContain(personal);
  });

  it('records the listings a full import withdraws, as the command line’s', async () => {
    await importRecords(t.db, t.businessId, [listing('F-1'), listing('F-2')]);
    const dir = await mkdtemp(join(tmpdir(), 'inmo-audit-'));
    try {
      const file = join(dir, 'catalogue.ndjson');
      await writeFile(file, `${JSON.stringify(listing('F-1'))}\n`);
      const run = await inmo({ DATABASE_URL: t.url }, 'properties', 'import', '--business', String(t.businessId), '--full', file);
      expect(run.code).toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    expect((await trail()).filter((e) => e[2] === 'property.withdraw')).toEqual([
      ['cli', null, 'property.withdraw', 'property', String(await propertyId(t.db, 'F-2'))],
    ]);
  });

  it('is listed by inmo audit list, newest first, page by page', async () => {
    for (let i = 0; i < 3; i++) await createApiKey(t.db, { businessId: t.businessId, scopes: ['leads:read'] });
    const all = await inmo({ DATABASE_URL: t.url }, 'audit', 'list', '--business', String(t.businessId), '--json');
    expect(all.code).toBe(0);
    const entries = all.json as Array<{ id: number; action: string; actor_type: string; created_at: string }>;
    expect(entries.map((e) => e.action)).toEqual(['key.create', 'key.create', 'key.create', 'key.create']);
    expect(entries.map((e) => e.id)).toEqual([...entries.map((e) => e.id)].sort((a, b) => b - a));
    const older = await inmo(
      { DATABASE_URL: t.url },
      'audit',
      'list',
      '--business',
      String(t.businessId),
      '--before',
      String(entries[1].id),
      '--limit',
      '1',
      '--json',
    );
    expect(older.json.map((e: { id: number }) => e.id)).toEqual([entries[2].id]);
    const missing = await inmo({ DATABASE_URL: t.url }, 'audit', 'list', '--business', '999', '--json');
    expect(missing.code).not.toBe(0);
  });

  it('is shown to owners on /console/audit, in words, and to no agent', async () => {
    await userWithPassword(t.db, t.businessId, 'owner@agencia.example', 'owner');
    await userWithPassword(t.db, t.businessId, 'agent@agencia.example', 'agent');
    const owner = await loggedIn(t.app, 'owner@agencia.example');
    const created = await owner.submit('/console/keys', '/console/keys', { name: 'web', scopes: 'leads:read' });
    expect(created.statusCode).toBe(201);
    const page = await owner.get('/console/audit');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Creó una clave de API');
    expect(page.body).toContain('owner@agencia.example');
    const agent = await loggedIn(t.app, 'agent@agencia.example');
    expect((await agent.get('/console/audit')).statusCode).toBe(403);
    expect((await agent.get('/console')).body).not.toContain('/console/audit');
    expect((await new Browser(t.app).get('/console/audit')).statusCode).toBe(303);
  });
});
