/**
 * A mandate signed remotely (issue 58 item 3, CONTRACT §24) on both engines: the console e-mails
 * the owner a one-use link (a real SMTP server, test/helpers/smtp.ts) in the owner's language;
 * only the token's hash is kept; `/m/<token>` shows the draft and its PDF, refuses a wrong DNI
 * beside the field (422, nothing stored), signs it once (`signed_how` `link`, the PDF says so), and
 * says so again after; an expired link (a fixed clock) and one whose draft was replaced sign nothing.
 */
import type { ParsedMail } from 'mailparser';
import { describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../../src/jobs/clock.ts';
import { Worker } from '../../../src/jobs/worker.ts';
import { CLI } from '../../../src/services/access/audit.ts';
import { connectEmail } from '../../../src/services/messaging/email.ts';
import { sendMandateLink } from '../../../src/services/owners/mandate-links.ts';
import { mandatePdf, saveMandateDraft } from '../../../src/services/owners/mandates.ts';
import { importRecords, listing, propertyId, snapshot } from '../../helpers/db.ts';
import { withApp } from '../../helpers/http.ts';
import { mandateTerms } from '../../helpers/mandates.ts';
import { leadOfType, linkOwner } from '../../helpers/leads.ts';
import { withNoticeServers } from '../../helpers/notice-servers.ts';
import { readPdf } from '../../helpers/pdf.ts';
import { drawnSignature } from '../../helpers/signature.ts';

const NOW = '2026-03-02T09:00:00Z';
const t = withApp({
  each: true,
  seed: async ({ db, businessId }) => {
    await importRecords(db, businessId, [listing('CASA-1', { title: 'Piso en Delicias', price: 250000 })]);
  },
});
const servers = withNoticeServers(NOW);

const drain = (at = NOW) =>
  new Worker({ db: t.db, clock: new ManualClock(new Date(Date.parse(at) + 1000)), settings: { pollMs: 20 } }).drain();

/** An owner of CASA-1 with an e-mail address, a draft, the business's e-mail connected. @returns the listing's id. */
async function drafted(language = 'es'): Promise<number> {
  await connectEmail(t.db, { businessId: t.businessId, url: servers.smtp.url, from: 'hola@agency.example', replyTo: null });
  const owner = await leadOfType(t.db, t.businessId, 'propietario', '+34612600001', 'Rosa Propietaria');
  await t.db
    .updateTable('leads')
    .set({ personal_email: 'rosa@example.com', preferred_language: language })
    .where('id', '=', owner)
    .execute();
  await linkOwner(t.db, owner, ['CASA-1']);
  const house = await propertyId(t.db, 'CASA-1');
  await saveMandateDraft(t.db, t.businessId, house, mandateTerms({ minimum_fee: '' }), CLI);
  return house;
}

/** The link path of an e-mail's text. */
function linkOf(mail: ParsedMail): string {
  const url = /(https?:\/\/\S+\/m\/[A-Za-z0-9_-]{43})/.exec(mail.text ?? '')?.[1];
  expect(url, mail.text).toBeTruthy();
  return new URL(url!).pathname;
}

const page = (method: 'GET' | 'POST', path: string, form?: Record<string, string>) =>
  t.app.inject({
    method,
    url: path,
    ...(form ? { headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(form).toString() } : {}),
  });

describe('a mandate signed through its link', () => {
  it('e-mails a one-use link, shows the draft, refuses a wrong DNI, signs once, and says so after', async () => {
    const house = await drafted();
    await sendMandateLink(t.db, t.businessId, house);
    await drain();
    const [mail] = servers.smtp.received.map((r) => r.mail);
    expect(mail.subject).toBe('Su hoja de encargo para firmar');
    expect(mail.text).toContain('Hola, Rosa Propietaria:');
    expect(mail.text).toContain('Le enviamos la hoja de encargo de Piso en Delicias para que la revise y la firme');
    const path = linkOf(mail);
    // Only the hash is kept.
    const [stored] = await t.db.selectFrom('mandate_links').selectAll().execute();
    expect(stored.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(await t.db.selectFrom('mandate_links').selectAll().execute())).not.toContain(path.slice(3));
    expect(stored.expires_at).toBe('2026-03-09T09:00:01.000+00:00');
    // Nowhere else either: the conversation keeps the e-mail without it.
    expect(await snapshot(t.db)).not.toContain(path.slice(3));
    expect((await t.db.selectFrom('messages').select('body').where('author', '=', 'mandate').executeTakeFirstOrThrow()).body).toContain(
      '/m/…',
    );

    const shown = await page('GET', path);
    expect(shown.statusCode).toBe(200);
    expect(shown.headers['content-security-policy']).toContain("script-src 'self'");
    expect(shown.body).toContain('Revise las condiciones del encargo de Piso en Delicias.');
    const pdf = await page('GET', `${path}/mandate.pdf`);
    expect([pdf.statusCode, pdf.headers['content-type']]).toEqual([200, 'application/pdf']);

    const before = await snapshot(t.db);
    const wrong = await page('POST', path, {
      visitor_name: 'Rosa Propietaria',
      document_type: 'dni',
      document_number: '12345678A',
      signature: await drawnSignature(),
    });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.body).toContain('La letra no corresponde al número: revise el documento.');
    expect(await snapshot(t.db)).toBe(before);

    const signed = await page('POST', path, {
      visitor_name: 'Rosa Propietaria',
      document_type: 'dni',
      document_number: '12345678Z',
      signature: await drawnSignature(),
    });
    expect(signed.statusCode).toBe(200);
    expect(signed.body).toContain('Hecho: la hoja de encargo queda firmada.');
    const [mandate] = await t.db.selectFrom('mandates').selectAll().execute();
    expect([mandate.status, mandate.signed_how, mandate.signer_document]).toEqual(['signed', 'link', '12345678Z']);
    const text = (await readPdf((await mandatePdf(t.db, t.businessId, house, 'es')).pdf)).text.join(' ');
    expect(text).toContain('Firmada a distancia, por enlace, el');

    const again = await page('POST', path, {
      visitor_name: 'Otra',
      document_type: 'dni',
      document_number: '12345678Z',
      signature: await drawnSignature(),
    });
    expect(again.body).toContain('Este enlace ya se usó');
    expect((await page('GET', `${path}/mandate.pdf`)).statusCode).toBe(404);
    expect((await page('GET', '/m/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA')).statusCode).toBe(404);
  });

  it('signs nothing through a link expired, or whose draft was replaced; in the owner’s language', async () => {
    const house = await drafted('gb');
    await sendMandateLink(t.db, t.businessId, house);
    await drain();
    const [mail] = servers.smtp.received.map((r) => r.mail);
    expect(mail.subject).toBe('Your mandate to sign');
    const path = linkOf(mail);
    vi.setSystemTime(new Date('2026-03-10T09:00:00Z'));
    const before = await snapshot(t.db);
    const late = await page('POST', path, {
      visitor_name: 'Rosa',
      document_type: 'dni',
      document_number: '12345678Z',
      signature: await drawnSignature(),
    });
    expect(late.body).toContain('This link has expired. Ask the agency to send you another.');
    expect(await snapshot(t.db)).toBe(before);

    // A new link, then the draft signed on the screen meanwhile: the link only says it changed.
    vi.setSystemTime(new Date(NOW));
    await sendMandateLink(t.db, t.businessId, house);
    await drain();
    const second = linkOf(servers.smtp.received.map((r) => r.mail)[1]);
    await t.db.updateTable('mandates').set({ status: 'ended', ended_reason: 'withdrawn' }).execute();
    expect((await page('GET', second)).body).toContain('This mandate has changed since we wrote to you.');
  });

  it('closes a link sent when the draft’s terms change after it', async () => {
    const house = await drafted();
    await sendMandateLink(t.db, t.businessId, house);
    await drain();
    const path = linkOf(servers.smtp.received.map((r) => r.mail)[0]);
    await saveMandateDraft(t.db, t.businessId, house, { ...mandateTerms(), asking_price: '240000' }, CLI);
    expect((await page('GET', path)).body).toContain('Este enlace ha caducado.');
    const signed = await page('POST', path, {
      visitor_name: 'Rosa',
      document_type: 'dni',
      document_number: '12345678Z',
      signature: await drawnSignature(),
    });
    expect(signed.body).not.toContain('queda firmada');
    expect((await t.db.selectFrom('mandates').select('status').executeTakeFirstOrThrow()).status).toBe('draft');
  });

  it('refuses to send a link to an owner without an e-mail address, and changes nothing', async () => {
    const house = await drafted();
    await t.db.updateTable('leads').set({ personal_email: null }).execute();
    const before = await snapshot(t.db);
    await expect(sendMandateLink(t.db, t.businessId, house)).rejects.toMatchObject({ code: 'MANDATE_LINK_NO_EMAIL' });
    expect(await snapshot(t.db)).toBe(before);
  });

  it('prints the draft the link shows in the owner’s language, French here', async () => {
    const house = await drafted('fr');
    await sendMandateLink(t.db, t.businessId, house);
    await drain();
    const [mail] = servers.smtp.received.map((r) => r.mail);
    const pdf = await page('GET', `${linkOf(mail)}/mandate.pdf`);
    expect(pdf.statusCode).toBe(200);
    const text = (await readPdf(pdf.rawPayload)).text.join(' ');
    expect(text).toContain('Mandat · version 1');
    expect(text).toContain('Conditions du mandat');
    expect(text).toContain('Exclusif');
  });
});
