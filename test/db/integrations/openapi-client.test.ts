/**
 * The client generated from the OpenAPI document (test/client/every-operation.ts, through
 * openapi-fetch) against a running server on each engine: every operation, as documented. How
 * tools read the document itself: test/unit/openapi-tooling.test.ts.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../../src/db/database.ts';
import { useEveryOperation } from '../../client/every-operation.ts';
import { businessWithKey, freshDb, importRecords, listing } from '../../helpers/db.ts';
import { appOn, API_ONLY } from '../../helpers/http.ts';

describe('the generated client against a server', () => {
  let db: Db;
  let app: FastifyInstance;
  let key: string;
  let baseUrl: string;

  beforeAll(async () => {
    ({ db } = await freshDb());
    let businessId: number;
    ({ key, businessId } = await businessWithKey(db, 'Inmobiliaria Cliente'));
    await importRecords(db, businessId, [
      listing('c-1', { price: 250_000, address_privacy: 'approximate' }),
      listing('c-2', { price: 180_000 }),
    ]);
    app = await appOn(db, API_ONLY);
    baseUrl = `${await app.listen({ port: 0, host: '127.0.0.1' })}/v1/ext`;
  });
  afterAll(async () => {
    await app.close();
    await db.destroy();
  });

  it('uses every operation as documented', async () => {
    const seen = await useEveryOperation(baseUrl, key, '612000101');
    expect(seen.companyName).toBe('Inmobiliaria Cliente');
    expect(seen.propertyIds).toHaveLength(2);
    expect(seen.firstProperty).toMatchObject({ rentPrice: null });
    expect(['public', 'approximate']).toContain(seen.firstProperty!.privacy);
    expect(seen.inquiryLeadId).toBeGreaterThan(0);
    expect(seen.inquiryReplayed).toBe(true);
    expect(seen.readBack).toEqual({ id: seen.inquiryLeadId, name: 'Ana García' });
    expect(seen.exportedLeadId).toBe(seen.inquiryLeadId);
    // No worker ran: the lead has not been matched yet.
    expect(seen.matchedIds).toEqual([]);
    expect(seen.nearMissCriteria).toEqual([]);
    expect(seen.feedIds).toEqual([...seen.propertyIds].sort((a, b) => a - b));
    expect(seen.feedPages).toBe(1);
    // The two listings imported, then the inquiry and the ingest; the retry created nothing.
    expect(seen.eventTypes).toEqual(['property.changed', 'property.changed', 'lead.created', 'lead.created']);
    expect(seen.ingestStatus).toBe('ok');
    expect(seen.invalidPhone).toBe('Invalid phone number. Use international format, e.g. +34612345678');
    expect(seen.leadTypes.sort()).toEqual(['demandante', 'demandante']);
    expect(seen.leadStatuses).toEqual(['searching_property', 'searching_property']);
    expect(seen.firstLocation).toBeDefined();
    expect(seen.editedName).toBe('Ana García López');
    expect([seen.erasedLeadId, seen.readAfterErasure]).toEqual([seen.inquiryLeadId, 404]);
  });
});
