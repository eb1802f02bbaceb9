/**
 * The media store (media/store.ts, CONTRACT §14): the folder and an S3-compatible bucket (moto's
 * server, a real S3 API over HTTP) keep, give back and delete the same objects, and take no key
 * that is not a media key (no path a client could steer).
 */
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FolderMediaStore, S3MediaStore, type MediaStore } from '../../src/media/store.ts';
import { motoHere, startMoto, type Moto } from '../helpers/moto.ts';

const KEY = 'p/12/0f8fad5b-d9cb-469f-a165-70867728950e-480.jpg';
const OTHER = 'p/12/7c9e6679-7425-40de-944b-e07fc1f90ae7-960.jpg';

/** What every store must do. */
function behavesAsAStore(open: () => MediaStore) {
  it('keeps an object and gives it back with its type and size; a missing one is null', async () => {
    const store = open();
    await store.put(KEY, Buffer.from('jpeg bytes'), 'image/jpeg');
    const object = await store.get(KEY);
    expect(object).toMatchObject({ contentType: 'image/jpeg', bytes: 10 });
    expect(await text(object!.body)).toBe('jpeg bytes');
    expect(await store.get(OTHER)).toBeNull();
  });

  it('deletes objects, missing ones being no error', async () => {
    const store = open();
    await store.put(OTHER, Buffer.from('x'), 'image/jpeg');
    await store.delete([KEY, OTHER, 'p/12/00000000-0000-0000-0000-000000000000-480.jpg']);
    expect([await store.get(KEY), await store.get(OTHER)]).toEqual([null, null]);
  });

  it('takes no key that is not a media key', async () => {
    const store = open();
    for (const key of ['../etc/passwd', 'p/12/../../x-480.jpg', '/p/1/0f8fad5b-d9cb-469f-a165-70867728950e-480.jpg', 'p/1/x.jpg']) {
      expect(await store.get(key), key).toBeNull();
      await expect(store.put(key, Buffer.from('x'), 'image/jpeg'), key).rejects.toThrow('not a media key');
    }
  });
}

describe('the folder store', () => {
  const dir = mkdtempSync(join(tmpdir(), 'inmo-media-'));
  behavesAsAStore(() => new FolderMediaStore(dir));

  it('writes only under its folder, never a half-written file', async () => {
    await new FolderMediaStore(dir).put(KEY, Buffer.from('y'), 'image/jpeg');
    expect(readdirSync(join(dir, 'p', '12'))).toEqual(['0f8fad5b-d9cb-469f-a165-70867728950e-480.jpg']);
  });
});

describe.skipIf(!motoHere('S3 media store test'))('the S3 store, against moto_server', () => {
  let moto: Moto;
  let store: S3MediaStore;
  beforeAll(async () => {
    moto = await startMoto();
    store = new S3MediaStore({ bucket: moto.bucket, endpoint: moto.endpoint, region: 'us-east-1', credentials: moto.credentials });
  }, 30_000);
  afterAll(async () => {
    store?.destroy();
    await moto?.stop();
  });
  behavesAsAStore(() => store);

  it('stores objects with immutable cache headers, for a CDN or the bucket serving them directly', async () => {
    await store.put(KEY, Buffer.from('z'), 'image/jpeg');
    const client = new S3Client({ region: 'us-east-1', endpoint: moto.endpoint, forcePathStyle: true, credentials: moto.credentials });
    const head = await client.send(new HeadObjectCommand({ Bucket: moto.bucket, Key: KEY }));
    client.destroy();
    expect([head.CacheControl, head.ContentType]).toEqual(['public, max-age=31536000, immutable', 'image/jpeg']);
  });
});
