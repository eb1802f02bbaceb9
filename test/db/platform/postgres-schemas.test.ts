/**
 * Installations sharing one PostgreSQL database, each in its own schema
 * (`DATABASE_URL=postgres://…?schema=NAME`, src/db/database.ts): each migrates, reads and
 * writes only its own tables, and keeps its own migration history. The suite's other files
 * each run on a database of their own, so this is where the schema setting is proven.
 */
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createDb, migrate, pendingMigrations, type Db } from '../../../src/db/database.ts';
import { insertBusiness } from '../../../src/db/repositories/businesses.ts';
import { ENGINE, freshDatabaseUrl } from '../../helpers/db.ts';

describe.skipIf(ENGINE !== 'postgres')('PostgreSQL: installations in schemas of one database', () => {
  const opened: Db[] = [];
  afterAll(async () => {
    for (const db of opened) await db.destroy();
  });

  it('migrate each schema on its own; rows and migration history stay in their schema', async () => {
    const url = await freshDatabaseUrl();
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query('create schema agency_a; create schema agency_b');
    await admin.end();
    const inSchema = (schema: string) => {
      const withSchema = new URL(url);
      withSchema.searchParams.set('schema', schema);
      return createDb(withSchema.toString());
    };
    const a = inSchema('agency_a');
    const b = inSchema('agency_b');
    opened.push(a, b);

    expect((await migrate(a)).length).toBeGreaterThan(10);
    expect(await pendingMigrations(b)).toEqual(expect.arrayContaining(['0001_initial']));
    expect((await migrate(b)).length).toBeGreaterThan(10);
    expect(await migrate(a)).toEqual([]);

    await insertBusiness(a, 'Agencia A', '2026-11-24T10:00:00+00:00');
    const names = async (db: Db) => (await db.selectFrom('businesses').select('name').execute()).map((r) => r.name);
    expect(await names(a)).toEqual(['Agencia A']);
    expect(await names(b)).toEqual([]);
    const schemas = await sql<{ schema: string }>`select table_schema as schema from information_schema.tables
      where table_name = 'kysely_migration' order by table_schema`.execute(a);
    expect(schemas.rows.map((r) => r.schema)).toEqual(['agency_a', 'agency_b']);
  });

  it('refuses a schema name that is not a plain identifier', () => {
    expect(() => createDb('postgres://postgres@127.0.0.1:5432/test?schema=a;drop')).toThrow(/plain identifier/);
  });
});
