/**
 * The body of a form as browsers post it on the public pages (a listing page's inquiry, a mandate's
 * link): `application/x-www-form-urlencoded` read into `{name: value}` (the first of a repeated
 * name), at most `maxBytes`; a body of any other type is read as an empty form, whose fields the
 * page then refuses (422), so that nothing but a form reaches its handler.
 */
import type { FastifyInstance } from 'fastify';

/** Makes the forms posted to `app`'s routes read as {@link urlEncodedForms} says, `maxBytes` at most. */
export function urlEncodedForms(app: FastifyInstance, maxBytes: number): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: maxBytes }, (request, body, done) => {
    const form: Record<string, string> = {};
    if (/^application\/x-www-form-urlencoded\b/i.test(request.headers['content-type'] ?? '')) {
      for (const [name, value] of new URLSearchParams(body as string)) if (!(name in form)) form[name] = value;
    }
    done(null, form);
  });
}
