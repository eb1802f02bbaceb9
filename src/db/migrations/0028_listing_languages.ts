/**
 * 0028: listings in five languages, and the facts portals ask for (issue 46, CONTRACT §22).
 *
 * - properties.titles, properties.descriptions: JSON of a listing's title and description in
 *   every language held (`es`, `en`, `fr`, `de`, `it`) when one other than Spanish is; null
 *   otherwise, which every listing stored so far is (their `title` and `description` are Spanish).
 * - property_docs.lang_texts: the published form of those texts (titles as plain text,
 *   descriptions through the allowlist), `{"<lang>": {"title", "description"}}`; null when only
 *   Spanish is held. The Property object (`api_doc`) keeps the default text.
 * - The facts of `specs` that the import now checks (`energy_certificate`, `floor`,
 *   `community_fees`, `year_built`, `condition`) are made to keep those rules in the listings
 *   stored before, so that an edit of one (a status moved in the console) is never refused for
 *   a value it did not touch: a `condition` written in other words is given its term (`reformado`,
 *   as the demo catalogue wrote it, is `buen-estado`), and any other value that breaks its rule
 *   is kept under `<key>_as_imported` in the same place, in `specs` and in the published document.
 *
 * Frozen; imports nothing from the app (the rules below are a copy of
 * domain/catalogue/listing-facts.ts as it was when this was written).
 */
import { type Kysely, sql } from 'kysely';

/** A condition in other words (lower case, hyphens as spaces) → its term. */
const CONDITION_WORDS: Record<string, string> = {
  'obra nueva': 'obra-nueva',
  nuevo: 'obra-nueva',
  nueva: 'obra-nueva',
  'a estrenar': 'obra-nueva',
  new: 'obra-nueva',
  'buen estado': 'buen-estado',
  bueno: 'buen-estado',
  reformado: 'buen-estado',
  good: 'buen-estado',
  'a reformar': 'a-reformar',
  'para reformar': 'a-reformar',
  'to restore': 'a-reformar',
};

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isInteger = (v: unknown): v is number => isNumber(v) && Number.isInteger(v);

/** What a stored fact becomes: kept, given another value, or moved to `<key>_as_imported`. */
function settle(key: string, value: unknown, year: number): { keep: true } | { value: unknown } | { move: true } {
  if (value === null || value === undefined) return { keep: true };
  switch (key) {
    case 'condition': {
      if (typeof value !== 'string') return { move: true };
      const term = CONDITION_WORDS[value.trim().toLowerCase().replace(/-/g, ' ')];
      return term === undefined ? { move: true } : term === value ? { keep: true } : { value: term };
    }
    case 'floor':
      if (typeof value === 'string') {
        const bad =
          value.trim() === '' || value.length > 40 || (/^\s*[+-]?\d+\s*$/.test(value) && (Number(value) < -5 || Number(value) > 200));
        return bad ? { move: true } : { keep: true };
      }
      return isInteger(value) && value >= -5 && value <= 200 ? { keep: true } : { move: true };
    case 'community_fees':
      return isNumber(value) && value >= 0 && value <= 100_000 ? { keep: true } : { move: true };
    case 'year_built':
      return isInteger(value) && value >= 1000 && value <= year + 10 ? { keep: true } : { move: true };
    case 'energy_certificate': {
      if (typeof value !== 'object' || Array.isArray(value)) return { move: true };
      const c = value as Record<string, unknown>;
      const rating = c.rating ?? null;
      const consumption = c.consumption_kwh_m2_year ?? null;
      const emissions = c.emissions_kg_co2_m2_year ?? null;
      const valid =
        typeof c.status === 'string' &&
        ['available', 'in_process', 'exempt'].includes(c.status) &&
        (rating === null || (typeof rating === 'string' && /^[A-G]$/.test(rating))) &&
        (consumption === null || (isNumber(consumption) && consumption >= 0 && consumption <= 2000)) &&
        (emissions === null || (isNumber(emissions) && emissions >= 0 && emissions <= 500)) &&
        (c.status === 'available' ? rating !== null : rating === null && consumption === null && emissions === null);
      if (!valid) return { move: true };
      const canonical = { status: c.status, rating, consumption_kwh_m2_year: consumption, emissions_kg_co2_m2_year: emissions };
      return JSON.stringify(canonical) === JSON.stringify(value) ? { keep: true } : { value: canonical };
    }
    default:
      return { keep: true };
  }
}

const FACTS = ['energy_certificate', 'floor', 'community_fees', 'year_built', 'condition'];

/** `specs` with its facts settled, keys in the same order; null when nothing changes. */
function settled(specs: Record<string, unknown>, year: number): Record<string, unknown> | null {
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(specs)) {
    const outcome = FACTS.includes(key) ? settle(key, value, year) : { keep: true as const };
    if ('keep' in outcome) out[key] = value;
    else if ('value' in outcome) {
      out[key] = outcome.value;
      changed = true;
    } else {
      out[`${key}_as_imported`] = value;
      changed = true;
    }
  }
  return changed ? out : null;
}

/** Listings read per step. */
const STEP = 2000;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table properties add column titles text`.execute(db);
  await sql`alter table properties add column descriptions text`.execute(db);
  await sql`alter table property_docs add column lang_texts text`.execute(db);

  const year = new Date().getUTCFullYear();
  const mentions = FACTS.map((key) => `%"${key}":%`);
  let after = 0;
  for (;;) {
    const rows = await sql<{ id: number; specs: string; api_doc: string | null }>`
      select p.id, p.specs, d.api_doc from properties p left join property_docs d on d.property_id = p.id
      where p.id > ${after} and p.specs is not null
        and (${sql.join(
          mentions.map((m) => sql`p.specs like ${m}`),
          sql` or `,
        )})
      order by p.id limit ${STEP}`.execute(db);
    if (rows.rows.length === 0) break;
    after = rows.rows[rows.rows.length - 1].id;
    for (const row of rows.rows) {
      const specs = settled(JSON.parse(row.specs) as Record<string, unknown>, year);
      if (specs === null) continue;
      await sql`update properties set specs = ${JSON.stringify(specs)} where id = ${row.id}`.execute(db);
      if (row.api_doc === null) continue;
      const doc = JSON.parse(row.api_doc) as { specs?: Record<string, unknown> | null };
      const published = doc.specs ? settled(doc.specs, year) : null;
      if (published === null) continue;
      doc.specs = published;
      await sql`update property_docs set api_doc = ${JSON.stringify(doc)} where property_id = ${row.id}`.execute(db);
    }
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table property_docs drop column lang_texts`.execute(db);
  await sql`alter table properties drop column descriptions`.execute(db);
  await sql`alter table properties drop column titles`.execute(db);
}
