/**
 * 0051: a listing whose price drops 3 % or more is news to every searching lead it matches, sent
 * before or not (issue 57 item 9, CONTRACT §21; services/leads/alerts.ts).
 *
 * - alert_match_prices: per (lead, listing) matched, the price the listing had when it started
 *   matching the lead (`price`, read from `price_field`: the column of the operation the lead's
 *   search asks for), the reference of a price drop while the listing was never sent to the lead
 *   (once sent, the newest `alert_items` row is the reference: the price the lead last saw).
 *   Written when a listing starts matching (the lead's first matching included), dropped when it
 *   stops; gone with its lead. Existing matches get today's price, read from the first operation
 *   the listing offers with a price (their searches' operations are not read here).
 * - alert_items.price_before: for a `price_drop` item, the reference price it dropped from (€),
 *   shown struck through ("antes 180.000 €"); null for every other item.
 *
 * Frozen; imports nothing from the app.
 */
import { type Kysely, sql } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await sql`create table alert_match_prices (
    lead_id integer not null references leads(id) on delete cascade,
    property_id integer not null,
    business_id integer not null references businesses(id),
    price_field text not null,
    price double precision,
    created_at text not null,
    primary key (lead_id, property_id)
  )`.execute(db);
  await sql`create index alert_match_prices_business on alert_match_prices (business_id, property_id)`.execute(db);
  await sql`alter table alert_items add column price_before double precision`.execute(db);
  await sql`insert into alert_match_prices (lead_id, property_id, business_id, price_field, price, created_at)
    select lead_id, property_id, business_id, field,
      case field when 'price_rent' then price_rent when 'price_transfer' then price_transfer else price end, at
    from (select m.lead_id, m.property_id, p.business_id, p.price, p.price_rent, p.price_transfer,
        coalesce(r.matched_at, p.updated_at) as at,
        case
          when p.op_venta = 1 and p.price is not null then 'price'
          when p.op_alquiler = 1 and p.price_rent is not null then 'price_rent'
          when p.op_traspaso = 1 and p.price_transfer is not null then 'price_transfer'
          when p.price is not null then 'price'
          when p.price_rent is not null then 'price_rent'
          when p.price_transfer is not null then 'price_transfer'
          else 'price'
        end as field
      from (select distinct lead_id, property_id from lead_matches where failed is null) m
      join properties p on p.id = m.property_id
      left join lead_match_runs r on r.lead_id = m.lead_id) s`.execute(db);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  await sql`alter table alert_items drop column price_before`.execute(db);
  await sql`drop table alert_match_prices`.execute(db);
}
