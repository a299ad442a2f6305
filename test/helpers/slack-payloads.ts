/**
 * Request bodies copied field for field from Slack's documentation (test/fixtures/slack-payloads, each
 * file's source in that folder's README), posted signed to /slack/events like Slack posts them. A test
 * only patches what Slack fills in at run time: the response_url (the fake Slack's), a message ts and the
 * button value the app rendered.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { interactivityOf } from '../../dev/fakes/slack/functions.ts';
import type { FakeFunctionExecution } from '../../dev/fakes/slack/server.ts';
import { interactiveBody } from '../../dev/fakes/slack/signing.ts';
import type { Harness, Sent } from './app-harness.ts';
import { ROOT } from './processes.ts';

const DIR = join(ROOT, 'test', 'fixtures', 'slack-payloads');

/** A fresh copy of a fixture (tests change their copy freely). */
export function payload<T = Record<string, unknown>>(name: string): T {
  return JSON.parse(readFileSync(join(DIR, `${name}.json`), 'utf8')) as T;
}

/** block_actions, view_closed, shortcuts: one form field `payload`, as Slack sends interactivity. */
export function postInteraction(h: Harness, body: Record<string, unknown>): Promise<Sent> {
  return h.postSigned(interactiveBody(body));
}

/** A slash command: its fields form-encoded. */
export function postCommandFields(h: Harness, fields: Record<string, string>): Promise<Sent> {
  return h.postSigned(new URLSearchParams(fields).toString());
}

/** An Events API envelope, as JSON. */
export function postEventEnvelope(h: Harness, envelope: Record<string, unknown>): Promise<Sent> {
  return h.postSigned(JSON.stringify(envelope), { contentType: 'application/json' });
}

/**
 * The same keys at every level, and null exactly where the reference has null: what "follows the
 * documented shape" means for an answer the fake builds itself. Returns the paths that differ.
 */
export function shapeDifferences(actual: unknown, reference: unknown, path = '$'): string[] {
  if (reference === null || actual === null)
    return reference === actual
      ? []
      : [`${path}: ${actual === null ? 'null' : 'set'}, documented ${reference === null ? 'null' : 'set'}`];
  if (typeof reference !== 'object' || typeof actual !== 'object')
    return typeof reference === typeof actual
      ? []
      : [`${path}: ${typeof actual}, documented ${typeof reference}`];
  const a = actual as Record<string, unknown>;
  const r = reference as Record<string, unknown>;
  const out: string[] = [];
  for (const k of Object.keys(r))
    if (!(k in a)) out.push(`${path}.${k}: missing`);
    else out.push(...shapeDifferences(a[k], r[k], `${path}.${k}`));
  return out;
}

/**
 * Runs one of the app's Workflow Builder steps as Slack does: the fake Slack starts an execution (its own
 * token) and its function_executed envelope is posted, signed, to /slack/events. `person`: the user who
 * started the workflow (the `interactivity` input); omit it for a scheduled or event trigger.
 */
export async function runStep(
  h: Harness,
  callbackId: string,
  inputs: Record<string, unknown>,
  opts: { person?: string; teamId?: string; enterpriseId?: string; enterpriseInstall?: boolean } = {},
): Promise<FakeFunctionExecution & { sent: Sent }> {
  const execution = h.slack.startFunction({
    callbackId,
    inputs: { ...inputs, ...(opts.person ? { interactivity: interactivityOf(opts.person) } : {}) },
    ...(opts.teamId ? { teamId: opts.teamId } : {}),
    ...(opts.enterpriseId ? { enterpriseId: opts.enterpriseId } : {}),
    ...(opts.enterpriseInstall ? { enterpriseInstall: true } : {}),
  });
  const sent = await postEventEnvelope(h, execution.envelope);
  return { ...execution, sent };
}
