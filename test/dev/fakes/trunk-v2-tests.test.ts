/**
 * The Trunk fake's flaky tests (`/v2/tests…`) through the app's v2 client: each request and answer checked
 * against the OpenAPI subset where it has the operation; the quarantine override refused with 403 naming the
 * permission the key lacks; a ticket link's 409, 422, 502 and 504 kept on the client's errors.
 */
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTrunkFake, type TrunkFake } from '../../../dev/fakes/trunk/index.ts';
import { TrunkAuthError, type TrunkError } from '../../../src/trunk/errors.ts';
import { apiKeyAuth } from '../../../src/trunk/v2/auth.ts';
import { createTrunkV2Client } from '../../../src/trunk/v2/client.ts';
import { v2RequestBodyErrors, v2RequestErrors, v2ResponseErrors } from '../../trunk/openapi-v2.ts';

const agent = new Agent();
let fake: TrunkFake;
beforeAll(async () => {
  fake = await startTrunkFake({});
  fake.v2.setKeys({ trunk_v2_can: ['Quarantine tests'], trunk_v2_cannot: [] });
  fake.v2.tests.set({ id: 'tc-1', name: 'charges card', failureRate: 0.125, runCount: 8, failureCount: 1 });
});
afterAll(async () => {
  await fake.close();
  await agent.close();
});

const client = (key: string) =>
  createTrunkV2Client({
    baseUrl: fake.url,
    auth: apiKeyAuth(key),
    dispatcher: agent,
    defaultDeadlineMs: 5_000,
  });

/** Every request the fake saw, and its answer, valid for the OpenAPI subset. */
function wireProblems(): string[] {
  return fake.requests.flatMap((r) => {
    const body = r.rawBody ? JSON.parse(r.rawBody) : undefined;
    return [
      ...v2RequestErrors(r.method, r.path),
      ...(r.method === 'POST' ? v2RequestBodyErrors(r.method, r.path, body) : []),
    ];
  });
}

describe('fake Trunk v2: flaky tests', () => {
  it('reads a test with its 7-day metrics', async () => {
    const t = await client('trunk_v2_cannot').getTest('tc-1', { metricsPeriod: '7d' });
    expect(t).toMatchObject({ id: 'tc-1', name: 'charges card', metrics: { failureRate: 0.125 } });
    const res = await fetch(`${fake.url}/v2/tests/tc-1?include=metrics&period=7d`, {
      headers: { authorization: 'Bearer trunk_v2_cannot' },
    });
    expect(v2ResponseErrors('GET', '/v2/tests/tc-1', res.status, await res.json())).toEqual([]);
    expect(wireProblems()).toEqual([]);
  });

  it('sets and clears the quarantine override with the permission; 403 names it without', async () => {
    const t = await client('trunk_v2_can').setQuarantineOverride('tc-1', {
      mode: 'alwaysQuarantine',
      reason: 'from Slack by @ada',
    });
    expect(t.quarantineState).toBe('quarantined');
    await client('trunk_v2_can').setQuarantineOverride('tc-1', { mode: 'clear' });
    const refused = await client('trunk_v2_cannot')
      .setQuarantineOverride('tc-1', { mode: 'alwaysQuarantine' })
      .catch((e: unknown) => e as TrunkError);
    expect(refused).toBeInstanceOf(TrunkAuthError);
    expect(refused).toMatchObject({ status: 403, code: 'INSUFFICIENT_PERMISSIONS' });
    expect((refused as TrunkError).userMessage).toContain('Quarantine tests');
    expect(fake.v2.tests.writes.map((w) => w.body['mode'])).toEqual(['alwaysQuarantine', 'clear']);
    // The check can fail: a mode the document does not list is caught.
    expect(v2RequestBodyErrors('POST', '/v2/tests/tc-1/quarantine', { mode: 'sometimes' })).not.toEqual([]);
    // Sent once, not retried.
    expect(fake.requests.filter((r) => r.operation === 'tests.setQuarantineOverride')).toHaveLength(3);
    expect(wireProblems()).toEqual([]);
  });

  it('links a ticket (201 Ticket) and answers 409, 422, 502 and 504 as Trunk documents', async () => {
    const api = client('trunk_v2_cannot');
    const ticket = await api.linkTicket('tc-1', { externalTicketId: 'PAY-9' });
    expect(ticket).toMatchObject({ key: 'PAY-9', url: 'https://acme.atlassian.net/browse/PAY-9' });
    const res = await fetch(`${fake.url}/v2/tests/tc-1/ticket`, {
      method: 'POST',
      headers: { authorization: 'Bearer trunk_v2_cannot', 'content-type': 'application/json' },
      body: JSON.stringify({ externalTicketId: 'PAY-10' }),
    });
    expect(res.status).toBe(201);
    expect(v2ResponseErrors('POST', '/v2/tests/tc-1/ticket', 201, await res.json())).toEqual([]);
    const statusOf = async () =>
      (await api.linkTicket('tc-1', { externalTicketId: 'PAY-11' }).catch((e: unknown) => e)) as TrunkError;
    expect(
      await api.linkTicket('tc-1', { externalTicketId: 'NOPE-1' }).catch((e: unknown) => e),
    ).toMatchObject({
      status: 422,
      code: 'TICKET_NOT_FOUND',
    });
    fake.v2.tests.ticketing = 'not_configured';
    expect(await statusOf()).toMatchObject({ status: 409, code: 'TICKETING_NOT_CONFIGURED' });
    fake.v2.tests.ticketing = 'upstream_error';
    expect(await statusOf()).toMatchObject({ status: 502, code: 'UPSTREAM_ERROR' });
    fake.v2.tests.ticketing = 'timeout';
    expect(await statusOf()).toMatchObject({ status: 504 });
    fake.v2.tests.ticketing = 'ok';
    expect(wireProblems()).toEqual([]);
  });
});
