/** The website kit's script (issue 30, CONTRACT §17): one small ES module, named by its hash, with its SRI. */
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { expect, it } from 'vitest';
import { embedBundle } from '../../src/services/integrations/website-kit-bundle.ts';

it('is one ES module of at most 25 KB gzipped, importing nothing, with its hash and SRI', async () => {
  const bundle = await embedBundle();
  const code = bundle.code.toString('utf8');
  expect(bundle.gzipBytes).toBe(gzipSync(bundle.code, { level: 9 }).length);
  expect(bundle.gzipBytes).toBeLessThanOrEqual(25 * 1024);
  // Nothing to load: no import of another module, no URL of another host.
  expect(code).not.toMatch(/\bimport\s*[("'{*]/);
  expect(code).not.toMatch(/https?:\/\//);
  expect(code).toContain('customElements.define');
  expect(bundle.hash).toBe(createHash('sha256').update(bundle.code).digest('hex').slice(0, 16));
  expect(bundle.integrity).toBe(`sha384-${createHash('sha384').update(bundle.code).digest('base64')}`);
  // Built once per process.
  expect(await embedBundle()).toBe(bundle);
});
