/**
 * Where listings' photos are kept (CONTRACT §14): a folder (`INMO_MEDIA_DIR`, default
 * `./data/media`), or an S3-compatible bucket (`INMO_MEDIA_S3_*`) that every API process
 * shares. Objects are written once and never changed (a new photo gets a new key), so they are
 * served with immutable cache headers.
 *
 * Keys are `p/<listing id>/<uuid>-<width>.jpg`: nothing a client sends becomes a path.
 */
import { createReadStream } from 'node:fs';
import { mkdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import type { MediaSettings } from '../config.ts';

/** A media key: `p/<listing id>/<uuid>-<width>.jpg`. */
export const MEDIA_KEY = /^p\/\d{1,15}\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-\d{1,5}\.jpg$/;

/** `Cache-Control` of every media object: it never changes under its key. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';

/** A stored object being read. */
export interface MediaObject {
  body: Readable;
  contentType: string;
  /** Bytes. */
  bytes: number;
}

/** A place that keeps media objects by key. */
export interface MediaStore {
  /** Which kind, for logs and the operator. */
  readonly kind: 'folder' | 's3';
  /** Stores `body` under `key` (a {@link MEDIA_KEY}). @throws the store's error (nothing is left half written). */
  put(key: string, body: Buffer, contentType: string): Promise<void>;
  /** The object under `key`, or null when there is none (or the key is not a media key). */
  get(key: string): Promise<MediaObject | null>;
  /** Deletes objects (missing ones are no error). */
  delete(keys: readonly string[]): Promise<void>;
}

/** A folder on this machine (one process, or processes sharing the disk). */
export class FolderMediaStore implements MediaStore {
  readonly kind = 'folder' as const;
  private readonly root: string;

  constructor(dir: string) {
    this.root = resolve(dir);
  }

  private pathOf(key: string): string {
    if (!MEDIA_KEY.test(key)) throw new Error(`not a media key: ${JSON.stringify(key)}`);
    return join(this.root, key);
  }

  async put(key: string, body: Buffer, _contentType: string): Promise<void> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true });
    // Written aside, then renamed: a reader never sees half a photo.
    const partial = `${path}.partial`;
    await writeFile(partial, body);
    await rename(partial, path);
  }

  async get(key: string): Promise<MediaObject | null> {
    if (!MEDIA_KEY.test(key)) return null;
    const path = this.pathOf(key);
    const info = await stat(path).catch(() => null);
    if (!info?.isFile()) return null;
    return { body: createReadStream(path), contentType: 'image/jpeg', bytes: info.size };
  }

  async delete(keys: readonly string[]): Promise<void> {
    for (const key of keys) await rm(this.pathOf(key), { force: true });
  }
}

/** An S3-compatible bucket (AWS S3, MinIO, Ceph, moto…). */
export class S3MediaStore implements MediaStore {
  readonly kind = 's3' as const;
  /** The SDK, loaded when the first bucket is opened (a folder store never loads it), and the client. */
  private readonly ready: Promise<{ s3: typeof import('@aws-sdk/client-s3'); client: S3Client }>;

  constructor(private readonly settings: NonNullable<MediaSettings['s3']>) {
    this.ready = import('@aws-sdk/client-s3').then((s3) => ({
      s3,
      client: new s3.S3Client({
        region: settings.region,
        ...(settings.endpoint ? { endpoint: settings.endpoint, forcePathStyle: true } : {}),
        ...(settings.credentials ? { credentials: settings.credentials } : {}),
      }),
    }));
  }

  async put(key: string, body: Buffer, contentType: string): Promise<void> {
    if (!MEDIA_KEY.test(key)) throw new Error(`not a media key: ${JSON.stringify(key)}`);
    const { s3, client } = await this.ready;
    await client.send(
      new s3.PutObjectCommand({ Bucket: this.settings.bucket, Key: key, Body: body, ContentType: contentType, CacheControl: IMMUTABLE }),
    );
  }

  async get(key: string): Promise<MediaObject | null> {
    if (!MEDIA_KEY.test(key)) return null;
    const { s3, client } = await this.ready;
    try {
      const object = await client.send(new s3.GetObjectCommand({ Bucket: this.settings.bucket, Key: key }));
      return { body: object.Body as Readable, contentType: object.ContentType ?? 'image/jpeg', bytes: object.ContentLength ?? 0 };
    } catch (error) {
      if (error instanceof s3.NoSuchKey || (error as { name?: string }).name === 'NoSuchKey') return null;
      throw error;
    }
  }

  async delete(keys: readonly string[]): Promise<void> {
    const { s3, client } = await this.ready;
    for (let i = 0; i < keys.length; i += 1000) {
      const chunk = keys.slice(i, i + 1000);
      if (chunk.length === 0) continue;
      await client.send(
        new s3.DeleteObjectsCommand({ Bucket: this.settings.bucket, Delete: { Objects: chunk.map((Key) => ({ Key })), Quiet: true } }),
      );
    }
  }

  /** Closes the client's connections. */
  destroy(): void {
    void this.ready.then(({ client }) => client.destroy());
  }
}

/** The store the settings name: the bucket when one is set, else the folder. */
export function mediaStoreOf(settings: MediaSettings): MediaStore {
  return settings.s3 ? new S3MediaStore(settings.s3) : new FolderMediaStore(settings.dir);
}
