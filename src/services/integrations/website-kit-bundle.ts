/**
 * The website kit's script (issue 30, CONTRACT §17): src/embed/inmo.ts bundled by esbuild into
 * one minified ES module for browsers, once per process, kept in memory with what serving and
 * pasting it need: its hash (the immutable copy's name), its Subresource Integrity and its size.
 */
import { createHash } from 'node:crypto';
import { escapeUTF8 } from 'entities';
import { gzipSync } from 'node:zlib';
import { inPackage } from '../../package-root.ts';
import type { Db } from '../../db/database.ts';
import { findBusiness } from '../../db/repositories/businesses.ts';
import { parseApiKey } from '../../domain/access/api-key.ts';
import { InmoError } from '../../errors.ts';
import { findApiKey, keyState } from '../access/api-keys.ts';

/** The bundle, and what is said of it. */
export interface EmbedBundle {
  /** The module's bytes (UTF-8 JavaScript). */
  code: Buffer;
  /** 16 hex digits of its SHA-256: `/embed/v1/inmo.<hash>.js`. */
  hash: string;
  /** `sha384-<base64>`, for the script tag's `integrity`. */
  integrity: string;
  /** Its size gzipped, bytes (the issue's budget: 25 KB). */
  gzipBytes: number;
}

/** The JavaScript the kit is written down to: every browser with custom elements and shadow DOM reads ES2020. */
const TARGET = 'es2020';

let bundle: Promise<EmbedBundle> | null = null;

/**
 * The kit's bundle, built on first use in this process.
 * @throws Error with esbuild's messages when the source does not build.
 */
export function embedBundle(): Promise<EmbedBundle> {
  if (!bundle) {
    bundle = build();
    bundle.catch(() => (bundle = null));
  }
  return bundle;
}

async function build(): Promise<EmbedBundle> {
  const { build } = await import('esbuild');
  const { outputFiles } = await build({
    entryPoints: [inPackage('src', 'embed', 'inmo.ts')],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: TARGET,
    minify: true,
    legalComments: 'none',
    write: false,
    logLevel: 'silent',
  });
  const code = Buffer.from(outputFiles[0].contents);
  return {
    code,
    hash: createHash('sha256').update(code).digest('hex').slice(0, 16),
    integrity: `sha384-${createHash('sha384').update(code).digest('base64')}`,
    gzipBytes: gzipSync(code, { level: 9 }).length,
  };
}

/**
 * The two tags to paste into a page (`inmo embed snippet`, CONTRACT §17): the script under its
 * hash with its `integrity`, and `<inmo-listings>` with the server's API and the key (its listings
 * open in place with the form to ask about them), or `<inmo-inquiry-form>` for a key that may only
 * send leads.
 * @param options.baseUrl the server's public URL (`https://inmo.agency.example`).
 * @param options.key a publishable key of the business (`AC_PUB_…`), active.
 * @returns `{html}`.
 * @throws InmoError UNKNOWN_BUSINESS; EMBED_KEY for a key that is not an active publishable key of
 *   the business; EMBED_URL for a base URL that is not http(s).
 */
export async function embedSnippet(db: Db, options: { businessId: number; key: string; baseUrl: string }): Promise<{ html: string }> {
  if (!(await findBusiness(db, options.businessId))) throw new InmoError('UNKNOWN_BUSINESS', { id: options.businessId });
  const parsed = parseApiKey(options.key.trim());
  const stored = parsed?.publishable ? await findApiKey(db, options.businessId, parsed.keyId) : undefined;
  if (!stored || stored.kind !== 'publishable' || keyState(stored) !== 'active') throw new InmoError('EMBED_KEY');
  if (!/^https?:\/\/[^\s/]+/.test(options.baseUrl)) throw new InmoError('EMBED_URL');
  const base = options.baseUrl.replace(/\/+$/, '');
  const { hash, integrity } = await embedBundle();
  const common = `api="${escapeUTF8(`${base}/v1/ext`)}" key="${escapeUTF8(options.key.trim())}" lang="es"`;
  // The catalogue (its listings open in place, each with the form to ask about it) when the key
  // may read it, else the contact form alone.
  const element = stored.scopes.includes('properties:read') ? 'inmo-listings' : 'inmo-inquiry-form';
  return {
    html:
      `<script type="module" src="${escapeUTF8(`${base}/embed/v1/inmo.${hash}.js`)}" integrity="${integrity}" crossorigin="anonymous"></script>\n` +
      `<${element} ${common}></${element}>`,
  };
}
