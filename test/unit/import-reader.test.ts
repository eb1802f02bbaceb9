/**
 * The import's reader thread (services/catalogue/import/reader-thread.ts): a large file read and checked on a
 * thread of its own gives exactly the batches the importing thread would read itself, rejected
 * lines and a feed's fault half way included, and stops when its reader stops.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { KyeroDocumentError } from '../../src/feeds/kyero-read.ts';
import { BATCH_SIZE, readCatalogueFile, type ImportFormat, type ReadBatch } from '../../src/services/catalogue/import/read.ts';
import { READER_THREAD_MIN_BYTES, readInThread } from '../../src/services/catalogue/import/reader-thread.ts';

const dir = mkdtempSync(join(tmpdir(), 'inmo-reader-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const NOW = '2026-11-24T10:00:00Z';

/** Every batch of a reading, and the error that ended it (null when it ended well). */
async function readAll(batches: AsyncIterable<ReadBatch>): Promise<{ batches: ReadBatch[]; error: Error | null }> {
  const out: ReadBatch[] = [];
  try {
    for await (const batch of batches) out.push(batch);
    return { batches: out, error: null };
  } catch (error) {
    return { batches: out, error: error as Error };
  }
}

/**
 * A reading without its progress in bytes, which depends on how far the file was read ahead
 * when a batch closed (timing, not content).
 */
const content = ({ batches, error }: { batches: ReadBatch[]; error: Error | null }) => ({
  batches: batches.map(({ items, linesRead }) => ({ items, linesRead })),
  error,
});

const refs = (batches: ReadBatch[]) =>
  batches.flatMap((b) => b.items.map((i) => ('property' in i ? i.property.fields.external_ref : `!${i.line}`)));

const listing = (n: number) =>
  JSON.stringify({
    external_ref: `R-${n}`,
    operation: 'venta',
    type: 'apartamento',
    price: 100_000 + n,
    city: 'Zaragoza',
    description: `<p>${'Piso luminoso con terraza. '.repeat(20)}</p>`,
  });

function feedProperty(n: number): string {
  return `<property><id>P${n}</id><price>${150_000 + n}</price><currency>EUR</currency><price_freq>sale</price_freq><type>Apartment</type><town>Jávea</town><province>Alicante</province><desc><es><![CDATA[${'Apartamento cerca de la playa. '.repeat(15)}]]></es></desc></property>\n`;
}

/** Reads `path` on both threads. @returns both readings. */
async function bothWays(path: string, format: ImportFormat) {
  expect(statSync(path).size).toBeGreaterThanOrEqual(READER_THREAD_MIN_BYTES);
  return { here: await readAll(readCatalogueFile(path, format, NOW)), thread: await readAll(readInThread(path, format, NOW)) };
}

describe('the import reader thread', () => {
  it('reads an NDJSON file into the same batches as the importing thread, rejected and blank lines in place', async () => {
    const path = join(dir, 'big.ndjson');
    const lines = Array.from({ length: 2600 }, (_, i) => listing(i + 1));
    lines[9] = '{"external_ref": "BROKEN"';
    lines[1500] = '';
    lines[2000] = JSON.stringify({ external_ref: 'BAD-PRICE', operation: 'venta', price: 'cheap' });
    writeFileSync(path, `\uFEFF${lines.join('\n')}\n`);
    const { here, thread } = await bothWays(path, 'ndjson');
    expect(content(thread)).toEqual(content(here));
    expect(thread.error).toBeNull();
    expect(thread.batches.slice(0, -1).every((b) => b.items.length === BATCH_SIZE)).toBe(true);
    const all = thread.batches.flatMap((b) => b.items);
    expect(all).toHaveLength(2599);
    expect(all[0]).toMatchObject({ line: 1, property: { fields: { external_ref: 'R-1', price: 100_001 } } });
    expect(all[9]).toMatchObject({ line: 10, reason: expect.stringContaining('invalid JSON') });
    expect(all.find((i) => i.line === 2001)).toMatchObject({ reason: expect.stringContaining('price') });
    expect(all.some((i) => i.line === 1501)).toBe(false);
    expect(thread.batches.at(-1)).toMatchObject({ linesRead: 2600, bytesRead: statSync(path).size });
  });

  it('rejects a line nested 200,000 deep as it rejects any bad line, and reads the rest, on either thread (issue 41)', async () => {
    const path = join(dir, 'deep.ndjson');
    const lines = Array.from({ length: 2600 }, (_, i) => listing(i + 1));
    lines[4] = `{"external_ref": "DEEP", "specs": ${'{"a": '.repeat(200_000)}1${'}'.repeat(200_000)}}`;
    writeFileSync(path, `${lines.join('\n')}\n`);
    const { here, thread } = await bothWays(path, 'ndjson');
    for (const reading of [here, thread]) {
      expect(reading.error).toBeNull();
      const all = reading.batches.flatMap((b) => b.items);
      expect(all).toHaveLength(2600);
      expect(all[4]).toEqual({
        line: 5,
        reason: 'invalid JSON: nesting deeper than 64 levels',
        faults: [{ field: null, rule: 'json_too_deep', ctx: { max: 64 } }],
      });
      expect(all.filter((i) => 'reason' in i)).toHaveLength(1);
    }
  });

  it('reads a Kyero feed that stops being XML half way: every property closed before the fault, then the fault', async () => {
    const path = join(dir, 'broken.xml');
    const properties = Array.from({ length: 1800 }, (_, i) => feedProperty(i + 1));
    properties[1700] = '<property><id>P1701</id><price>1</price></pricey>\n';
    writeFileSync(path, `<?xml version="1.0" encoding="UTF-8"?>\n<root>\n${properties.join('')}</root>\n`);
    const { here, thread } = await bothWays(path, 'kyero');
    expect(refs(thread.batches)).toEqual(refs(here.batches));
    expect(refs(thread.batches)).toEqual(Array.from({ length: 1700 }, (_, i) => `kyero:P${i + 1}`));
    expect(thread.error).toBeInstanceOf(KyeroDocumentError);
    expect(thread.error!.message).toBe(here.error!.message);
    expect(thread.error!.message).toContain('not well-formed XML');
  });

  it('gives a feed property refused by the mapping with its <id>, as the importing thread does', async () => {
    const path = join(dir, 'refused.xml');
    const properties = Array.from({ length: 1700 }, (_, i) => feedProperty(i + 1));
    properties[600] = properties[600].replace('<type>Apartment</type>', '<type>Yacht</type>');
    writeFileSync(path, `<?xml version="1.0" encoding="UTF-8"?>\n<root>\n${properties.join('')}</root>\n`);
    const { here, thread } = await bothWays(path, 'kyero');
    expect(content(thread)).toEqual(content(here));
    expect(thread.batches.flatMap((b) => b.items).find((i) => i.line === 601)).toEqual({
      line: 601,
      id: 'P601',
      reason: '<type> "Yacht" is not a property type inmo can place',
      faults: [{ field: 'type', rule: 'kyero_type', ctx: { value: 'Yacht' } }],
    });
  });

  it('fails with the file system error for a file that is not there, in either format', async () => {
    for (const format of ['ndjson', 'kyero'] as const) {
      for (const reading of [readInThread(join(dir, 'missing'), format, NOW), readCatalogueFile(join(dir, 'missing'), format, NOW)]) {
        const { error } = await readAll(reading);
        expect(error).toMatchObject({ code: 'ENOENT' });
        // Not a document fault: the file was never read.
        expect(error).not.toBeInstanceOf(KyeroDocumentError);
      }
    }
  });

  it('can be stopped after its first batch', async () => {
    const path = join(dir, 'big.ndjson');
    const first: ReadBatch[] = [];
    for await (const batch of readInThread(path, 'ndjson', NOW)) {
      first.push(batch);
      break;
    }
    expect(first).toHaveLength(1);
    expect(first[0].items).toHaveLength(BATCH_SIZE);
  });
});
