/**
 * A local S3-compatible server for the media store's tests: moto's server mode (`moto_server`,
 * on these machines), on a free port of its own, with one bucket. Skipped, saying so, where
 * `moto_server` is missing, except under `INMO_REQUIRE_S3=1` (which `.ci/run` sets).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';

/** Whether `moto_server` can be run here; when not, says so (and fails under `INMO_REQUIRE_S3=1`). */
export function motoHere(suite: string): boolean {
  const found = spawnSync('moto_server', ['--help'], { stdio: 'ignore' }).status === 0;
  if (found) return true;
  if (process.env.INMO_REQUIRE_S3) throw new Error('moto_server is missing and INMO_REQUIRE_S3 is set (.ci/run)');
  process.stdout.write(`[inmo] ${suite}: skipped (moto_server is missing)\n`);
  return false;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A running moto server with a bucket: its settings as inmo reads them, and how to stop it. */
export interface Moto {
  endpoint: string;
  bucket: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  stop(): Promise<void>;
}

/** Starts moto on a free port, waits until it answers, and creates `bucket`. */
export async function startMoto(bucket = 'inmo-media'): Promise<Moto> {
  const port = await freePort();
  const child: ChildProcess = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  const endpoint = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      if ((await fetch(endpoint)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline || child.exitCode !== null) throw new Error('moto_server did not start');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const credentials = { accessKeyId: 'testing', secretAccessKey: 'testing' };
  const client = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials });
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  client.destroy();
  return {
    endpoint,
    bucket,
    credentials,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
