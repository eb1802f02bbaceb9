/**
 * The demo of `npm start` (`inmo serve --demo`): on an empty database, a demo business with a
 * generated catalogue, a key with every scope, and a console owner (`demo@inmo.example`) with a
 * one-time link to set a password. A database that already has a business is left as it is.
 */
import type { Db } from '../db/database.ts';
import { countBusinesses, firstBusinessId, insertBusiness } from '../db/repositories/businesses.ts';
import { SCOPES } from '../domain/access/api-key.ts';
import { nowRfc3339 } from '../domain/time.ts';
import { createApiKey } from '../services/access/api-keys.ts';
import { importCatalogueLines } from '../services/catalogue/import/import.ts';
import { createUser } from '../services/access/console-users.ts';
import { generateCatalogue } from './catalogue-generator.ts';

/** Listings in the demo catalogue. */
export const DEMO_LISTINGS = 600;

/** What the demo created, or `{business_id}` of the existing first business. */
export type DemoResult =
  | { business_id: number; key: string; key_id: string; properties: number; owner_email: string; set_password_url: string }
  | { business_id: number | null };

/** The demo's console owner. */
export const DEMO_OWNER_EMAIL = 'demo@inmo.example';
/** The demo owner's display name (CONTRACT §23). */
export const DEMO_OWNER_NAME = 'Lucía Martín';

/** Whether the database has a business already (then {@link seedDemo} adds nothing). */
export async function demoSeeded(db: Db): Promise<boolean> {
  return (await countBusinesses(db)) > 0;
}

/**
 * Seeds the demo (see the module's comment) on an empty database.
 * @param options.photoUrls the demo photos' public URLs (src/demo/photos.ts): each listing's
 *   images link to them in turn; without them, to a host that does not exist (tests).
 */
export async function seedDemo(db: Db, options: { photoUrls?: string[] } = {}): Promise<DemoResult> {
  if ((await countBusinesses(db)) > 0) {
    return { business_id: (await firstBusinessId(db)) ?? null };
  }
  const business = await insertBusiness(db, 'Inmobiliaria Demo', nowRfc3339());
  const lines = (function* () {
    const photos = options.photoUrls ?? [];
    let n = 0;
    for (const record of generateCatalogue(DEMO_LISTINGS)) {
      if (photos.length > 0) record.images = (record.images ?? []).map((image) => ({ ...image, url: photos[n++ % photos.length] }));
      yield JSON.stringify(record);
    }
  })();
  const summary = await importCatalogueLines(db, business.id, lines);
  const key = await createApiKey(db, { businessId: business.id, scopes: [...SCOPES], label: 'demo' });
  const owner = await createUser(db, { businessId: business.id, email: DEMO_OWNER_EMAIL, role: 'owner', name: DEMO_OWNER_NAME });
  return {
    business_id: business.id,
    key: key.key,
    key_id: key.key_id,
    properties: summary.created,
    owner_email: owner.email,
    set_password_url: owner.set_password_url,
  };
}
