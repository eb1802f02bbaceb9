/**
 * Files uploaded through the console (a catalogue file, a listing's photos): read only by the route that takes
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
import { allowUpload } from '../connections.ts';

/** A file received, in its upload's temp folder. */
export interface UploadedFile {
  path: string;
  /** The name the browser gave (never used as a path). */
  fileName: string;
  bytes: number;
}

/** The files of one request, in a temp folder of their own; deleted after the response unless `claimed`. */
export interface ConsoleUpload {
  dir: string;
  files: UploadedFile[];
  claimed: boolean;
}

/** Prefix of the temp folders of uploads. */
const PREFIX = 'inmo-upload-';
/** An upload folder older than this when a process starts was left by one that died, ms. */
const STALE_MS = 24 * 60 * 60 * 1000;

/**
 * Reads the files of a multipart request into a new temp folder, in the order sent.
 * @param limits.maxBytes the largest file accepted, bytes; `maxFiles` how many at most.
 * @returns the upload (an empty one when the request has no file), or null when it is not multipart.
 * @throws the multipart error (413 past `maxBytes` or `maxFiles`, 4xx for a malformed body, or
 *   the connection's when the client aborts), with the temp folder already removed.
 */
export async function receiveUploads(
  request: FastifyRequest,
  limits: { maxBytes: number; maxFiles: number },
): Promise<ConsoleUpload | null> {
  if (!request.isMultipart()) return null;
  // The session and the CSRF token are checked: the body may take the upload's time (http/connections.ts).
  allowUpload(request.raw);
  const dir = await mkdtemp(join(tmpdir(), PREFIX));
  const files: UploadedFile[] = [];
  try {
    const parts = request.files({ limits: { files: limits.maxFiles, fileSize: limits.maxBytes, fields: 10, parts: limits.maxFiles + 10 } });
    for await (const part of parts) {
      const path = join(dir, `upload-${files.length}`);
      await pipeline(part.file, createWriteStream(path));
      // An empty file input still sends a part, with no name and no bytes: not a file.
      if (part.file.bytesRead === 0 && !part.filename) continue;
      files.push({ path, fileName: part.filename || `file-${files.length + 1}`, bytes: part.file.bytesRead });
    }
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return { dir, files, claimed: false };
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
