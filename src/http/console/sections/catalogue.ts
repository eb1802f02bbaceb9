/**
 * The catalogue: `GET /catalogue` (figures and the latest uploads); owners: `POST
 * /catalogue?_csrf=…` (multipart, one file): the import starts in the background and the answer is
 * 303 to `GET /catalogue/imports/:import_id`, which shows its progress (refreshing itself every
 * second, no script needed) and then its report with every rejected line.
 *
 * Owners publish feeds for portals (`/catalogue/feeds`: Kyero v3, or idealista with the agency's
 * customer code) and revoke them; while an idealista feed is live, the page lists the listings
 * its document leaves out, grouped by the reason (CONTRACT §22).
 *
 * Owners also keep feeds pulled from their CRM (`/catalogue/sources…`): add, read now, remove,
 * and confirm or discard a pull held because it would withdraw more than
 * `INMO_PULL_WITHDRAW_MAX_SHARE` of the feed's listings (issue 41): the form names the hold it
 * was shown (`hold`), so a newer hold is never confirmed unseen (409, nothing changed).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  catalogueFigures,
  findUploadedImport,
  listUploadedImports,
  startUploadedImport,
} from '../../../services/catalogue/import/uploads.ts';
import { InmoError } from '../../../errors.ts';
import type { MessageKey } from '../i18n.ts';
import { MAX_UPLOAD_BYTES, render } from '../page.ts';
import { receiveUploads } from '../uploads.ts';
import { csrfCheckedRoute, field, idParam, readForm, type ConsoleDeps } from '../forms.ts';
import { idealistaReport, listFeeds, publishFeed, revokeFeed } from '../../../services/catalogue/feeds/published-feeds.ts';
import {
  addFeedSource,
  confirmHeldPull,
  discardHeldPull,
  listFeedSources,
  PULL_MINUTES,
  pullFeedSource,
  removeFeedSource,
} from '../../../services/catalogue/feeds/pulls.ts';
import { FeedPublishForm, FeedSourceForm } from '../../../schemas/console-forms.ts';
import type { IdealistaLeftOut } from '../../../domain/catalogue/idealista-feed.ts';
import { serverOrigin } from '../../origin.ts';

/** Listings shown per reason an idealista document leaves them out (the count says how many more). */
const LEFT_OUT_SHOWN = 50;

/** Listings left out of the idealista document, grouped by reason, the largest group first. */
function leftOutByReason(leftOut: IdealistaLeftOut[]): Array<{ reason: IdealistaLeftOut['reason']; listings: IdealistaLeftOut[] }> {
  const groups = new Map<IdealistaLeftOut['reason'], IdealistaLeftOut[]>();
  for (const listing of leftOut) {
    const group = groups.get(listing.reason);
    if (group) group.push(listing);
    else groups.set(listing.reason, [listing]);
  }
  return [...groups].map(([reason, listings]) => ({ reason, listings })).sort((a, b) => b.listings.length - a.listings.length);
}

export async function cataloguePages(
  app: FastifyInstance,
  { db, publicUrl, outbound, feedMaxBytes, pullWithdrawMaxShare }: ConsoleDeps,
): Promise<void> {
  const csrfChecked = csrfCheckedRoute(app);

  const cataloguePage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    status = 200,
    problem: MessageKey | null = null,
    newFeedUrl: string | null = null,
  ) => {
    const { businessId, role } = request.consoleSession!;
    const owner = role === 'owner';
    const [figures, imports, feeds, sources, idealista] = await Promise.all([
      catalogueFigures(db, businessId),
      listUploadedImports(db, businessId),
      owner ? listFeeds(db, businessId) : Promise.resolve([]),
      owner ? listFeedSources(db, businessId) : Promise.resolve([]),
      owner ? idealistaReport(db, businessId) : Promise.resolve(null),
    ]);
    const leftOut = idealista ? leftOutByReason(idealista.leftOut) : [];
    return render(
      reply,
      'catalogue',
      {
        figures,
        imports,
        feeds,
        sources,
        newFeedUrl,
        problem,
        pullMinutes: PULL_MINUTES,
        idealista,
        leftOut,
        leftOutShown: LEFT_OUT_SHOWN,
      },
      status,
    );
  };

  app.get('/catalogue', async (request, reply) => cataloguePage(request, reply));

  app.post('/catalogue', { config: { consoleAccess: 'owner' }, ...csrfChecked }, async (request, reply) => {
    const upload = (request.consoleUpload = await receiveUploads(request, { maxBytes: MAX_UPLOAD_BYTES, maxFiles: 1 }));
    const file = upload?.files[0];
    const { businessId, userId } = request.consoleSession!;
    if (!upload || !file || file.bytes === 0) return cataloguePage(request, reply, 422, 'catalogue_file_missing');
    upload.claimed = true;
    const { id } = await startUploadedImport(db, {
      businessId,
      userId,
      fileName: file.fileName,
      path: file.path,
      bytes: file.bytes,
      removeAfter: upload.dir,
    });
    return reply.code(303).header('location', `/console/catalogue/imports/${id}`).send();
  });

  app.get<{ Params: { import_id: string } }>('/catalogue/imports/:import_id', async (request, reply) => {
    const id = idParam(request.params.import_id);
    const run = id !== null ? await findUploadedImport(db, request.consoleSession!.businessId, id) : undefined;
    if (!run) throw new InmoError('NOT_FOUND');
    return render(reply, 'catalogue-import', { run, refresh: (run.state === 'running' || run.state === 'indexing') && !run.interrupted });
  });

  // Portal feeds (owners, CONTRACT §15, §22): a URL shown once, revoked for good.
  app.post('/catalogue/feeds', { config: { consoleAccess: 'owner' }, ...csrfChecked }, async (request, reply) => {
    const { value, faults } = readForm(request.body, FeedPublishForm);
    if (faults.length > 0) return cataloguePage(request, reply, 422, 'FEED_CUSTOMER_CODE');
    let feed;
    try {
      feed = await publishFeed(db, request.consoleSession!.businessId, value.format, {
        customerCode: value.format === 'idealista' ? value.customer_code : null,
      });
    } catch (error) {
      if (!(error instanceof InmoError) || error.code !== 'FEED_CUSTOMER_CODE') throw error;
      request.errorCode = error.code;
      return cataloguePage(request, reply, 422, error.code);
    }
    const origin = serverOrigin(request, publicUrl);
    // Shown here only: the page is not cached (no-store) and the token is kept only as a hash.
    return cataloguePage(request, reply, 201, null, `${origin}${feed.url}`);
  });

  app.post<{ Params: { feed_id: string } }>(
    '/catalogue/feeds/:feed_id/revoke',
    { config: { consoleAccess: 'owner' }, ...csrfChecked },
    async (request, reply) => {
      const id = idParam(request.params.feed_id);
      if (id === null) throw new InmoError('NOT_FOUND');
      try {
        await revokeFeed(db, id, request.consoleSession!.businessId);
      } catch (error) {
        if (error instanceof InmoError && error.code === 'FEED_NOT_FOUND') throw new InmoError('NOT_FOUND');
        throw error;
      }
      return reply.code(303).header('location', '/console/catalogue#h-feeds').send();
    },
  );

  // Feeds pulled from the agency's current CRM (owners, CONTRACT §15).
  app.post('/catalogue/sources', { config: { consoleAccess: 'owner' }, ...csrfChecked }, async (request, reply) => {
    const { value, faults } = readForm(request.body, FeedSourceForm);
    if (faults.length > 0)
      return cataloguePage(request, reply, 422, faults[0].field === 'every_minutes' ? 'FEED_SOURCE_PERIOD' : 'FEED_SOURCE_URL');
    try {
      await addFeedSource(
        db,
        { businessId: request.consoleSession!.businessId, url: value.url.trim(), everyMinutes: value.every_minutes },
        outbound,
      );
    } catch (error) {
      if (!(error instanceof InmoError) || (error.code !== 'FEED_SOURCE_URL' && error.code !== 'FEED_SOURCE_PERIOD')) throw error;
      request.errorCode = error.code;
      return cataloguePage(request, reply, 422, error.code);
    }
    return reply.code(303).header('location', '/console/catalogue#h-sources').send();
  });

  /** A source of the session's business, or 404. */
  const ownSource = (request: FastifyRequest<{ Params: { source_id: string } }>) => {
    const id = idParam(request.params.source_id);
    if (id === null) throw new InmoError('NOT_FOUND');
    return id;
  };

  app.post<{ Params: { source_id: string } }>(
    '/catalogue/sources/:source_id/run',
    { config: { consoleAccess: 'owner' }, ...csrfChecked },
    async (request, reply) => {
      const id = ownSource(request);
      const businessId = request.consoleSession!.businessId;
      if (!(await listFeedSources(db, businessId)).some((s) => s.id === id)) throw new InmoError('NOT_FOUND');
      await pullFeedSource(db, id, { outbound, maxBytes: feedMaxBytes, withdrawMaxShare: pullWithdrawMaxShare });
      return reply.code(303).header('location', '/console/catalogue#h-sources').send();
    },
  );

  // A held pull (issue 41): confirmed, its withdrawals are made; discarded, the listings stay.
  for (const action of ['confirm', 'discard'] as const) {
    app.post<{ Params: { source_id: string } }>(
      `/catalogue/sources/:source_id/${action}`,
      { config: { consoleAccess: 'owner' }, ...csrfChecked },
      async (request, reply) => {
        const { businessId, userId } = request.consoleSession!;
        const by = { businessId, run: field(request.body, 'hold') };
        try {
          if (action === 'confirm') await confirmHeldPull(db, ownSource(request), { ...by, actor: { type: 'user', id: userId } });
          else await discardHeldPull(db, ownSource(request), by);
        } catch (error) {
          if (error instanceof InmoError && error.code === 'FEED_SOURCE_NOT_FOUND') throw new InmoError('NOT_FOUND');
          if (!(error instanceof InmoError) || error.code !== 'FEED_PULL_NOT_HELD') throw error;
          request.errorCode = error.code;
          return cataloguePage(request, reply, 409, error.code);
        }
        return reply.code(303).header('location', '/console/catalogue#h-sources').send();
      },
    );
  }

  app.post<{ Params: { source_id: string } }>(
    '/catalogue/sources/:source_id/remove',
    { config: { consoleAccess: 'owner' }, ...csrfChecked },
    async (request, reply) => {
      try {
        await removeFeedSource(db, ownSource(request), request.consoleSession!.businessId);
      } catch (error) {
        if (error instanceof InmoError && error.code === 'FEED_SOURCE_NOT_FOUND') throw new InmoError('NOT_FOUND');
        throw error;
      }
      return reply.code(303).header('location', '/console/catalogue#h-sources').send();
    },
  );
}
