/**
 * The console's listing search (CONTRACT §14, §23; issue 47) on this process's engine: reference,
 * title (any language held), address and city found without regard to case or accents, by the
 * trigram index (3 characters or more) and row by row (fewer); `%` and `_` are themselves; an
 * edited listing is found by what it says now; migration 0033 gives the listings stored before
 * it their search text.
 */
import { Migrator, sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDb, migrate, type Db } from '../../../src/db/database.ts';
import { migrationProvider } from '../../../src/db/migrations/index.ts';
import { insertBusiness } from '../../../src/db/repositories/businesses.ts';
import { searchListings } from '../../../src/db/repositories/properties.ts';
import { SEARCH_WORDS_MAX } from '../../../src/domain/search-text.ts';
import { nowRfc3339 } from '../../../src/domain/time.ts';
import { listingInFull, saveListing } from '../../../src/services/catalogue/listings.ts';
import {
  ENGINE,
  freshDatabaseUrl,
  freshDb,
  importRecords,
  insertBusinessAtAnyMigration,
  listing,
  postgresUrlOf,
  propertyId,
} from '../../helpers/db.ts';

/** References of the business's listings that `text` finds, sorted. */
async function found(db: Db, businessId: number, text: string): Promise<string[]> {
  const { rows, total } = await searchListings(db, businessId, { text }, 100, 0);
  expect(total, text).toBe(rows.length);
  return rows.map((r) => r.external_ref).sort();
}

describe('listing search without case or accents', () => {
  let db: Db;
  let businessId = 0;
  beforeAll(async () => {
    ({ db } = await freshDb());
    businessId = (await insertBusiness(db, 'Agencia Uno', nowRfc3339())).id;
    const other = (await insertBusiness(db, 'Agencia Dos', nowRfc3339())).id;
    const place = { address: 'Paseo del Prado 1', address_approximate: 'Centro', postal_code: '28014', city: 'Madrid' };
    await importRecords(db, businessId, [
      listing('ALQ-0042', { ...place, title: 'Ático en Málaga', city: 'Málaga' }),
      listing('ref-low', { ...place, title: 'Piso', city: 'madrid' }),
      listing('CALLE-1', { ...place, title: 'Dúplex', address: 'Calle León 3, 2ºB' }),
      listing('EN-1', { ...place, titles: { es: 'Casa', en: 'Penthouse with sea views' }, title: undefined }),
      listing('AV-1', { ...place, title: 'Chalet', city: 'Ávila' }),
      listing('PCT-1', { ...place, title: 'Rebaja 50% en _todo_' }),
      listing('PCT-2', { ...place, title: 'Rebaja 500 en xtodox' }),
    ]);
    await importRecords(db, other, [listing('DOS-1', { ...place, title: 'Ático en Málaga', city: 'Málaga' })]);
  });
  afterAll(async () => {
    await db?.destroy();
  });

  it('finds reference, title in any language, address and city whatever their case and accents', async () => {
    expect(await found(db, businessId, 'malaga')).toEqual(['ALQ-0042']);
    expect(await found(db, businessId, 'ÁTICO EN MÁLAGA')).toEqual(['ALQ-0042']);
    expect(await found(db, businessId, 'alq-004')).toEqual(['ALQ-0042']);
    expect(await found(db, businessId, 'REF-LOW')).toEqual(['ref-low']);
    expect(await found(db, businessId, 'calle leon')).toEqual(['CALLE-1']);
    expect(await found(db, businessId, 'penthouse')).toEqual(['EN-1']);
    expect(await found(db, businessId, '  Avila ')).toEqual(['AV-1']);
    expect(await found(db, businessId, 'MADRID')).toEqual(['CALLE-1', 'EN-1', 'PCT-1', 'PCT-2', 'ref-low']);
    // Fewer than 3 characters: row by row, the same fold.
    expect(await found(db, businessId, 'ÁV')).toEqual(['AV-1']);
    expect(await found(db, businessId, 'ÑZ')).toEqual([]);
  });

  it('takes % and _ as themselves, by the index and row by row', async () => {
    expect(await found(db, businessId, '50%')).toEqual(['PCT-1']);
    expect(await found(db, businessId, '_todo_')).toEqual(['PCT-1']);
    expect(await found(db, businessId, '0%')).toEqual(['PCT-1']);
    expect(await found(db, businessId, '_')).toEqual(['PCT-1']);
    expect(await found(db, businessId, '%')).toEqual(['PCT-1']);
    // Quotes are no syntax either.
    expect(await found(db, businessId, '"malaga"')).toEqual([]);
  });

  it('finds an edited listing by what it says now, and a new one by the reference it was given', async () => {
    const id = await propertyId(db, 'CALLE-1');
    const { record } = (await listingInFull(db, businessId, id))!;
    await saveListing(db, businessId, id, { ...record, title: 'Chalet en Jávea', address: 'Avenida del Mar 7' }, null);
    expect(await found(db, businessId, 'javea')).toEqual(['CALLE-1']);
    expect(await found(db, businessId, 'duplex')).toEqual([]);
    expect(await found(db, businessId, 'calle leon')).toEqual([]);
    expect(await found(db, businessId, 'avenida del mar')).toEqual(['CALLE-1']);
    const created = await saveListing(
      db,
      businessId,
      null,
      { ...record, external_ref: '', title: 'Estudio en Logroño', address: 'Plaza Mayor 2' },
      null,
    );
    expect(await found(db, businessId, `INMO-${created.id}`)).toEqual([`inmo-${created.id}`]);
    expect(await found(db, businessId, 'logrono')).toEqual([`inmo-${created.id}`]);
    if (ENGINE === 'sqlite') {
      // The trigram index holds exactly what the rows hold (FTS5 compares it with them).
      await sql`insert into properties_fts (properties_fts, rank) values ('integrity-check', 1)`.execute(db);
    } else {
      const index = await sql`select 1 from pg_indexes where indexname = 'properties_search_text_trgm'`.execute(db);
      expect(index.rows).toHaveLength(1);
    }
  });
});

describe('listing search by words (issue 57, CONTRACT §25)', () => {
  let db: Db;
  let businessId = 0;
  beforeAll(async () => {
    ({ db } = await freshDb());
    businessId = (await insertBusiness(db, 'Agencia Uno', nowRfc3339())).id;
    const place = { address_approximate: 'Centro', postal_code: '28010', city: 'Madrid' };
    await importRecords(db, businessId, [
      listing('CHB-1', { ...place, title: 'Ático luminoso en Chamberí', address: 'Calle Fernández de los Ríos 12' }),
      listing('CHB-2', { ...place, title: 'Piso en Chamberí', address: 'Calle Galileo 40' }),
      listing('SAL-1', { ...place, title: 'Ático en Salamanca', address: 'Calle Goya 7', postal_code: '28001' }),
    ]);
  });
  afterAll(async () => {
    await db?.destroy();
  });

  it('finds a listing by every word typed, in any order, case and accents aside, none when a word is absent', async () => {
    expect(await found(db, businessId, 'atico chamberi')).toEqual(['CHB-1']);
    expect(await found(db, businessId, 'chamberi atico')).toEqual(['CHB-1']);
    expect(await found(db, businessId, '  CHAMBERÍ\tÁtico  ')).toEqual(['CHB-1']);
    expect(await found(db, businessId, 'rios luminoso')).toEqual(['CHB-1']);
    expect(await found(db, businessId, 'chamberi, calle')).toEqual(['CHB-1', 'CHB-2']);
    expect(await found(db, businessId, 'atico madrid')).toEqual(['CHB-1', 'SAL-1']);
    // Nothing when one word is absent.
    expect(await found(db, businessId, 'atico chamberi garaje')).toEqual([]);
    expect(await found(db, businessId, 'garaje atico')).toEqual([]);
  });

  it('matches a word under 3 characters row by row beside the indexed ones', async () => {
    expect(await found(db, businessId, 'atico 12')).toEqual(['CHB-1']);
    expect(await found(db, businessId, '7 atico')).toEqual(['SAL-1']);
    expect(await found(db, businessId, 'en 40')).toEqual(['CHB-2']);
    expect(await found(db, businessId, 'en 99')).toEqual([]);
  });

  it(`reads the first ${SEARCH_WORDS_MAX} words`, async () => {
    const eight = 'atico luminoso chamberi calle fernandez rios 12 madrid';
    expect(await found(db, businessId, `${eight} garaje`)).toEqual(['CHB-1']);
    expect(await found(db, businessId, `garaje ${eight}`)).toEqual([]);
  });
});

describe('migration 0033: the search text of earlier listings', () => {
  it('fills it from reference, titles, addresses, city and postal code, so that the search finds them', async () => {
    const db = createDb(await freshDatabaseUrl());
    try {
      const { error } = await new Migrator({ db, provider: migrationProvider }).migrateTo('0032_alerts');
      if (error) throw error;
      const { id: business } = await insertBusinessAtAnyMigration(db, 'A');
      const at = nowRfc3339();
      const row = {
        business_id: business,
        listed: 1,
        public: 1,
        status: 'disponible',
        op_venta: 1,
        op_alquiler: 0,
        op_traspaso: 0,
        is_featured: 0,
        created_at: at,
        updated_at: at,
        imported_at: at,
        address_privacy: 'public',
      };
      await db
        .insertInto('properties')
        .values([
          {
            ...row,
            external_ref: 'ZGZ-Ñ1',
            title: 'Ático',
            titles: '{"es":"Ático","en":"Penthouse"}',
            city: 'Zaragoza',
            postal_code: '50001',
          },
          { ...row, external_ref: 'LGR-2', title: null, address: 'Calle Logroño 4', address_approximate: 'Casco Antiguo', city: null },
        ])
        .execute();
      await migrate(db);
      const rows = await db.selectFrom('properties').select(['external_ref', 'search_text']).orderBy('id').execute();
      expect(rows).toEqual([
        { external_ref: 'ZGZ-Ñ1', search_text: 'zgz-n1 atico penthouse zaragoza 50001' },
        { external_ref: 'LGR-2', search_text: 'lgr-2 calle logrono 4 casco antiguo' },
      ]);
      expect(await found(db, business, 'logroño')).toEqual(['LGR-2']);
      expect(await found(db, business, 'zgz-ñ')).toEqual(['ZGZ-Ñ1']);
    } finally {
      await db.destroy();
    }
  });
});

describe('migration 0033 where pg_trgm cannot be created', () => {
  it.skipIf(ENGINE !== 'postgres')(
    'PostgreSQL: migrates without the index, says so without personal data, and searches the same',
    async () => {
      const url = await freshDatabaseUrl();
      const database = new URL(url).pathname.slice(1);
      const role = `inmo_test_no_trgm_${process.pid}`;
      /** Runs statements as the test server's superuser, on `name`. */
      const admin = async (name: string, ...statements: string[]) => {
        const client = new pg.Client({ connectionString: postgresUrlOf(process.env.INMO_TEST_POSTGRES_URL!, name) });
        await client.connect();
        try {
          for (const statement of statements) await client.query(statement);
        } finally {
          await client.end();
        }
      };
      // A user who may make tables in the database's schema but not extensions (no CREATE on the database).
      await admin(database, `create role "${role}" login`, `grant usage, create on schema public to "${role}"`);
      const asRole = new URL(url);
      asRole.username = role;
      const db = createDb(asRole.toString());
      const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
      try {
        await migrate(db);
        const warnings = stderr.mock.calls.map(([text]) => String(text)).filter((text) => text.includes('0033'));
        stderr.mockRestore();
        expect(warnings).toEqual([
          'warning: migration 0033: the PostgreSQL extension pg_trgm could not be created (42501); the console searches listings without its index, slower on a big catalogue\n',
        ]);
        const index = await sql`select 1 from pg_indexes where indexname = 'properties_search_text_trgm'`.execute(db);
        expect(index.rows).toEqual([]);
        const business = (await insertBusiness(db, 'Agencia', nowRfc3339())).id;
        await importRecords(db, business, [listing('MLG-1', { title: 'Ático en Málaga' }), listing('ZGZ-1', { title: 'Piso' })]);
        expect(await found(db, business, 'MALAGA')).toEqual(['MLG-1']);
      } finally {
        stderr.mockRestore();
        await db.destroy();
        await admin(database, `reassign owned by "${role}" to current_user`, `drop owned by "${role}"`);
        await admin(new URL(process.env.INMO_TEST_POSTGRES_URL!).pathname.slice(1), `drop role "${role}"`);
      }
    },
  );
});
