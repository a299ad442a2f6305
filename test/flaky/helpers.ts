/**
 * Flaky-test deliveries for tests: Trunk's payloads (spec/trunk-webhooks.md §4) and the one place a delivery
 * reaches the app. Today `deliver` hands a WebhookDelivery to the app's test-case sink (RunningApp.testCases),
 * as the inbox worker does after verifying a signed POST; once the receiving side is merged, only `deliver`
 * changes (to a signed POST /trunk/webhooks/<workspace> and a wait for the inbox), and every test keeps its words.
 */
import { randomUUID } from 'node:crypto';
import { type FakeTestCase, testCaseParts, testStatusChanged } from '../../dev/fakes/trunk/index.ts';
import type { SinkOutcome, WebhookDelivery } from '../../src/webhooks/ports.ts';
import { type Harness, TEAM } from '../helpers/app-harness.ts';

export interface TestCaseFields {
  id: string;
  name?: string;
  file?: string;
  codeowners?: string[];
  /** `owner/repo` on github.com. */
  repo?: string;
  quarantined?: boolean;
}

function testCase(t: TestCaseFields) {
  return testCaseParts(fake(t));
}

function fake(t: TestCaseFields): FakeTestCase {
  return {
    id: t.id,
    name: t.name ?? 'checkout > charges card',
    classname: 'CheckoutSpec',
    file: t.file ?? 'src/checkout.test.ts',
    codeowners: t.codeowners ?? ['@acme/payments'],
    repo: t.repo ?? 'acme/widgets',
    quarantined: t.quarantined ?? false,
  };
}

export function statusChanged(t: TestCaseFields, previous: string, next: string, at = new Date()) {
  return {
    type: 'v2.test_case.status_changed',
    timestamp: at.toISOString(),
    ...testStatusChanged(fake(t), previous, next),
  };
}

export function investigationCompleted(t: TestCaseFields, markdown: string) {
  return {
    type: 'test_case.investigation_completed',
    investigation_id: randomUUID(),
    trigger: 'AUTOMATIC',
    confidence: 0.8,
    created_at: new Date().toISOString(),
    markdown_summary: markdown,
    failure_message: 'expected 200, got 502',
    facts: [],
    ...testCase(t),
  };
}

export function monitorChanged(t: TestCaseFields, status: 'active' | 'resolved') {
  return {
    type: 'test_case.monitor_status_changed',
    timestamp: new Date().toISOString(),
    monitor: { id: '1a2b3c4d-5e6f-4a1b-8c9d-0e1f2a3b4c5d', type: 'pass_on_retry', status },
    evidence: {},
    ...testCase(t),
  };
}

/** A verified delivery as the inbox hands it over: `deliveryId` is Svix's message id (the same on a retry). */
export function delivery(
  payload: { type: string; timestamp?: string },
  o: { deliveryId?: string; workspaceId?: string } = {},
): WebhookDelivery {
  const now = Date.now();
  return {
    deliveryId: o.deliveryId ?? `msg_${randomUUID().replaceAll('-', '')}`,
    workspaceId: o.workspaceId ?? TEAM,
    type: payload.type,
    occurredAt: payload.timestamp ? Date.parse(payload.timestamp) : now,
    receivedAt: now,
    payload,
  };
}

/** Hands one delivery to the app, as the inbox worker would; what the sink said it did. */
export async function deliver(h: Harness, d: WebhookDelivery): Promise<SinkOutcome> {
  const sink = h.app?.testCases;
  if (!sink) throw new Error('deliver needs an in-process app');
  if (!sink.accepts(d.type)) return 'ignored';
  return sink.apply(d);
}
