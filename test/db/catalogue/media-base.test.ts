/**
 * Photos that follow the server (issue 47, CONTRACT §14): links written under an earlier media
 * address are rewritten onto the current one, as a console save would change the listings;
 * other hosts' photos, and another inmo's that this store does not hold, keep their URLs.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ownedMediaKeys, recordMediaObjects } from '../../../src/db/repositories/media.ts';
import { FolderMediaStore } from '../../../src/media/store.ts';
import { followMediaBase } from '../../../src/services/catalogue/media-base.ts';
import { importRecords, listing, propertyId } from '../../helpers/db.ts';
import { get, withApp } from '../../helpers/http.ts';

const store = new FolderMediaStore(mkdtempSync(join(tmpdir(), 'inmo-media-base-')));
const OLD = 'http://127.0.0.1:1111/media';
const NEW = 'http://127.0.0.1:2222/media';
const OURS = 'p/0/0d4f8a52-5c9e-4a31-9d55-1a2b3c4d5e6f-1600.jpg';
/** A key of the same form that this store does not hold: another inmo's photo, imported. */
const THEIRS = 'http://other.example/media/p/9/7c9e6679-7425-40de-944b-e07fc1f90ae7-1600.jpg';
const FOREIGN = 'https://img.example/photos/p/1/x.jpg';

describe('photo links after the server moves', () => {
  const t = withApp({ app: { media: { store, publicUrl: null } } });

  it('are rewritten onto the current address, with a new catalogue version and events; a second start changes nothing', async () => {
    await store.put(OURS, Buffer.from('jpeg'), 'image/jpeg');
    const images = [
      { url: `${OLD}/${OURS}`, order: 0, is_primary: true, public: true },
      { url: FOREIGN, order: 1, public: true },
      { url: THEIRS, order: 2, public: true },
    ];
    await importRecords(t.db, t.businessId, [listing('PUB', { images }), listing('PRIV', { public: false, images: [images[0]] })]);
    const [pub, priv] = [await propertyId(t.db, 'PUB'), await propertyId(t.db, 'PRIV')];
    const keys = ['480', '960', '1600'].map((w) => OURS.replace('-1600.', `-${w}.`));
    await recordMediaObjects(
      t.db,
      keys.map((key) => ({
        key,
        business_id: t.businessId,
        property_id: pub,
        url: `${OLD}/${OURS}`,
        created_at: '2026-11-01T00:00:00.000Z',
      })),
    );
    const before = await get(t.app, `/properties/${pub}`, t.key);
    const feed = await get(t.app, '/properties/changes?limit=500', t.key);
    const lastEvent = await t.db
      .selectFrom('events')
      .select(({ fn }) => fn.max('id').as('id'))
      .executeTakeFirstOrThrow();

    expect(await followMediaBase(t.db, store, `${NEW}/`, '2026-11-27T10:00:00.000Z')).toEqual({ photos: 2, listings: 2, from: [OLD] });

    const after = await get(t.app, `/properties/${pub}`, t.key);
    expect(after.body.data.images.map((i: { url: string }) => i.url)).toEqual([`${NEW}/${OURS}`, FOREIGN, THEIRS]);
    expect(after.body.data.updated_at).toBe('2026-11-27T10:00:00.000Z');
    expect(after.headers.etag).not.toBe(before.headers.etag);
    // Integrators see the change in the feed and the events; the listing that is not public sends no event.
    const changes = await get(t.app, `/properties/changes?cursor=${feed.body.next_cursor}`, t.key);
    expect(changes.body.data.map((c: { id: number; change: string }) => [c.id, c.change])).toEqual([[pub, 'upsert']]);
    const events = await t.db.selectFrom('events').select(['type', 'data']).where('id', '>', Number(lastEvent.id)).execute();
    expect(events).toEqual([{ type: 'property.changed', data: JSON.stringify({ id: pub, change: 'upsert' }) }]);
    expect(await t.db.selectFrom('property_images').select('url').where('property_id', '=', priv).execute()).toEqual([
      { url: `${NEW}/${OURS}` },
    ]);
    // The console still finds the photo's widths by its link, to delete them with it.
    expect(await ownedMediaKeys(t.db, t.businessId, pub, `${NEW}/${OURS}`)).toEqual(keys.sort());

    const version = await t.db.selectFrom('businesses').select('catalogue_version').executeTakeFirstOrThrow();
    expect(await followMediaBase(t.db, store, NEW, '2026-11-27T11:00:00.000Z')).toEqual({ photos: 0, listings: 0, from: [] });
    expect(await t.db.selectFrom('businesses').select('catalogue_version').executeTakeFirstOrThrow()).toEqual(version);
  });
});
