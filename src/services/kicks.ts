/**
 * Kicks as the queue event delivery uses them (issue 29): each failed or cancelled PR classed with the
 * queue's history (history's flaky evidence; the class and evidence kept on the PR's history row), and the
 * autopilot's decision on each kick, acting through the workspace's Trunk as a person's write (served first)
 * and announcing what it did as a queue event of its own (the `autopilot` kind: the feeds, the author's note,
 * the submitter's). Built by the composition root and handed to slack/queue-events as ports.
 *
 * Classing and the autopilot read nothing more from Trunk than the delivery's one v2 history read, which
 * `why` would make too; the autopilot then reads the PR once from v1 (its head commit, and whether it is back
 * in the queue) before its write, as every PR change does.
 */
import { nextOrActiveWindow } from '../freeze/windows.ts';
import { flakyCheckEvidence, setKickClass } from '../history/repository.ts';
import { AUTOPILOT_ACTOR, Autopilot, type KickAtHand } from '../kicks/autopilot.ts';
import { classifyKick, FLAKY_WINDOW_MS, failingChecksOf, type Kick, kickFactsOf } from '../kicks/classify.ts';
import { AutopilotRepository, ResubmissionClaims } from '../kicks/repository.ts';
import type { Logger } from '../observability/log.ts';
import type { PrStory } from '../queue/story.ts';
import { appendAuditRetrying } from '../store/audit-retrying.ts';
import type { Store } from '../store/types.ts';
import type { TrunkApi } from '../trunk/api.ts';
import { type QueueTarget, queueKeyOf, SubmitterRepository, type WatchEvent } from '../watch/index.ts';
import { insertEvents, SnapshotRepository } from '../watch/queue-state.ts';

type LeftEvent = Extract<WatchEvent, { kind: 'failed' | 'cancelled' }>;

export interface KickHandlersDeps {
  store: Store;
  /** The workspace's Trunk client for a person's change (the autopilot's write is served first). */
  trunkFor(workspaceId: string): Promise<TrunkApi | undefined>;
  /** Hands a queue's new events to the Slack side now (the watcher's deliverNow; bound late). */
  deliverNow(workspaceId: string, target: QueueTarget): Promise<void>;
  clock: () => number;
  replicaId: string;
  logger: Logger;
}

export interface KickHandlers {
  classify(
    workspaceId: string,
    target: QueueTarget,
    events: readonly LeftEvent[],
    stories: ReadonlyMap<number, PrStory> | undefined,
  ): Promise<ReadonlyMap<number, PrStory> | undefined>;
  autopilot(
    event: LeftEvent,
    story: PrStory | undefined,
  ): Promise<{ ok: true } | { ok: false; error: string }>;
  /** Whether the autopilot may act on this event's queue (the watcher adds its destination then). */
  wants(event: WatchEvent): Promise<boolean>;
}

export function createKickHandlers(d: KickHandlersDeps): KickHandlers {
  const db = d.store.db;
  const settings = new AutopilotRepository(db);
  const snapshots = new SnapshotRepository(d.store);
  const submitters = new SubmitterRepository(db);
  const log = d.logger.child({ component: 'kicks' });

  /** A kick classed with the queue's history; kept on its history row (a row not yet there is no error). */
  async function classOf(e: LeftEvent, story: PrStory | undefined): Promise<Kick> {
    const checks = failingChecksOf(story);
    const counts = new Map<string, number>();
    if (checks.length > 0)
      for (const c of await flakyCheckEvidence(
        db,
        e.workspaceId,
        e.queueKey,
        checks,
        d.clock() - FLAKY_WINDOW_MS,
      ))
        counts.set(c.check, c.failedThenPassed);
    const kick = classifyKick(kickFactsOf(e.kind, story, e.reason, counts));
    const at = Date.parse(e.pr.stateChangedAt ?? '');
    if (Number.isFinite(at))
      await setKickClass(db, e.workspaceId, e.queueKey, e.pr.number, at, kick.kickClass, kick.evidence).catch(
        (err: unknown) => log.warn({ err }, 'could not keep the kick class on its history row'),
      );
    return kick;
  }

  const autopilot = new Autopilot({
    settings,
    claims: new ResubmissionClaims(d.store),
    trunkFor: d.trunkFor,
    queueState: async (ws, queueKey) => (await snapshots.get(ws, queueKey))?.snapshot.state,
    frozen: async (ws, target) =>
      (await nextOrActiveWindow(db, ws, target, d.clock()))?.current.active === true,
    announce: async (k, r, headSha) => {
      const now = d.clock();
      const seq = (await snapshots.get(k.workspaceId, k.queueKey))?.seq ?? 0;
      const event: WatchEvent = {
        // One announcement per kick and head commit, whoever writes it and however often.
        id: `${k.workspaceId}|${k.queueKey}|autopilot|${k.pr.number}|${headSha}`,
        workspaceId: k.workspaceId,
        queueKey: k.queueKey,
        target: k.target,
        seq,
        at: now,
        kind: 'autopilot',
        pr: { number: k.pr.number, title: k.pr.title, author: k.pr.author, state: 'submitted' },
        outcome: r.outcome,
        kickClass: k.kick.kickClass,
        evidence: k.kick.evidence,
        rule: r.rule,
        ...(r.outcome === 'resubmitted'
          ? { ...(r.priority !== undefined ? { priority: r.priority } : {}), noBatch: r.noBatch }
          : { refusal: r.reason }),
      };
      await db.transaction((tx) => insertEvents(tx, [event], now));
      if (r.outcome === 'resubmitted')
        await submitters.record(k.workspaceId, k.queueKey, k.pr.number, AUTOPILOT_ACTOR, 'autopilot', now);
      void d
        .deliverNow(k.workspaceId, k.target)
        .catch((err: unknown) =>
          log.warn({ err }, 'announcing a re-submission now failed; the next tick does'),
        );
    },
    audit: (workspaceId, action, target, outcome, detail) =>
      appendAuditRetrying(
        d.store,
        { workspaceId, userId: AUTOPILOT_ACTOR, action, target, outcome, detail, at: d.clock() },
        (err) => log.error({ err, action, target }, 'autopilot audit entry lost'),
      ),
    clock: d.clock,
    replicaId: d.replicaId,
    logger: log,
  });

  return {
    async classify(_workspaceId, _target, events, stories) {
      if (events.length === 0) return stories;
      const out = new Map(stories ?? []);
      for (const e of events) {
        const story = stories?.get(e.pr.number);
        const told = story?.ending?.kind === e.kind ? story : undefined;
        const kick = await classOf(e, told);
        if (told)
          out.set(e.pr.number, { ...told, kick: { kickClass: kick.kickClass, evidence: kick.evidence } });
      }
      return stories ? out : undefined;
    },

    async autopilot(event, story) {
      try {
        const kick: Kick = story?.kick
          ? { ...story.kick, kickClass: story.kick.kickClass as Kick['kickClass'] }
          : classifyKick(kickFactsOf(event.kind, story, event.reason));
        const k: KickAtHand = {
          workspaceId: event.workspaceId,
          target: event.target,
          queueKey: queueKeyOf(event.target),
          pr: { number: event.pr.number, title: event.pr.title, author: event.pr.author },
          kick,
          entry: story?.entry,
        };
        const r = await autopilot.consider(k);
        if (r.outcome === 'retry') return { ok: false, error: r.error };
        log.info(
          {
            workspace: event.workspaceId,
            queue: k.queueKey,
            pr: k.pr.number,
            kickClass: kick.kickClass,
            outcome: r.outcome,
            ...(r.outcome === 'skipped' ? { why: r.why } : {}),
          },
          'autopilot considered a kick',
        );
        return { ok: true };
      } catch (err) {
        log.warn({ err, pr: event.pr.number }, 'the autopilot failed halfway; it tries the kick again');
        return { ok: false, error: err instanceof Error ? err.message : String(err) };
      }
    },

    async wants(event) {
      if (event.kind !== 'failed' && event.kind !== 'cancelled') return false;
      return (await settings.effective(event.workspaceId, event.queueKey)).enabled;
    },
  };
}
