/**
 * Leads worked in the console (issue 29, CONTRACT §16), on this process's engine: status with a
 * reason, notes with their author, assignment by role, each with `updated_at` (GET
 * /leads?updated_since=), `lead.updated` (GET /events) and a history line newest first; every
 * refusal changes nothing; another business's lead is a 404; forms need their CSRF token.
 */
import { describe, expect, it } from 'vitest';
import { insertBusiness } from '../../../src/db/repositories/businesses.ts';
import { Worker } from '../../../src/jobs/worker.ts';
import { insertInbound, setConversationState, touchConversation } from '../../../src/db/repositories/messaging.ts';
import { nowRfc3339 } from '../../../src/domain/time.ts';
import { createLeadByHand } from '../../../src/services/leads/leads.ts';
import { listLeadHistory } from '../../../src/services/leads/pipeline.ts';
import { assistantOverview, connectChannel } from '../../../src/services/messaging/channels.ts';
import { Browser, loggedIn, userWithPassword } from '../../helpers/console.ts';
import { snapshot } from '../../helpers/db.ts';
import { get, post, withApp } from '../../helpers/http.ts';
import { startFakeGraph } from '../../helpers/fake-graph.ts';

describe('leads worked in the console', () => {
  let theirs = 0;
  let ownerId = 0;
  let agentId = 0;
  let otherAgentId = 0;
  const t = withApp({
    each: true,
    seed: async ({ db, businessId }) => {
      ownerId = (await userWithPassword(db, businessId, 'owner@uno.example', 'owner')).id;
      agentId = (await userWithPassword(db, businessId, 'agent@uno.example', 'agent')).id;
      otherAgentId = (await userWithPassword(db, businessId, 'otra@uno.example', 'agent')).id;
      const other = await insertBusiness(db, 'Agencia Dos', nowRfc3339());
      theirs = (await createLeadByHand(db, { businessId: other.id, phone: '+34 611 000 001', name: 'Ajeno' })).id;
    },
  });

  const newLead = async () => (await createLeadByHand(t.db, { businessId: t.businessId, phone: '+34 612 345 678', name: 'Lucía' })).id;
  /** The lead as GET /leads/{id} shows it. */
  const apiLead = async (id: number) => (await get(t.app, `/leads/${id}`, t.key)).body as { status: string; updated_at: string };
  /** The `lead.updated` events of a lead: the status each carried. */
  const updates = async (id: number) => {
    const events = (await get(t.app, '/events?limit=100', t.key)).body.data as Array<{
      type: string;
      data: { lead: { id: number; status: string } };
    }>;
    return events.filter((e) => e.type === 'lead.updated' && e.data.lead.id === id).map((e) => e.data.lead.status);
  };

  it('an agent takes a lead, moves it to active_negotiation with a reason and adds a note: the API, the events and the history see each change', async () => {
    const id = await newLead();
    await new Promise((resolve) => setTimeout(resolve, 10));
    // After the lead was created: only a change can bring it into updated_since.
    const mark = new Date().toISOString();
    const agent = await loggedIn(t.app, 'agent@uno.example');
    const page = `/console/leads/${id}`;

    const taken = await agent.submit(page, `${page}/assign`, { user_id: String(agentId) });
    expect(taken.statusCode).toBe(303);
    const moved = await agent.submit(page, `${page}/status`, { status: 'active_negotiation', reason: 'Visita el jueves' });
    expect(moved.statusCode).toBe(303);
    expect(moved.headers.location).toBe(`${page}#h-work`);
    const noted = await agent.submit(page, `${page}/notes`, { text: '  Llamada: quiere ver el piso de Delicias.  ' });
    expect(noted.statusCode).toBe(303);

    const after = await apiLead(id);
    expect(after.status).toBe('active_negotiation');
    // updated_since is inclusive: a change in the very millisecond of the mark counts.
    expect(Date.parse(after.updated_at)).toBeGreaterThanOrEqual(Date.parse(mark));
    const since = (await get(t.app, `/leads?updated_since=${encodeURIComponent(mark)}`, t.key)).body.data as Array<{ id: number }>;
    expect(since.map((l) => l.id)).toEqual([id]);
    expect(await updates(id)).toEqual(['new', 'active_negotiation', 'active_negotiation']);

    const history = await listLeadHistory(t.db, t.businessId, id);
    expect(history.map((h) => [h.change, h.detail, h.by])).toEqual([
      ['note', {}, 'agent@uno.example'],
      ['status', { from: 'new', to: 'active_negotiation', reason: 'Visita el jueves' }, 'agent@uno.example'],
      ['assign', { from: null, to: agentId }, 'agent@uno.example'],
    ]);
    const shown = await agent.get(page);
    expect(shown.body).toContain('En negociación');
    expect(shown.body).toContain('Llamada: quiere ver el piso de Delicias.');
    expect(shown.body).toContain('por agent@uno.example');
    expect(shown.body).toContain('Estado: Nuevo → En negociación');
    // The history never holds a note's text.
    const rows = await t.db.selectFrom('lead_history').select('detail').execute();
    expect(rows.map((r) => r.detail).join()).not.toContain('Delicias');
  });

  it('an agent may only take a lead nobody handles; an owner assigns and unassigns anyone active', async () => {
    const id = await newLead();
    const page = `/console/leads/${id}`;
    const agent = await loggedIn(t.app, 'agent@uno.example');
    const before = await snapshot(t.db);
    // Handing it to someone else: refused, nothing changed.
    const refused = await agent.submit(page, `${page}/assign`, { user_id: String(otherAgentId) });
    expect(refused.statusCode).toBe(403);
    expect(refused.body).toContain('Solo un propietario asigna leads');
    expect(await snapshot(t.db)).toBe(before);

    const owner = await loggedIn(t.app, 'owner@uno.example');
    expect((await owner.submit(page, `${page}/assign`, { user_id: String(otherAgentId) })).statusCode).toBe(303);
    // Taken by another: the agent can no longer take it, nor unassign it.
    const afterAssign = await snapshot(t.db);
    expect((await agent.submit(page, `${page}/assign`, { user_id: String(agentId) })).statusCode).toBe(403);
    expect((await agent.submit(page, `${page}/assign`, { user_id: '' })).statusCode).toBe(403);
    expect(await snapshot(t.db)).toBe(afterAssign);
    // The owner unassigns; an unknown or foreign user is refused.
    expect((await owner.submit(page, `${page}/assign`, { user_id: '' })).statusCode).toBe(303);
    const unassigned = await snapshot(t.db);
    for (const userId of ['999999', '99999999999999', 'abc']) {
      const bad = await owner.submit(page, `${page}/assign`, { user_id: userId });
      expect(bad.statusCode).toBe(400);
    }
    expect(await snapshot(t.db)).toBe(unassigned);
    const history = await listLeadHistory(t.db, t.businessId, id);
    expect(history.map((h) => [h.detail, h.by])).toEqual([
      [{ from: otherAgentId, to: null }, 'owner@uno.example'],
      [{ from: null, to: otherAgentId }, 'owner@uno.example'],
    ]);
    expect(ownerId).toBeGreaterThan(0);
  });

  it('refuses a status that is not one of the five, a blank note and an overlong reason, changing nothing', async () => {
    const id = await newLead();
    const page = `/console/leads/${id}`;
    const agent = await loggedIn(t.app, 'agent@uno.example');
    const before = await snapshot(t.db);
    const bad = await agent.submit(page, `${page}/status`, { status: 'won', reason: '' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('Elige uno de los estados de la lista.');
    const blank = await agent.submit(page, `${page}/notes`, { text: '   ' });
    expect(blank.statusCode).toBe(400);
    expect(blank.body).toContain('id="note-problem"');
    const long = await agent.submit(page, `${page}/status`, { status: 'closed', reason: 'x'.repeat(501) });
    expect(long.statusCode).toBe(422);
    // The same status again changes nothing either.
    expect((await agent.submit(page, `${page}/status`, { status: 'new', reason: '' })).statusCode).toBe(303);
    expect(await snapshot(t.db)).toBe(before);
    expect(await updates(id)).toEqual([]);
  });

  it('shows a request that came again about the lead, with its message and page, and marks the lead as contacted again', async () => {
    const id = await newLead();
    const before = await apiLead(id);
    const again = await post(t.app, '/leads/inquiries', t.key, {
      name: 'Lucía',
      type: 'buyer',
      phone_number_1: '612 345 678',
      source: 'idealista',
      sourcePage: 'https://agencia.example/atico-9',
      notes: 'También me interesa este.',
    });
    expect(again.status).toBe(409);
    const agent = await loggedIn(t.app, 'agent@uno.example');
    const page = (await agent.get(`/console/leads/${id}`)).body;
    expect(page).toContain('Volvió a contactar:');
    expect(page).toMatch(/<h2 id="h-again">Volvió a contactar<\/h2>/);
    expect(page).toContain('Consulta desde una web o un portal');
    expect(page).toContain('origen: idealista');
    expect(page).toContain('También me interesa este.');
    expect(page).toContain('https://agencia.example/atico-9');
    // The lead itself did not change.
    expect(await apiLead(id)).toEqual(before);
    // A person (or a script with the public key) writing again and again: the page lists the newest 20.
    for (let i = 0; i < 21; i++) {
      const more = await post(t.app, '/leads/inquiries', t.key, {
        name: 'Lucía',
        type: 'buyer',
        phone_number_1: '612 345 678',
        notes: `Otra vez ${i}`,
      });
      expect(more.status).toBe(409);
    }
    const long = (await agent.get(`/console/leads/${id}`)).body;
    expect(long).toContain('Otra vez 20');
    expect(long).not.toContain('Otra vez 0<');
    expect(long).toContain('y 2 más, en la exportación de sus datos');
  });

  it("another business's lead is not found, and a form without its CSRF token changes nothing", async () => {
    const id = await newLead();
    const owner = await loggedIn(t.app, 'owner@uno.example');
    const before = await snapshot(t.db);
    const token = await owner.token(`/console/leads/${id}`);
    for (const [action, form] of [
      ['status', { status: 'closed', reason: '' }],
      ['notes', { text: 'Hola' }],
      ['assign', { user_id: String(ownerId) }],
      ['follow-ups/1/done', {}],
      ['follow-ups/1/move', { day: '2030-01-01' }],
    ] as const) {
      expect((await owner.request('POST', `/console/leads/${theirs}/${action}`, { _csrf: token, ...form })).statusCode).toBe(404);
      expect((await owner.request('POST', `/console/leads/${id}/${action}`, { ...form })).statusCode).toBe(403);
    }
    expect(await snapshot(t.db)).toBe(before);
  });

  it('shows every status and lead type with its label in Spanish and English', async () => {
    const id = await newLead();
    for (const [language, labels] of [
      ['es', ['Nuevo', 'Buscando', 'En negociación', 'Cerrado', 'Inactivo', 'Demandante']],
      ['en', ['New', 'Searching', 'In negotiation', 'Closed', 'Inactive', 'Buyer or tenant']],
    ] as const) {
      const browser = new Browser(t.app, { 'accept-language': language });
      await browser.login('owner@uno.example');
      const page = await browser.get(`/console/leads/${id}`);
      for (const label of labels) expect(page.body).toContain(`>${label}<`);
      expect(page.body).not.toContain('>active_negotiation<');
    }
  });

  it('the list filters by who handles a lead (me, nobody, a person) and by name, phone or e-mail without case or accents, with counts by status', async () => {
    const mine = await newLead();
    const inquiry = { name: 'Pedro Núñez', type: 'buyer', phone_number_1: '+34 699 000 111', personal_email: 'pedro.gil@correo.example' };
    const created = await post(t.app, '/leads/inquiries', t.key, inquiry);
    expect(created.status).toBe(200);
    const free = created.body.lead_id as number;
    const agent = await loggedIn(t.app, 'agent@uno.example');
    await agent.submit(`/console/leads/${mine}`, `/console/leads/${mine}/assign`, { user_id: String(agentId) });
    await agent.submit(`/console/leads/${mine}`, `/console/leads/${mine}/status`, { status: 'closed', reason: '' });
    const ids = async (query: string) => {
      const page = await agent.get(`/console/leads?${query}`);
      expect(page.statusCode).toBe(200);
      return [...page.body.matchAll(/href="\/console\/leads\/(\d+)"/g)].map((m) => Number(m[1]));
    };
    expect(await ids('assigned=me')).toEqual([mine]);
    expect(await ids('assigned=none')).toEqual([free]);
    expect(await ids(`assigned=${otherAgentId}`)).toEqual([]);
    expect(await ids('q=PEDRO.GIL@')).toEqual([free]);
    expect(await ids('q=699 000')).toEqual([free]);
    expect(await ids('q=Luc')).toEqual([mine]);
    // Accents and case either way: typed without them, or with them where the name has none.
    expect(await ids('q=lucia')).toEqual([mine]);
    expect(await ids('q=LUCÍA')).toEqual([mine]);
    expect(await ids('q=nunez')).toEqual([free]);
    expect(await ids('q=pedro%20n%C3%BA%C3%B1')).toEqual([free]);
    expect(await ids('q=pédro.gil')).toEqual([free]);
    // A LIKE wildcard is a character like any other.
    expect(await ids('q=l_c')).toEqual([]);
    const list = (await agent.get('/console/leads?assigned=none')).body;
    // Counts by status within the other filters: the unassigned lead is new, none is closed.
    expect(list).toMatch(/Nuevo <span class="count">1<\/span>/);
    expect(list).toMatch(/Cerrado <span class="count">0<\/span>/);
    expect((await agent.get('/console/leads')).body).toMatch(/Cerrado <span class="count">1<\/span>/);
  });

  it('the inbox lists conversations waiting for an agent first, with unread counts that drop once the lead is opened', async () => {
    const writes = async (name: string, phone: string, texts: string[], at: string) => {
      const id = (await createLeadByHand(t.db, { businessId: t.businessId, phone, name })).id;
      for (const [i, body] of texts.entries()) {
        await insertInbound(t.db, {
          business_id: t.businessId,
          lead_id: id,
          kind: 'text',
          author: null,
          body,
          provider_message_id: `wamid.${id}.${i}`,
          created_at: at,
          updated_at: at,
        });
      }
      await touchConversation(t.db, { leadId: id, businessId: t.businessId, at });
      return id;
    };
    const recent = await writes('Ana', '+34 600 111 222', ['Hola', '¿Sigue disponible?'], '2026-11-24T10:00:00Z');
    const waiting = await writes('Bruno', '+34 600 333 444', ['Quiero hablar con una persona'], '2026-11-23T09:00:00Z');
    await setConversationState(t.db, waiting, { state: 'waiting_for_agent', updated_at: '2026-11-23T09:00:01Z' });
    const agent = await loggedIn(t.app, 'agent@uno.example');
    const inbox = async () => {
      const page = await agent.get('/console/inbox');
      expect(page.statusCode).toBe(200);
      return [
        ...page.body.matchAll(
          /<li class="conversation[^"]*">\s*<a href="\/console\/leads\/(\d+)#h-thread"><strong>[^<]*<\/strong><\/a>[\s\S]*?(?:<span class="badge">(\d+) sin leer<\/span>)?\s*<time/g,
        ),
      ].map((m) => [Number(m[1]), Number(m[2] ?? 0)]);
    };
    // Bruno waits for an agent: first, though Ana wrote later.
    expect(await inbox()).toEqual([
      [waiting, 1],
      [recent, 2],
    ]);
    // A reply box only where WhatsApp's 24-hour window is open.
    const open = new Date(Date.now() + 3_600_000).toISOString();
    await t.db.updateTable('conversations').set({ window_open_until: open }).where('lead_id', '=', waiting).execute();
    const boxes = (await agent.get('/console/inbox')).body;
    expect(boxes).toContain(`action="/console/leads/${waiting}/reply"`);
    expect(boxes).not.toContain(`action="/console/leads/${recent}/reply"`);
    expect((await agent.get(`/console/leads/${recent}`)).statusCode).toBe(200);
    expect(await inbox()).toEqual([
      [waiting, 1],
      [recent, 0],
    ]);
    // Another business's agent sees none of them.
    const other = await insertBusiness(t.db, 'Agencia Tres', nowRfc3339());
    await userWithPassword(t.db, other.id, 'agente@tres.example', 'agent');
    const stranger = await loggedIn(t.app, 'agente@tres.example');
    expect((await stranger.get('/console/inbox')).body).not.toContain('Bruno');
    expect((await stranger.get(`/console/leads/${waiting}`)).statusCode).toBe(404);
  });

  it("the assistant's page (owners) switches it off, sets its listing link and model, keeps the key write-only, and refuses bad input changing nothing", async () => {
    const owner = await loggedIn(t.app, 'owner@uno.example');
    const none = await owner.get('/console/assistant');
    expect(none.statusCode).toBe(200);
    expect(none.body).toContain('Conecta antes WhatsApp');
    await connectChannel(
      t.db,
      { businessId: t.businessId, provider: 'whatsapp-cloud', phoneNumberId: '1099', tokenEnv: 'T', template: 'bienvenida' },
      { T: 'EAAG-token' },
    );
    const saved = await owner.submit('/console/assistant', '/console/assistant', {
      enabled: '',
      listing_url: 'https://agencia.example/inmueble/{id}',
      url: 'https://api.openai.example/v1',
      model: 'gpt-mini',
      api_key: 'sk-secreto-de-prueba',
    });
    expect(saved.statusCode).toBe(303);
    expect(await assistantOverview(t.db, t.businessId)).toEqual({
      enabled: false,
      listing_url: 'https://agencia.example/inmueble/{id}',
      kind: 'chat-completions',
      url: 'https://api.openai.example/v1',
      model: 'gpt-mini',
      key_stored: true,
    });
    const page = (await owner.get('/console/assistant?saved=1')).body;
    expect(page).toContain('apagado: cada mensaje espera a un agente');
    expect(page).not.toContain('sk-secreto-de-prueba');
    // The key is sealed at rest, never in clear.
    const stored = await t.db.selectFrom('channels').select('assistant').executeTakeFirstOrThrow();
    expect(stored.assistant).not.toContain('sk-secreto-de-prueba');
    // Saved again with the key left blank: kept while the URL stays.
    await owner.submit('/console/assistant', '/console/assistant', {
      enabled: '1',
      listing_url: '',
      url: 'https://api.openai.example/v1',
      model: 'gpt-mini',
      api_key: '',
    });
    expect(await assistantOverview(t.db, t.businessId)).toMatchObject({ enabled: true, listing_url: null, key_stored: true });
    // Another URL does not take the stored key with it.
    await owner.submit('/console/assistant', '/console/assistant', {
      enabled: '1',
      listing_url: '',
      url: 'https://otra.example/v1',
      model: 'gpt-mini',
      api_key: '',
    });
    expect(await assistantOverview(t.db, t.businessId)).toMatchObject({ url: 'https://otra.example/v1', key_stored: false });

    const agent = await loggedIn(t.app, 'agent@uno.example');
    const before = await snapshot(t.db);
    for (const [form, message] of [
      [{ url: 'ftp://api.example', model: 'x' }, 'La URL de la API debe ser http(s)'],
      [{ url: 'https://api.example/v1', model: '  ' }, 'Escribe el nombre del modelo.'],
      [{ url: '', model: '', listing_url: 'https://agencia.example/sin-marcador' }, 'con {id} o {ref}'],
    ] as const) {
      const refused = await owner.submit('/console/assistant', '/console/assistant', {
        enabled: '1',
        listing_url: '',
        api_key: '',
        ...form,
      });
      expect(refused.statusCode).toBe(422);
      expect(refused.body).toContain(message);
    }
    expect(await snapshot(t.db)).toBe(before);
    expect((await agent.get('/console/assistant')).statusCode).toBe(403);
    expect(
      (await owner.request('POST', '/console/assistant', { enabled: '', url: '', model: '', listing_url: '', api_key: '' })).statusCode,
    ).toBe(403);
    expect((await owner.request('POST', '/console/assistant/test', { test_phone: '612000999', test_text: 'Hola' })).statusCode).toBe(403);
    // An agent with a good token is still refused the owners' forms.
    const agentToken = await agent.token('/console/leads');
    const asAgent = (path: string, form: Record<string, string>) => agent.request('POST', path, { _csrf: agentToken, ...form });
    expect((await asAgent('/console/assistant', { enabled: '', url: '', model: '', listing_url: '', api_key: '' })).statusCode).toBe(403);
    expect((await asAgent('/console/assistant/test', { test_phone: '612000999', test_text: 'Hola' })).statusCode).toBe(403);
    expect(await snapshot(t.db)).toBe(before);
  });

  it("moves a lead's scheduled follow-up to another day with its job, and marks a due one done; anything else changes nothing", async () => {
    const inquiry = await post(t.app, '/leads/inquiries', t.key, {
      name: 'Marta',
      phone_number_1: '+34 611 222 333',
      type: 'demandante',
      search_preferences: [{ operations: ['alquiler'] }],
    });
    const leadId = inquiry.body.lead_id as number;
    await new Worker({ db: t.db, settings: { pollMs: 20 } }).drain();
    const followUp = await t.db.selectFrom('follow_ups').selectAll().where('lead_id', '=', leadId).executeTakeFirstOrThrow();
    expect(followUp.state).toBe('scheduled');
    const owner = await loggedIn(t.app, 'owner@uno.example');
    const page = `/console/leads/${leadId}`;
    const action = (what: string, id = followUp.id) => `${page}/follow-ups/${id}/${what}`;
    const day = new Date(Date.now() + 5 * 86_400_000).toISOString().slice(0, 10);

    const other = await newLead();
    const before = await snapshot(t.db);
    for (const bad of ['2020-01-01', new Date().toISOString().slice(0, 10), '2026-13-40', 'mañana']) {
      expect((await owner.submit(page, action('move'), { day: bad })).statusCode).toBe(400);
    }
    // Not due yet: cannot be done.
    expect((await owner.submit(page, action('done'), {})).statusCode).toBe(409);
    // Another lead's follow-up, or none.
    expect((await owner.submit(page, `/console/leads/${other}/follow-ups/${followUp.id}/done`, {})).statusCode).toBe(404);
    expect((await owner.submit(page, action('done', 999_999), {})).statusCode).toBe(404);
    expect(await snapshot(t.db)).toBe(before);

    expect((await owner.submit(page, action('move'), { day })).statusCode).toBe(303);
    const moved = await t.db.selectFrom('follow_ups').selectAll().where('id', '=', followUp.id).executeTakeFirstOrThrow();
    expect(moved.due_at).toBe(`${day}${followUp.due_at.slice(10)}`);
    const jobs = await t.db
      .selectFrom('jobs')
      .select(['run_at', 'payload'])
      .where('lead_id', '=', leadId)
      .where('kind', '=', 'follow_up')
      .execute();
    expect(jobs.map((j) => [j.run_at, JSON.parse(j.payload!).follow_up_id])).toEqual([[moved.due_at, followUp.id]]);

    // Come due (as its job does), it is marked done.
    await t.db.updateTable('follow_ups').set({ state: 'due' }).where('id', '=', followUp.id).execute();
    expect((await owner.submit(page, action('done'), {})).statusCode).toBe(303);
    expect((await t.db.selectFrom('follow_ups').select('state').where('id', '=', followUp.id).executeTakeFirstOrThrow()).state).toBe(
      'done',
    );
    const history = await listLeadHistory(t.db, t.businessId, leadId);
    expect(history.map((h) => h.detail)).toEqual([
      { id: followUp.id, done: true },
      { id: followUp.id, from: followUp.due_at, to: moved.due_at },
    ]);
    expect(await updates(leadId)).toEqual(['searching_property', 'searching_property']);
    expect((await owner.get(page)).body).toContain('Seguimiento hecho');
  });

  it("the assistant page's test sends the assistant's answer to the owner's number, and says why nothing went", async () => {
    const graph = await startFakeGraph();
    try {
      await connectChannel(
        t.db,
        {
          businessId: t.businessId,
          provider: 'whatsapp-cloud',
          phoneNumberId: '1099',
          tokenEnv: 'T',
          template: 'bienvenida',
          baseUrl: graph.baseUrl,
        },
        { T: 'EAAG-token' },
      );
      const owner = await loggedIn(t.app, 'owner@uno.example');
      const sent = await owner.submit('/console/assistant', '/console/assistant/test', {
        test_phone: '612 000 999',
        test_text: 'Hola, busco piso de alquiler',
      });
      expect(sent.statusCode).toBe(200);
      const texts = graph.requests.filter((r) => r.body?.type === 'text');
      expect(texts).toHaveLength(1);
      expect(texts[0].body).toMatchObject({ to: '+34612000999' });
      const answer = texts[0].body.text.body as string;
      expect(answer.length).toBeGreaterThan(10);
      expect(sent.body).toContain('Respuesta enviada a +34612000999.');
      expect(sent.body).toContain(answer.split('\n')[0].replace(/&/g, '&amp;').slice(0, 30));

      const refused = await owner.submit('/console/assistant', '/console/assistant/test', { test_phone: 'no', test_text: 'Hola' });
      expect(refused.statusCode).toBe(422);
      const optOut = await owner.submit('/console/assistant', '/console/assistant/test', { test_phone: '612 000 999', test_text: 'BAJA' });
      expect(optOut.body).toContain('El asistente no contesta a ese mensaje');
      expect(graph.requests.filter((r) => r.body?.type === 'text')).toHaveLength(1);
    } finally {
      await graph.close();
    }
  });
});
