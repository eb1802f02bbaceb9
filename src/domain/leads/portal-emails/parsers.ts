/**
 * The portals read by a parser of their own (CONTRACT §19), apart from index.ts so that trust.ts,
 * which index.ts uses, can ask which portal sends from a domain without importing index.ts back.
 */
import { fotocasa } from './fotocasa.ts';
import { habitaclia } from './habitaclia.ts';
import { idealista } from './idealista.ts';
import { pisosCom } from './pisos-com.ts';
import type { PortalParser } from './portal.ts';

/** The portals read by a parser of their own, in the order they are tried. */
export const PORTAL_PARSERS: readonly PortalParser[] = [idealista, fotocasa, habitaclia, pisosCom];
