/**
 * Files uploaded through the console (the catalogue upload): read only by the route that takes
 * them, after its session and CSRF checks have passed (CONTRACT §8), into a temp folder of
 * their own, `inmo-upload-*`. A form posted anywhere else is never read. The folder goes when
 * the upload fails or is aborted half way, after the response unless the route claims it, and,
 * for one a process left behind when it died, when a later process starts.
 */
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { createWriteStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';

/** A received file, in its temp folder; deleted after the response unless `claimed`. */
export interface ConsoleUpload {
  path: string;
  dir: string;
  fileName: string;
  bytes: number;
  claimed: boolean;
}

/** Prefix of the temp folders of uploads. */
const PREFIX = 'inmo-upload-';
/** An upload folder older than this when a process starts was left by one that died, ms. */
const STALE_MS = 24 * 60 * 60 * 1000;

/**
 * Reads the one file of a multipart request into a new temp folder.
 * @param maxBytes the largest file accepted, bytes.
 * @returns the upload, or null when the request has no file (or is not multipart).
 * @throws the multipart error (413 past `maxBytes`, 4xx for a malformed body, or the
 *   connection's when the client aborts), with the temp folder already removed.
 */
export async function receiveUpload(request: FastifyRequest, maxBytes: number): Promise<ConsoleUpload | null> {
  if (!request.isMultipart()) return null;
  const part = await request.file({ limits: { files: 1, fileSize: maxBytes, fields: 10, parts: 11 } });
  if (!part) return null;
  const dir = await mkdtemp(join(tmpdir(), PREFIX));
  const path = join(dir, 'upload');
  try {
    await pipeline(part.file, createWriteStream(path));
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return { path, dir, fileName: part.filename || 'catalogue.ndjson', bytes: part.file.bytesRead, claimed: false };
}

/** Removes the upload folders a process left behind when it died (older than a day). */
export async function sweepStaleUploads(now = Date.now()): Promise<void> {
  const root = tmpdir();
  const entries = await readdir(root).catch(() => []);
  for (const name of entries.filter((e) => e.startsWith(PREFIX))) {
    const dir = join(root, name);
    const info = await stat(dir).catch(() => null);
    if (info?.isDirectory() && now - info.mtimeMs > STALE_MS) await rm(dir, { recursive: true, force: true });
  }
}
