/**
 * The demo of `npm start` (`inmo serve --demo`): on an empty database, a demo business with a
 * generated catalogue and a key with every scope. A database that already has a business is
 * left as it is.
 */
import type { Db } from '../db/database.ts';
import { countBusinesses, insertBusiness } from '../db/repositories/businesses.ts';
import { SCOPES } from '../domain/api-key.ts';
import { nowRfc3339 } from '../domain/time.ts';
import { createApiKey } from '../services/api-keys.ts';
import { importCatalogueLines } from '../services/catalogue-import.ts';
import { generateCatalogue } from './catalogue-generator.ts';

/** Listings in the demo catalogue. */
export const DEMO_LISTINGS = 600;

/** What the demo created, or `{business_id}` of the existing first business. */
export type DemoResult = { business_id: number; key: string; key_id: string; properties: number } | { business_id: number | null };

export async function seedDemo(db: Db): Promise<DemoResult> {
  if ((await countBusinesses(db)) > 0) {
    const first = await db.selectFrom('businesses').select('id').orderBy('id').executeTakeFirst();
    return { business_id: first?.id ?? null };
  }
  const business = await insertBusiness(db, 'Inmobiliaria Demo', nowRfc3339());
  const lines = (function* () {
    for (const record of generateCatalogue(DEMO_LISTINGS)) yield JSON.stringify(record);
  })();
  const summary = await importCatalogueLines(db, business.id, lines);
  const key = await createApiKey(db, { businessId: business.id, scopes: [...SCOPES], label: 'demo' });
  return { business_id: business.id, key: key.key, key_id: key.key_id, properties: summary.created };
}
