/**
 * The fake Trunk's webhooks behave as Svix's: signed with the endpoint's `whsec_` secret (the app's own
 * verifier accepts them), the same `msg_` id on every retry, retries after a non-2xx answer, a lost message
 * during an outage, and on request a duplicate and an out-of-order delivery.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeWebhooks, newWebhookSecret } from '../../../dev/fakes/trunk/index.ts';
import { verifyDelivery } from '../../../src/webhooks/verify.ts';

interface Received {
  id: string;
  type: string;
  verified: boolean;
}

const SECRET = newWebhookSecret();
let server: Server;
let url = '';
const received: Received[] = [];
/** Answers queued for the next requests (default 200). */
const answers: number[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const v = verifyDelivery(body, req.headers, [SECRET]);
      received.push({
        id: String(req.headers['svix-id']),
        type: JSON.parse(body.toString()).type,
        verified: v.ok,
      });
      res.writeHead(answers.shift() ?? 200).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('fake Trunk webhooks', () => {
  it('signs as Svix does and retries a failed delivery with the same id', async () => {
    received.length = 0;
    const hooks = new FakeWebhooks();
    hooks.subscribe(url, SECRET);
    answers.push(500, 503);
    const id = hooks.deliver('pull_request.testing', { pr_number: 1 });
    await hooks.settled();
    expect(id).toMatch(/^msg_/);
    expect(received.map((r) => r.id)).toEqual([id, id, id]);
    expect(received.every((r) => r.verified)).toBe(true);
    expect(hooks.attempts.map((a) => a.status)).toEqual([500, 503, 200]);
  });

  it('loses messages during an outage, and sends only the types an endpoint took', async () => {
    received.length = 0;
    const hooks = new FakeWebhooks();
    hooks.subscribe(url, SECRET, { types: ['pull_request.'] });
    hooks.setOutage(true);
    hooks.deliver('pull_request.merged', { pr_number: 2 });
    hooks.setOutage(false);
    hooks.deliver('v2.test_case.status_changed', {});
    hooks.deliver('pull_request.failed', { pr_number: 3 });
    await hooks.settled();
    expect(received.map((r) => r.type)).toEqual(['pull_request.failed']);
    expect(hooks.lost.map((l) => l.type)).toEqual(['pull_request.merged']);
  });

  it('duplicates and reorders when asked', async () => {
    received.length = 0;
    const hooks = new FakeWebhooks();
    hooks.subscribe(url, SECRET);
    hooks.setChaos({ duplicateRate: 1 });
    const dup = hooks.deliver('pull_request.queued', { pr_number: 4 });
    await hooks.settled();
    expect(received.map((r) => r.id)).toEqual([dup, dup]);

    received.length = 0;
    hooks.setChaos({ reorderRate: 1 });
    const first = hooks.deliver('pull_request.submitted', { pr_number: 5 });
    const second = hooks.deliver('pull_request.testing', { pr_number: 5 });
    hooks.flush();
    await hooks.settled();
    expect(received.map((r) => r.id)).toEqual([second, first]);
  });
});
