/** The documents a catalogue is read from and published as (CONTRACT §9, §15), and how often a feed is pulled. */

/** The formats an import reads (CONTRACT §15): told apart by content unless the caller names one. */
export const IMPORT_FORMATS = ['ndjson', 'kyero'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** Formats a feed can be published in. */
export const FEED_FORMATS = ['kyero'] as const;
export type FeedFormat = (typeof FEED_FORMATS)[number];

/** Pulls, in minutes between them: 5 minutes to a week. */
export const PULL_MINUTES = { min: 5, max: 7 * 24 * 60, default: 360 } as const;
