/**
 * "Tell the truth when something fails halfway", items 1 and 2, over the wire: a change Trunk accepted
 * is reported and announced even when the audit write fails afterwards (retried, then logged and counted),
 * and a click that failed upstream gives its once-only claim back so the person can click again.
 * The store failure is injected through createApp's store seam: a real SQLite store whose appendAudit
 * can be made to throw.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../dev/fakes/slack/server.ts';
import { openStore } from '../../src/store/open.ts';
import type { Store } from '../../src/store/types.ts';
import { CHANNEL, type Harness, startHarness, TEAM, USERS } from '../helpers/app-harness.ts';
import { textOf } from '../helpers/block-kit-reading.ts';
import { clickThroughReasonModal, reasonModal, submitReason } from '../helpers/reason-modal.ts';

/** A real store whose audit writes fail while `failing` is set (and count their attempts). */
function auditBreakable(inner: Store): Store & { failing: boolean; auditAttempts: number } {
  const state = { failing: false, auditAttempts: 0 };
  return new Proxy(inner, {
    get(target, prop, receiver) {
      if (prop === 'failing' || prop === 'auditAttempts') return state[prop];
      if (prop === 'appendAudit')
        return async (entry: Parameters<Store['appendAudit']>[0]) => {
          state.auditAttempts++;
          if (state.failing) throw new Error('disk I/O error (injected)');
          return inner.appendAudit(entry);
        };
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
    set(_t, prop, value) {
      if (prop === 'failing' || prop === 'auditAttempts') {
        (state as Record<string, unknown>)[prop] = value;
        return true;
      }
      return false;
    },
  }) as Store & { failing: boolean; auditAttempts: number };
}

let h: Harness;
let store: ReturnType<typeof auditBreakable>;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mq-honest-'));
  const real = await openStore({
    database: { kind: 'sqlite', path: join(dir, 'mq.db') },
    encryptionKeys: [],
  });
  store = auditBreakable(real);
  h = await startHarness({ app: { store } });
});
afterAll(async () => {
  await h?.close();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(async () => {
  await h.reset();
  store.failing = false;
  store.auditAttempts = 0;
  h.trunk.addQueue('acme/web', 'main', { state: 'running', concurrency: 2 });
});

async function auditFailures(): Promise<number> {
  const metric = await h.app!.metrics.auditFailures.get();
  return metric.values.reduce((n, v) => n + v.value, 0);
}

async function statusMessage(): Promise<FakeMessage> {
  const before = h.slack.channelMessages(CHANNEL).length;
  await h.sendCommand('status acme/web:main');
  const msg = await h.slack.waitFor(() => h.slack.channelMessages(CHANNEL)[before]);
  h.trunk.clearRequests();
  return msg;
}

describe('Trunk said yes, then the database failed', () => {
  it('a typed pause is announced as done; the audit write is retried, then logged and counted', async () => {
    store.failing = true;
    const sent = await h.sendCommand('pause acme/web:main deploy freeze', { user: USERS.admin });
    expect(sent.status).toBe(200);
    const announcement = await h.slack.waitFor(() => h.slack.channelMessages(CHANNEL)[0]);
    await h.idle();
    expect(h.trunk.queue('acme/web', 'main')!.state).toBe('paused');
    expect(textOf(announcement)).toContain(`<@${USERS.admin}>`);
    expect(textOf(announcement)).toMatch(/paused/i);
    // Nobody is told the opposite of what happened.
    const everything = [...h.replies(sent.responseUrl), ...h.slack.channelMessages(CHANNEL)];
    expect(everything.map((m) => textOf(m)).join('\n')).not.toMatch(/nothing was changed|went wrong/i);
    expect(store.auditAttempts).toBe(3);
    expect(await auditFailures()).toBe(1);
    const text = await (await fetch(`${h.url}/metrics`)).text();
    expect(text).toMatch(/mergequeue_audit_failures_total\{action="pause"\} 1/);
  });

  it('a Pause click is redrawn and announced as done when the audit write fails', async () => {
    const msg = await statusMessage();
    store.failing = true;
    const { click } = await clickThroughReasonModal(h, {
      message: msg,
      actionId: 'mq_pause',
      user: USERS.admin,
    });
    expect(click.status).toBe(200);
    const announcement = await h.slack.waitFor(() => h.slack.channelMessages(CHANNEL)[1]);
    await h.idle();
    expect(h.trunk.queue('acme/web', 'main')!.state).toBe('paused');
    expect(textOf(announcement)).toMatch(/paused/i);
    expect(textOf(h.slack.message(CHANNEL, msg.ts))).toContain(`<@${USERS.admin}>`);
    const privately = [...h.replies(click.responseUrl), ...h.slack.ephemerals];
    expect(privately.map((r) => textOf(r)).join('\n')).not.toMatch(/nothing was changed/i);
    expect(await auditFailures()).toBeGreaterThanOrEqual(1);
  });

  it('an audit write that fails once is retried and lands: nothing counted', async () => {
    const before = await auditFailures();
    store.failing = true;
    setTimeout(() => {
      store.failing = false;
    }, 50);
    await h.sendCommand('drain acme/web:main', { user: USERS.admin });
    await h.slack.waitFor(() => h.slack.channelMessages(CHANNEL)[0]);
    await h.idle();
    expect(await auditFailures()).toBe(before);
    const [entry] = await store.listAudit(TEAM, { limit: 1 });
    expect(entry).toMatchObject({ action: 'drain', outcome: 'ok', userId: USERS.admin });
  });
});

describe('a failed click can be clicked again', () => {
  it('after Trunk answered 503 the same button works at once', async () => {
    const msg = await statusMessage();
    h.trunk.failNext(50, { status: 503 }, 'getQueue');
    await clickThroughReasonModal(h, { message: msg, actionId: 'mq_pause', user: USERS.admin });
    const firstReply = await h.slack.waitFor(() => h.slack.ephemerals[0]);
    expect(textOf(firstReply)).toMatch(/not reachable|did not answer|not available|try again/i);
    await h.idle();
    expect(h.trunk.queue('acme/web', 'main')!.state).toBe('running');

    h.trunk.resetFaults();
    await clickThroughReasonModal(h, { message: msg, actionId: 'mq_pause', user: USERS.admin });
    await h.slack.waitFor(() => h.slack.channelMessages(CHANNEL)[1]);
    await h.idle();
    expect(h.trunk.queue('acme/web', 'main')!.state).toBe('paused');
    expect(h.slack.ephemerals.map((r) => textOf(r)).join('\n')).not.toMatch(/already handled/);
  });

  it('after updateQueue failed the + button can be clicked again at once', async () => {
    const msg = await statusMessage();
    h.trunk.failNext(50, { status: 503 }, 'updateQueue');
    const first = await h.clickButton({ message: msg, actionId: 'mq_concurrency_inc', user: USERS.admin });
    await h.reply(first.responseUrl);
    await h.idle();
    expect(h.trunk.queue('acme/web', 'main')!.concurrency).toBe(2);
    h.trunk.resetFaults();
    await h.clickButton({ message: msg, actionId: 'mq_concurrency_inc', user: USERS.admin });
    await h.slack.waitFor(() => h.slack.channelMessages(CHANNEL)[1]);
    await h.idle();
    expect(h.trunk.queue('acme/web', 'main')!.concurrency).toBe(3);
  });

  it('a real double click still counts once', async () => {
    const msg = await statusMessage();
    await Promise.all([
      h.clickButton({ message: msg, actionId: 'mq_pause', user: USERS.admin, triggerId: 'trig-real-1' }),
      h.clickButton({ message: msg, actionId: 'mq_pause', user: USERS.admin, triggerId: 'trig-real-2' }),
    ]);
    const views = await Promise.all([reasonModal(h, 'trig-real-1'), reasonModal(h, 'trig-real-2')]);
    await Promise.all(views.map((v) => submitReason(h, v, undefined, USERS.admin)));
    await h.idle();
    expect(h.trunkCalls('updateQueue')).toHaveLength(1);
    expect(h.slack.channelMessages(CHANNEL).slice(1)).toHaveLength(1);
  });
});
