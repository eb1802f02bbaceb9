/**
 * 0021: stored media are owned (issue 41, CONTRACT §14).
 *
 * media_objects: one row per object the console stored (every width of every uploaded photo),
 * with the business and listing it was stored for and `url`, the address the listing was given
 * for the photo (the widest width's public URL, as this server wrote it). A photo's deletion
 * removes only objects recorded for that business and listing under exactly the image's URL;
 * an image whose URL merely ends in a media key (an import's, any host) names no object.
 *
 * Photos stored before this migration are recorded from the images that link to them: an
 * image whose URL ends in `p/<its own listing's id>/<uuid>-<width>.jpg` (keys carry the listing
 * they were stored for, so no listing can claim another's), its three widths.
 *
 * Frozen; imports nothing from the app.
 */
import { type Kysely, sql } from 'kysely';

/** A stored photo's key at the end of its URL, as keys were written: `p/<listing>/<uuid>-<width>.jpg`. */
const STORED = /(?:^|\/)p\/([1-9]\d{0,14})\/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})-\d{1,5}\.jpg$/;
/** The widths every photo was stored in until now. */
const WIDTHS = [480, 960, 1600];

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table media_objects (
    key text primary key,
    business_id integer not null references businesses(id),
    property_id integer not null references properties(id) on delete cascade,
    url text not null,
    created_at text not null
  )`.execute(db);
  await sql`create index media_objects_property on media_objects (property_id, url)`.execute(db);

  const now = new Date().toISOString().replace('Z', '+00:00');
  const images = await sql<{ url: string; property_id: number; business_id: number }>`
    select i.url, i.property_id, p.business_id from property_images i join properties p on p.id = i.property_id
    where i.url like ${'%/p/%.jpg'}`.execute(db);
  const rows = new Map<string, { key: string; business_id: number; property_id: number; url: string; created_at: string }>();
  for (const image of images.rows) {
    const found = STORED.exec(image.url);
    if (!found || Number(found[1]) !== image.property_id) continue;
    for (const width of WIDTHS) {
      const key = `p/${found[1]}/${found[2]}-${width}.jpg`;
      if (!rows.has(key))
        rows.set(key, { key, business_id: image.business_id, property_id: image.property_id, url: image.url, created_at: now });
    }
  }
  const values = [...rows.values()];
  for (let i = 0; i < values.length; i += 500)
    await db
      .insertInto('media_objects')
      .values(values.slice(i, i + 500))
      .execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop table media_objects`.execute(db);
}
