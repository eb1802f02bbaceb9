/**
 * The link an owner signs a mandate through (CONTRACT §24), outside `/v1/ext`, without a key, a
 * cookie or a CSRF token (the token in the path is the credential, single-purpose: it signs one
 * draft, once):
 *
 * - `GET /m/<token>` shows, in the owner's language, the mandate to sign (its PDF a link away) and
 *   the signing form (name, identity document, signature drawn with the finger: the console's
 *   assets/signature.js), or what became of it (signed, expired, changed);
 * - `POST /m/<token>` (a form up to 1 MiB: the signature's PNG) signs it (services/owners/mandate-links.ts),
 *   or shows the form again with the reason beside each field (422, nothing stored);
 * - `GET /m/<token>/mandate.pdf` the draft as the agency prints it (es, or en for other languages).
 *
 * An unknown token is 404 `Not Found`, as any unknown path. The token is never logged: the
 * request's log line names the route's pattern.
 */
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { urlEncodedForms } from '../form-body.ts';
import type { Db } from '../../db/database.ts';
import { InmoError } from '../../errors.ts';
import { mandateLinkPage, mandateLinkPdf, signByLink, type MandateLinkView } from '../../services/owners/mandate-links.ts';
import { VisitSheetFormError, type SheetInput } from '../../services/viewings/visit-sheet.ts';

/** The route's path. */
export const MANDATE_LINK_ROUTE = '/m/:token';

/** The largest form taken, bytes: the signature's 256 KB PNG in base64, URL-encoded, and the fields. */
const FORM_MAX_BYTES = 1024 * 1024;

/** Headers of the page: this server's script (the signature box) and styles only; not framed, cached, indexed or referred. */
const HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'x-robots-tag': 'noindex',
};

/** The words beside each refused field, from the signer's faults. */
function faultWords(view: MandateLinkView, faults: VisitSheetFormError['faults']): Partial<Record<string, string>> {
  const w = view.words;
  const out: Partial<Record<string, string>> = {};
  if (faults.visitor_name) out.visitor_name = w.faultName;
  if (faults.document_type || faults.document_number)
    out.document_number =
      faults.document_number === 'letter' ? w.faultLetter : faults.document_number === 'required' ? w.faultDocument : w.faultDocument;
  if (faults.signature) out.signature = w.faultSignature;
  return out;
}

export const mandateLinkRoutes: FastifyPluginAsync<{ db: Db }> = async (app, { db }) => {
  urlEncodedForms(app, FORM_MAX_BYTES);

  const send = (
    reply: FastifyReply,
    status: number,
    token: string,
    view: MandateLinkView,
    form: { values: SheetInput; faults: Partial<Record<string, string>> },
  ) =>
    reply
      .code(status)
      .headers(HEADERS)
      .view('mandate-link.eta', { lang: view.language, title: view.words.title, icon: false, action: `/m/${token}`, view, form });

  const blank = (_view: MandateLinkView) => ({
    values: { visitor_name: '', document_type: 'dni', document_number: '', signature: '' },
    faults: {},
  });

  app.get<{ Params: { token: string } }>(MANDATE_LINK_ROUTE, { schema: { hide: true } }, async (request, reply) => {
    const view = await mandateLinkPage(db, request.params.token);
    if (!view) throw new InmoError('NOT_FOUND');
    return send(reply, 200, request.params.token, view, blank(view));
  });

  app.post<{ Params: { token: string }; Body: Record<string, string> }>(
    MANDATE_LINK_ROUTE,
    { schema: { hide: true }, bodyLimit: FORM_MAX_BYTES },
    async (request, reply) => {
      const body = request.body ?? {};
      const input: SheetInput = {
        visitor_name: body.visitor_name ?? '',
        document_type: body.document_type ?? '',
        document_number: body.document_number ?? '',
        signature: body.signature ?? '',
      };
      try {
        const view = await signByLink(db, request.params.token, input);
        if (!view) throw new InmoError('NOT_FOUND');
        return send(reply, 200, request.params.token, view, blank(view));
      } catch (error) {
        if (!(error instanceof VisitSheetFormError)) throw error;
        const view = (await mandateLinkPage(db, request.params.token))!;
        request.errorCode = 'MANDATE_SIGN_FORM';
        // A signature that was taken is drawn back in the box.
        const signature = error.faults.signature === undefined ? input.signature : '';
        return send(reply, 422, request.params.token, view, { values: { ...input, signature }, faults: faultWords(view, error.faults) });
      }
    },
  );

  app.get<{ Params: { token: string } }>(`${MANDATE_LINK_ROUTE}/mandate.pdf`, { schema: { hide: true } }, async (request, reply) => {
    const made = await mandateLinkPdf(db, request.params.token);
    if (!made) throw new InmoError('NOT_FOUND');
    return reply
      .headers({ ...HEADERS, 'content-type': 'application/pdf', 'content-disposition': `inline; filename="${made.fileName}"` })
      .send(made.pdf);
  });
};
