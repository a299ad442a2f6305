/**
 * The test-feeds service: which channels hear about flaky tests (`tests watch [owner <team>] [owner/repo]`,
 * `tests unwatch [owner/repo]`, `tests list`) and what people may do from a test's status message (Quarantine,
 * Stop quarantining, Link a ticket) as `(actor, request) → answer`. Named apart from services/tests.ts, which
 * answers `flaky` and `quarantined`.
 *
 * Rights: a channel's test watches follow the feeds' rule (services/watch.ts's whyNotFeedManager: the
 * workspace's own people; in a channel shared with another organization, operators). Acting on a test is for
 * operators and for the people `digest owners` maps to one of the test's code owners (a mapped user, or a
 * member of a mapped user group) who are the workspace's own people. Which test a click is about, and whose it
 * is, come from the stored message (flaky/messages.ts), never from the button's value. Every change is
 * audited; a refusal says why and changes nothing; a double click counts once (a lease per state of the message).
 */
import { SubscriptionRepository } from '../digest/index.ts';
import {
  type FeedMessage,
  FeedMessageRepository,
  MAX_TEST_WATCHES_PER_CHANNEL,
  type QuarantineMode,
  readTicketRef,
  sameWatch,
  type TestWatch,
  TestWatchRepository,
} from '../flaky/index.ts';
import { isTrunkError } from '../trunk/errors.ts';
import type { Actor } from './actor.ts';
import type { ServiceDeps, WebhookSecrets } from './ports.ts';
import { visibleTo } from './visibility.ts';
import { type FeedRefusal, refuseFeedChange, type SharedChannels } from './watch.ts';

/** The permission a Trunk v2 key needs for quarantine overrides (Trunk's UI name). */
export const QUARANTINE_PERMISSION = 'Quarantine tests';

export type TestWatchRequest =
  | { kind: 'list'; channelId: string }
  | { kind: 'watch'; channelId: string; repo?: string; owner?: string }
  | { kind: 'unwatch'; channelId: string; repo?: string };

export type TestWatchAnswer =
  /** `here`: this channel's watches (empty when the person cannot see it); `elsewhere`: other channels' they can see. */
  | { answer: 'listed'; here: TestWatch[]; elsewhere: TestWatch[] }
  | FeedRefusal
  | { answer: 'too_many'; max: number }
  /** `webhookSecret` false: Trunk cannot reach the app yet, so nothing will be heard until one is set. */
  | { answer: 'watching'; watch: TestWatch; created: boolean; webhookSecret: boolean }
  /** `removed` empty when there was nothing to end; `watches` are the channel's before. */
  | { answer: 'unwatched'; removed: TestWatch[]; watches: TestWatch[]; repo?: string };

export type TestActionAnswer =
  /** The app posted no message about this test in this channel (or forgot it). */
  | { answer: 'unknown_message' }
  | { answer: 'refused'; because: string }
  | { answer: 'no_v2_key' }
  /** Trunk refused with 403: the key lacks `permission` (undefined when Trunk's documents name none). */
  | { answer: 'missing_permission'; permission?: string; detail?: string }
  /** The test is in that state already, or the same click is being (or was) handled. */
  | { answer: 'unchanged'; message: FeedMessage; mode: QuarantineMode }
  | { answer: 'overridden'; message: FeedMessage; mode: QuarantineMode }
  | { answer: 'may_act'; message: FeedMessage }
  | { answer: 'bad_ticket'; error: string }
  | { answer: 'ticket_linked'; message: FeedMessage; ticket: { key: string; url?: string } }
  /** Trunk answered the ticket link with 409/422/502/504 (its `code` when it sent one). */
  | { answer: 'ticket_refused'; status: number; code?: string; detail?: string }
  | { answer: 'trunk_failed'; error: unknown };

export interface TestFeedsService {
  watches(actor: Actor, request: TestWatchRequest, channels?: SharedChannels): Promise<TestWatchAnswer>;
  /** Whether the person may act on the test of this channel's message (before the ticket form opens). */
  mayAct(actor: Actor, r: { channelId: string; testId: string }): Promise<TestActionAnswer>;
  quarantine(
    actor: Actor,
    r: { channelId: string; testId: string; mode: QuarantineMode },
  ): Promise<TestActionAnswer>;
  linkTicket(
    actor: Actor,
    r: { channelId: string; testId: string; ticket: string },
  ): Promise<TestActionAnswer>;
}

const OVERRIDE_LEASE = 'flaky.override';
const OVERRIDE_LEASE_MS = 30_000;

export function createTestFeedsService(
  deps: Pick<ServiceDeps, 'store' | 'trunk' | 'logger'> & { webhooks: WebhookSecrets },
): TestFeedsService {
  const watches = new TestWatchRepository(deps.store.db);
  const messages = new FeedMessageRepository(deps.store.db);
  const owners = new SubscriptionRepository(deps.store.db);
  const { leases } = deps.store;

  function refuseUnlessManager(
    actor: Actor,
    action: 'tests.watch' | 'tests.unwatch',
    channelId: string,
    channels: SharedChannels | undefined,
    target: string,
  ): Promise<TestWatchAnswer | undefined> {
    const what =
      action === 'tests.watch'
        ? "start this channel's flaky-test feed"
        : "end this channel's flaky-test feed";
    return refuseFeedChange(actor, channels, { channelId, action, target, what });
  }

  async function watch(
    actor: Actor,
    r: Extract<TestWatchRequest, { kind: 'watch' }>,
    channels: SharedChannels | undefined,
  ): Promise<TestWatchAnswer> {
    const ws = actor.workspace.id;
    const target = `${r.repo ?? '*'} ${r.owner ?? '*'}`;
    const refused = await refuseUnlessManager(actor, 'tests.watch', r.channelId, channels, target);
    if (refused) return refused;
    const here = await watches.listChannel(ws, r.channelId);
    const wanted = { ...(r.repo ? { repo: r.repo } : {}), ...(r.owner ? { owner: r.owner } : {}) };
    if (!here.some((w) => sameWatch(w, wanted)) && here.length >= MAX_TEST_WATCHES_PER_CHANNEL)
      return { answer: 'too_many', max: MAX_TEST_WATCHES_PER_CHANNEL };
    const { watch: saved, created } = await watches.add({
      workspaceId: ws,
      channelId: r.channelId,
      ...wanted,
      createdBy: actor.userId,
      createdAt: actor.now(),
    });
    if (created) await actor.audit('tests.watch', target, 'ok', { channel: r.channelId, id: saved.id });
    const webhookSecret = await deps.webhooks.hasWebhookSecret(ws).catch((err: unknown) => {
      deps.logger.warn({ err }, 'could not tell whether a webhook secret is set');
      return true;
    });
    return { answer: 'watching', watch: saved, created, webhookSecret };
  }

  async function unwatch(
    actor: Actor,
    r: Extract<TestWatchRequest, { kind: 'unwatch' }>,
    channels: SharedChannels | undefined,
  ): Promise<TestWatchAnswer> {
    const ws = actor.workspace.id;
    const before = await watches.listChannel(ws, r.channelId);
    const key = r.repo?.toLowerCase();
    const matching = before.filter((w) => key === undefined || (w.repo ?? '').toLowerCase() === key);
    if (matching.length > 0) {
      const refused = await refuseUnlessManager(actor, 'tests.unwatch', r.channelId, channels, r.repo ?? '*');
      if (refused) return refused;
    }
    const removed = matching.length > 0 ? await watches.remove(ws, r.channelId, r.repo) : [];
    if (removed.length > 0)
      await actor.audit('tests.unwatch', r.repo ?? '*', 'ok', {
        channel: r.channelId,
        ids: removed.map((w) => w.id),
      });
    return { answer: 'unwatched', removed, watches: before, ...(r.repo ? { repo: r.repo } : {}) };
  }

  async function list(actor: Actor, channelId: string): Promise<TestWatchAnswer> {
    const all = await watches.listWorkspace(actor.workspace.id);
    const seen = await visibleTo(actor, all, (w) => w.channelId);
    return {
      answer: 'listed',
      here: seen.filter((w) => w.channelId === channelId),
      elsewhere: seen.filter((w) => w.channelId !== channelId),
    };
  }

  /** Operators, and the people `digest owners` maps to one of the test's code owners (the workspace's own). */
  async function whyNotActor(actor: Actor, m: FeedMessage): Promise<string | undefined> {
    if (await actor.isOperator()) return undefined;
    const standing = await actor.standing();
    if (!standing.own)
      return standing.unreadable
        ? 'Slack could not say who you are right now, so it could not be checked'
        : standing.guest
          ? 'guests do not act on tests'
          : "only the workspace's own people act on tests";
    const mapped = await owners.mentions(actor.workspace.id);
    const codeowners = m.card.test.codeowners.map((c) => c.toLowerCase());
    for (const owner of codeowners)
      for (const who of mapped.get(owner) ?? []) {
        if (who === `<@${actor.userId}>`) return undefined;
        const group = /^<!subteam\^([A-Z0-9]+)>$/.exec(who)?.[1];
        if (group && (await actor.inUserGroup(group))) return undefined;
      }
    if (codeowners.length === 0) return 'this test has no code owner, so only operators act on it';
    return `it is for operators and for the people \`/mergequeue digest owners\` maps to this test's code owners (${m.card.test.codeowners.join(', ')})`;
  }

  /** The stored message and the person's right to act on it; an answer when they may not. */
  async function load(
    actor: Actor,
    r: { channelId: string; testId: string },
    action: string,
  ): Promise<FeedMessage | TestActionAnswer> {
    const m = await messages.get(actor.workspace.id, r.channelId, r.testId);
    if (!m) return { answer: 'unknown_message' };
    const because = await whyNotActor(actor, m);
    if (because) {
      await actor.audit(action, r.testId, 'refused', { channel: r.channelId, because });
      return { answer: 'refused', because };
    }
    return m;
  }

  const isAnswer = (x: FeedMessage | TestActionAnswer): x is TestActionAnswer => 'answer' in x;

  async function byWhom(actor: Actor): Promise<string> {
    const name = (await actor.standing()).name;
    return `from Slack by @${name ?? actor.userId}`;
  }

  return {
    async watches(actor, request, channels) {
      switch (request.kind) {
        case 'list':
          return list(actor, request.channelId);
        case 'watch':
          return watch(actor, request, channels);
        case 'unwatch':
          return unwatch(actor, request, channels);
      }
    },

    async mayAct(actor, r) {
      const m = await load(actor, r, 'tests.ticket');
      return isAnswer(m) ? m : { answer: 'may_act', message: m };
    },

    async quarantine(actor, r) {
      const action = r.mode === 'alwaysQuarantine' ? 'tests.quarantine' : 'tests.unquarantine';
      const m = await load(actor, r, action);
      if (isAnswer(m)) return m;
      const ws = actor.workspace.id;
      const quarantinedNow = m.card.override
        ? m.card.override.mode === 'alwaysQuarantine'
        : m.card.test.quarantined === true;
      if ((r.mode === 'alwaysQuarantine') === quarantinedNow && m.card.override)
        return { answer: 'unchanged', message: m, mode: r.mode };
      const v2 = await deps.trunk.v2For(ws, 'interactive');
      if (!v2) return { answer: 'no_v2_key' };
      // One click per state of the message: a double click (or two people at once) is handled once.
      const hold = {
        kind: OVERRIDE_LEASE,
        key: `${ws}|${r.channelId}|${r.testId}|${m.overrideSeq}|${r.mode}`,
        holder: actor.userId,
      };
      const claim = await leases.claim({
        ...hold,
        workspaceId: ws,
        ttlMs: OVERRIDE_LEASE_MS,
        now: actor.now(),
      });
      if (!claim.acquired) return { answer: 'unchanged', message: m, mode: r.mode };
      try {
        await v2.api.setQuarantineOverride(r.testId, { mode: r.mode, reason: await byWhom(actor) });
      } catch (error) {
        // Nothing was changed: the same click may be made again at once.
        await leases.release({ ...hold, fence: claim.fence });
        if (
          isTrunkError(error) &&
          error.kind === 'auth' &&
          (error.status === 403 || error.code === 'INSUFFICIENT_PERMISSIONS')
        ) {
          await actor.audit(action, r.testId, 'failed', {
            channel: r.channelId,
            because: 'missing permission',
          });
          return {
            answer: 'missing_permission',
            permission: QUARANTINE_PERMISSION,
            ...(error.detail ? { detail: error.detail } : {}),
          };
        }
        await actor.audit(action, r.testId, 'failed', { channel: r.channelId, error: String(error) });
        return { answer: 'trunk_failed', error };
      }
      await leases.finish({ ...hold, fence: claim.fence, now: actor.now(), result: 'done' });
      const card = {
        ...m.card,
        override: { mode: r.mode, by: actor.userId, at: actor.now() },
        test: { ...m.card.test, quarantined: r.mode === 'alwaysQuarantine' },
      };
      // What Trunk accepted is done, whatever the store says after.
      await messages.update({ ...m, card }, actor.now(), { override: true }).catch((err: unknown) => {
        deps.logger.warn({ err }, 'could not record a quarantine override on its message');
      });
      await actor.audit(action, r.testId, 'ok', { channel: r.channelId, mode: r.mode });
      return { answer: 'overridden', message: { ...m, card, overrideSeq: m.overrideSeq + 1 }, mode: r.mode };
    },

    async linkTicket(actor, r) {
      const ref = readTicketRef(r.ticket);
      if (!ref.ok) return { answer: 'bad_ticket', error: ref.error };
      const m = await load(actor, r, 'tests.ticket');
      if (isAnswer(m)) return m;
      const v2 = await deps.trunk.v2For(actor.workspace.id, 'interactive');
      if (!v2) return { answer: 'no_v2_key' };
      let ticket: { key: string; url?: string };
      try {
        const t = await v2.api.linkTicket(r.testId, { externalTicketId: ref.ref });
        ticket = { key: t.key, ...(t.url ? { url: t.url } : {}) };
      } catch (error) {
        await actor.audit('tests.ticket', r.testId, 'failed', { channel: r.channelId, ticket: ref.ref });
        if (isTrunkError(error) && error.status !== undefined && [409, 422, 502, 504].includes(error.status))
          return {
            answer: 'ticket_refused',
            status: error.status,
            ...(error.code ? { code: error.code } : {}),
            ...(error.detail ? { detail: error.detail } : {}),
          };
        if (isTrunkError(error) && error.kind === 'auth' && error.code === 'INSUFFICIENT_PERMISSIONS')
          return { answer: 'missing_permission', ...(error.detail ? { detail: error.detail } : {}) };
        return { answer: 'trunk_failed', error };
      }
      const card = { ...m.card, ticket: { ...ticket, by: actor.userId } };
      await messages.update({ ...m, card }, actor.now()).catch((err: unknown) => {
        deps.logger.warn({ err }, 'could not record a linked ticket on its message');
      });
      await actor.audit('tests.ticket', r.testId, 'ok', { channel: r.channelId, ticket: ticket.key });
      return { answer: 'ticket_linked', message: { ...m, card }, ticket };
    },
  };
}
