/** The documents a catalogue is read from and published as (CONTRACT §9, §15, §22), and how often a feed is pulled. */

/** The formats an import reads (CONTRACT §15): told apart by content unless the caller names one. */
export const IMPORT_FORMATS = ['ndjson', 'kyero'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** Formats a feed can be published in: Kyero v3 (CONTRACT §15) and idealista's v6 properties format (§22). */
export const FEED_FORMATS = ['kyero', 'idealista'] as const;
export type FeedFormat = (typeof FEED_FORMATS)[number];

/** The file name of a feed's document in its URL, `/feeds/<token>/<file>`, and its media type. */
export const FEED_FILES = {
  kyero: { file: 'kyero.xml', type: 'application/xml; charset=utf-8' },
  idealista: { file: 'idealista.json', type: 'application/json; charset=utf-8' },
} as const satisfies Record<FeedFormat, { file: string; type: string }>;

/** Pulls, in minutes between them: 5 minutes to a week. */
export const PULL_MINUTES = { min: 5, max: 7 * 24 * 60, default: 360 } as const;

/**
 * The share of a pulled source's listings (0 to 1) one pull may withdraw by itself, by default
 * (`INMO_PULL_WITHDRAW_MAX_SHARE`, issue 41): a pull that would withdraw more is held.
 */
export const PULL_WITHDRAW_MAX_SHARE = 0.5;
