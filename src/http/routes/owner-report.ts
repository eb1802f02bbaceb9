/**
 * The page of an owner's report (CONTRACT §24), outside `/v1/ext`, without a key or a cookie:
 * `GET /o/<token>` (the token in the path is the credential: it shows one report, and says
 * nothing about the owner; services/owners/owner-reports.ts). The page shows the report's figures
 * as they were composed, in the owner's language, numbers and dates in its forms, sources in
 * words; no visitor is named. Written by `views/owner-report.eta` with the console's stylesheet,
 * no script, the listing pages' headers (not cached, not indexed, no referrer). An unknown token
 * is 404 `Not Found`, as any unknown path; the token is never logged (the log names the route).
 */
import type { FastifyPluginAsync } from 'fastify';
import { Eta } from 'eta';
import { DateTime } from 'luxon';
import { inPackage } from '../../package-root.ts';
import type { Db } from '../../db/database.ts';
import { reportWords } from '../../domain/messaging/owner-report.ts';
import { InmoError } from '../../errors.ts';
import { readReportPage, type ReportPage } from '../../services/owners/owner-report-pages.ts';
import { headers, pagePolicy } from './listing-page.ts';

/** The route's path. */
export const REPORT_PAGE_ROUTE = '/o/:token';

/** What `views/owner-report.eta` is given: every figure as text in the report's language (the template escapes). */
export function reportPageView(page: ReportPage) {
  const w = reportWords(page.language);
  const lang = page.language in { es: 1, en: 1, fr: 1, de: 1, it: 1 } ? page.language : 'es';
  const number = (n: number) => n.toLocaleString(w.locale, { maximumFractionDigits: 0 });
  const euros = (n: number) => `${number(n)} €`;
  const day = (iso: string) => DateTime.fromISO(iso).setZone(page.timeZone).setLocale(w.locale).toLocaleString(DateTime.DATE_MED);
  const listings = page.figures.listings.map((l, i) => {
    const monthly = l.operation === 'alquiler' ? ` ${w.monthly}` : '';
    return {
      title: l.title?.trim() || l.external_ref,
      anchor: `listing-${i + 1}`,
      days: number(l.days_on_market),
      views: [
        { label: w.pageViews, period: number(l.views.page), total: number(l.views.page_total) },
        { label: w.kitViews, period: number(l.views.kit), total: number(l.views.kit_total) },
      ],
      leads: l.leads.map((s) => ({ label: w.sources[s.source], period: number(s.period), total: number(s.total) })),
      viewings: l.viewings.map((v) => ({
        on: DateTime.fromISO(v.on, { zone: page.timeZone }).setLocale(w.locale).toLocaleString(DateTime.DATE_MED),
        interest: v.interest === null ? '–' : `${v.interest}/5`,
        comment: v.comment ?? '',
      })),
      viewingsTotal: number(l.viewings_total),
      matching: number(l.matching.leads),
      sent: number(l.matching.sent),
      prices: l.price_history.map((p) => ({ from: day(p.from), price: p.price === null ? '–' : euros(p.price) + monthly })),
      priceM2: l.price_m2 === null ? '–' : `${euros(l.price_m2)}/m²${monthly}`,
      comparables:
        l.comparables === null
          ? w.noComparables
          : `${w.comparables.replace('{count}', number(l.comparables.count))}: ${euros(l.comparables.median_m2)}/m²${monthly}`,
    };
  });
  return {
    lang,
    title: `${w.title} · ${page.businessName}`,
    icon: true,
    bodyClass: 'report-page',
    businessName: page.businessName,
    words: w,
    period: `${day(page.figures.from)} – ${day(page.figures.to)}`,
    listings,
  };
}

const eta = new Eta({ views: inPackage('src', 'http', 'views'), autoEscape: true });

/** A report's page as a whole HTML document, as the owner sees it (the console shows it so). */
export function renderReportPage(page: ReportPage): string {
  const view = reportPageView(page);
  return eta.render('./layout', { ...view, body: eta.render('./owner-report', view) });
}

/** Registers `GET /o/:token` (see the module's comment). */
export const ownerReportRoutes: FastifyPluginAsync<{ db: Db }> = async (app, { db }) => {
  const policy = pagePolicy(null);
  app.get<{ Params: { token: string } }>(REPORT_PAGE_ROUTE, { schema: { hide: true } }, async (request, reply) => {
    const page = await readReportPage(db, request.params.token);
    if (page === null) throw new InmoError('NOT_FOUND');
    return reply
      .code(200)
      .headers({ 'content-type': 'text/html; charset=utf-8', ...headers(policy) })
      .view('owner-report.eta', reportPageView(page));
  });
};
