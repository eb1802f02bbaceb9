/**
 * 0031: leads searched without case or accents (issue 47, CONTRACT §23).
 *
 * - leads.search_text: the lead's name and e-mail addresses, lower case, decomposed (NFD) and
 *   without combining marks, one space between them (domain/search-text.ts `leadSearchText`),
 *   written with the lead; the existing leads are filled here, 1,000 at a time.
 *
 * Frozen; imports nothing from the app (the fold is copied here as it was).
 */
import { type Kysely, sql } from 'kysely';

const fold = (fields: Array<string | null>): string | null => {
  const held = fields.filter((f): f is string => typeof f === 'string' && f.trim() !== '');
  return held.length === 0
    ? null
    : held
        .join(' ')
        .toLowerCase()
        .normalize('NFD')
        .replace(/\p{M}+/gu, '');
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table leads add column search_text text`.execute(db);
  for (let after = 0; ;) {
    const rows = await db
      .selectFrom('leads')
      .select(['id', 'name', 'personal_email', 'professional_email'])
      .where('id', '>', after)
      .orderBy('id')
      .limit(1000)
      .execute();
    if (rows.length === 0) break;
    for (const row of rows) {
      const text = fold([row.name, row.personal_email, row.professional_email]);
      if (text !== null) await db.updateTable('leads').set({ search_text: text }).where('id', '=', row.id).execute();
    }
    after = rows[rows.length - 1].id;
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table leads drop column search_text`.execute(db);
}
