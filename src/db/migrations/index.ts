/** The ordered, frozen migrations, given to Kysely's Migrator without a file-system scan. */
import type { Migration, MigrationProvider } from 'kysely';
import * as m0001 from './0001_initial.ts';
import * as m0002 from './0002_jobs.ts';
import * as m0003 from './0003_background.ts';
import * as m0004 from './0004_conversations.ts';
import * as m0005 from './0005_change_signals.ts';
import * as m0006 from './0006_catalogue_scale.ts';
import * as m0007 from './0007_console.ts';
import * as m0008 from './0008_lead_sync.ts';
import * as m0009 from './0009_idempotency.ts';
import * as m0010 from './0010_catalogue_changes.ts';
import * as m0011 from './0011_events_webhooks.ts';
import * as m0012 from './0012_publishable_keys.ts';
import * as m0013 from './0013_jobs_due_index.ts';
import * as m0014 from './0014_published_feeds.ts';
import * as m0015 from './0015_feed_sources.ts';
import * as m0016 from './0016_lead_work.ts';
import * as m0017 from './0017_import_refs.ts';
import * as m0018 from './0018_lead_consents.ts';
import * as m0019 from './0019_erasure_audit.ts';
import * as m0020 from './0020_lead_version.ts';
import * as m0021 from './0021_media_objects.ts';
import * as m0022 from './0022_pull_holds.ts';
import * as m0023 from './0023_lead_interactions.ts';
import * as m0024 from './0024_endpoint_signals.ts';
import * as m0025 from './0025_inbound_email.ts';
import * as m0026 from './0026_email_pulls.ts';
import * as m0027 from './0027_email_out.ts';
import * as m0028 from './0028_listing_languages.ts';
import * as m0029 from './0029_idealista_feeds.ts';
import * as m0030 from './0030_viewings.ts';
import * as m0031 from './0031_lead_search_text.ts';
import * as m0032 from './0032_alerts.ts';
import * as m0033 from './0033_property_search_text.ts';
import * as m0034 from './0034_follow_up_snooze.ts';
import * as m0035 from './0035_calendar_urls.ts';
import * as m0036 from './0036_user_display_names.ts';
import * as m0037 from './0037_listing_pages.ts';
import * as m0038 from './0038_listing_closings.ts';
import * as m0039 from './0039_viewing_notices.ts';
import * as m0040 from './0040_visit_sheets.ts';
import * as m0041 from './0041_hand_sends.ts';
import * as m0042 from './0042_rematch.ts';
import * as m0043 from './0043_alert_pages.ts';
import * as m0044 from './0044_email_reading.ts';
import * as m0045 from './0045_who_is_believed.ts';
import * as m0046 from './0046_email_pull_skips.ts';
import * as m0047 from './0047_viewing_requests.ts';
import * as m0048 from './0048_email_listing.ts';
import * as m0049 from './0049_email_from_name.ts';
import * as m0051 from './0051_price_drops.ts';
import * as m0054 from './0054_inbound_addresses.ts';
import * as m0056 from './0056_listed_listings.ts';
import * as m0058 from './0058_schedule_runs.ts';
import * as m0059 from './0059_listing_owners.ts';
import * as m0060 from './0060_owner_stages.ts';
import * as m0061 from './0061_viewing_kinds.ts';
import * as m0062 from './0062_mandates.ts';
import * as m0063 from './0063_owner_reports.ts';

export const migrationProvider: MigrationProvider = {
  async getMigrations(): Promise<Record<string, Migration>> {
    return {
      '0001_initial': m0001,
      '0002_jobs': m0002,
      '0003_background': m0003,
      '0004_conversations': m0004,
      '0005_change_signals': m0005,
      '0006_catalogue_scale': m0006,
      '0007_console': m0007,
      '0008_lead_sync': m0008,
      '0009_idempotency': m0009,
      '0010_catalogue_changes': m0010,
      '0011_events_webhooks': m0011,
      '0012_publishable_keys': m0012,
      '0013_jobs_due_index': m0013,
      '0014_published_feeds': m0014,
      '0015_feed_sources': m0015,
      '0016_lead_work': m0016,
      '0017_import_refs': m0017,
      '0018_lead_consents': m0018,
      '0019_erasure_audit': m0019,
      '0020_lead_version': m0020,
      '0021_media_objects': m0021,
      '0022_pull_holds': m0022,
      '0023_lead_interactions': m0023,
      '0024_endpoint_signals': m0024,
      '0025_inbound_email': m0025,
      '0026_email_pulls': m0026,
      '0027_email_out': m0027,
      '0028_listing_languages': m0028,
      '0029_idealista_feeds': m0029,
      '0030_viewings': m0030,
      '0031_lead_search_text': m0031,
      '0032_alerts': m0032,
      '0033_property_search_text': m0033,
      '0034_follow_up_snooze': m0034,
      '0035_calendar_urls': m0035,
      '0036_user_display_names': m0036,
      '0037_listing_pages': m0037,
      '0038_listing_closings': m0038,
      '0039_viewing_notices': m0039,
      '0040_visit_sheets': m0040,
      '0041_hand_sends': m0041,
      '0042_rematch': m0042,
      '0043_alert_pages': m0043,
      '0044_email_reading': m0044,
      '0045_who_is_believed': m0045,
      '0046_email_pull_skips': m0046,
      '0047_viewing_requests': m0047,
      '0048_email_listing': m0048,
      '0049_email_from_name': m0049,
      '0051_price_drops': m0051,
      '0054_inbound_addresses': m0054,
      '0056_listed_listings': m0056,
      '0058_schedule_runs': m0058,
      '0059_listing_owners': m0059,
      '0060_owner_stages': m0060,
      '0061_viewing_kinds': m0061,
      '0062_mandates': m0062,
      '0063_owner_reports': m0063,
    };
  },
};
