/**
 * The freezer: a pass that starts and ends freeze windows, ticked every few seconds by its worker
 * (src/workers/freezer.ts), like the digests' scheduler. Each tick asks the database, not a timer per
 * window, what is open and what is over, so every replica agrees, downtime and missed ticks are harmless (a start missed while down is applied if
 * the window is still open; a missed end is applied whenever it is seen) and DST comes from schedule.ts.
 *
 * Exactly once: a start or end runs only under its claim (claims.ts). Each tick renews the leases of the
 * runs in flight here; a replica that dies stops renewing and another takes the claim over.
 *
 * The queue is changed only through the injected `changeQueue` (the queue domain's audited change flow)
 * and read through `readQueue`; what happened is reported as plain data through `announce`.
 */

import type { PassLoop } from '../core/periodic-passes.ts';
import type { Logger } from '../observability/log.ts';
import type { Db, Leases } from '../store/types.ts';
import { type ClaimKey, type ClaimRecord, FreezeClaims } from './claims.ts';
import { WindowRepository } from './repository.ts';
import { activeOccurrence, type Occurrence } from './schedule.ts';
import {
  type ChangeQueue,
  type CreatorStanding,
  FREEZE_REASON_PREFIX,
  type FreezeEvent,
  type FreezeWindow,
  type PersonChanges,
  type QueueReading,
  type ReadQueue,
  STATE_FOR_ACTION,
} from './types.ts';
import { windowSpec } from './windows.ts';

export interface FreezerDeps {
  db: Db;
  /** The store's lease service (the claims' leases). */
  leases: Leases;
  /** The loop running tick() (src/workers/freezer.ts): a stopping loop claims no more; idle() waits for it. */
  loop: PassLoop;
  changeQueue: ChangeQueue;
  readQueue: ReadQueue;
  /**
   * A person's audited changes of the queue's state: a window's end leaves alone a queue someone changed
   * after the window started. Without it only the state read at the end counts.
   */
  personChanges?: PersonChanges;
  /** At each start: is the window's creator still an operator? Without it, windows always act. */
  creatorStanding?: CreatorStanding;
  /**
   * Whether this workspace's windows may act now: false after Slack revoked the bot token, until a
   * re-install. Their starts and ends wait (unclaimed) and are applied, late, once it is true again.
   */
  acting?: (workspaceId: string) => Promise<boolean>;
  /** Told every start, end, refusal to resume and failure; errors it throws are logged and ignored. */
  announce: (event: FreezeEvent) => Promise<void> | void;
  /** Names this process in claims (e.g. hostname:pid). */
  replicaId: string;
  logger: Logger;
  /** Epoch ms; defaults to Date.now (tests pass a controllable clock). */
  clock?: () => number;
  /** How long a claim stays owned without renewal, default 30 s (renewed every tick). */
  leaseMs?: number;
  /** First retry delay after a failed change, default 5 s, doubling up to retryMaxMs (default 2 min). */
  retryBaseMs?: number;
  retryMaxMs?: number;
}

/** Attempts at resuming before giving up and reporting it (a start is retried until its window closes). */
export const END_MAX_ATTEMPTS = 10;
/** Applied later than this after its time, a start or end says it is late (recovery after downtime). */
export const FREEZE_LATE_AFTER_MS = 60_000;
/** Finished claims are kept this long, then pruned about hourly. */
export const KEEP_CLAIMS_MS = 30 * 24 * 3_600_000;
const PRUNE_EVERY_MS = 3_600_000;
/** Claims a tick takes on at most, per kind; the rest wait for the next tick. */
const BATCH = 50;

const keyOf = (k: ClaimKey) => `${k.windowId}|${k.occurrenceStart}|${k.phase}`;
const occurrenceOf = (r: ClaimRecord): Occurrence => ({ start: r.occurrenceStart, end: r.occurrenceEnd });
const lower = (s: string) => String(s).toLowerCase();

export class Freezer {
  readonly #deps: FreezerDeps;
  readonly #windows: WindowRepository;
  readonly #claims: FreezeClaims;
  readonly #now: () => number;
  readonly #leaseMs: number;
  readonly #inflight = new Map<string, Promise<void>>();
  #prunedAt = 0;

  constructor(deps: FreezerDeps) {
    this.#deps = deps;
    this.#windows = new WindowRepository(deps.db);
    this.#claims = new FreezeClaims(deps);
    this.#now = deps.clock ?? Date.now;
    this.#leaseMs = deps.leaseMs ?? 30_000;
  }

  get #stopped(): boolean {
    return this.#deps.loop.stopped;
  }

  /** The starts and ends this replica is running now (the loop's stop and idle wait for them). */
  inFlight(): Iterable<Promise<void>> {
    return this.#inflight.values();
  }

  /** Settles when every run this replica started has finished (tests, shutdown). */
  idle(): Promise<void> {
    return this.#deps.loop.idle();
  }

  /** One pass: renew leases, take over abandoned or due claims, claim starts of open windows, then ends. */
  async tick(): Promise<void> {
    const now = this.#now();
    const me = this.#deps.replicaId;
    const acting = this.#actingMemo();
    if (now - this.#prunedAt > PRUNE_EVERY_MS) {
      this.#prunedAt = now;
      await this.#claims.prune(now - KEEP_CLAIMS_MS);
    }
    for (const key of this.#inflight.keys()) {
      const [windowId, start, phase] = key.split('|');
      await this.#claims.heartbeat(
        { windowId: windowId!, occurrenceStart: Number(start), phase: phase as ClaimKey['phase'] },
        me,
        now + this.#leaseMs,
      );
    }
    for (const rec of await this.#claims.available(now, BATCH)) {
      if (this.#stopped) return;
      if (this.#inflight.has(keyOf(rec)) || !(await acting(rec.workspaceId))) continue;
      if (await this.#claims.takeOver(rec, me, now + this.#leaseMs)) {
        if (rec.status === 'running')
          this.#deps.logger.info(
            { window: rec.windowId, phase: rec.phase, previousOwner: rec.owner },
            'taking over an abandoned freeze claim',
          );
        this.#launch({ ...rec, owner: me, status: 'running', attempts: rec.attempts + 1 });
      }
    }
    // Starts before ends: a window opening as another closes is then known to the end, which leaves the
    // queue frozen for it.
    const claimed = new Set((await this.#claims.recent(now)).map(keyOf));
    for (const w of await this.#windows.all()) {
      if (this.#stopped) return;
      const occ = activeOccurrence(windowSpec(w), now);
      if (!occ || claimed.has(keyOf({ windowId: w.id, occurrenceStart: occ.start, phase: 'start' })))
        continue;
      if (!(await acting(w.workspaceId))) continue;
      const rec = await this.#claims.claim(w, occ, 'start', me, now, this.#leaseMs);
      if (rec) this.#launch(rec);
    }
    for (const start of await this.#claims.endsDue(now, BATCH)) {
      if (this.#stopped) return;
      if (!(await acting(start.workspaceId))) continue;
      const rec = await this.#claims.claim(start.window, occurrenceOf(start), 'end', me, now, this.#leaseMs);
      if (rec) this.#launch(rec);
    }
  }

  /** `acting` asked once per workspace and tick. */
  #actingMemo(): (workspaceId: string) => Promise<boolean> {
    const ask = this.#deps.acting;
    if (!ask) return async () => true;
    const seen = new Map<string, Promise<boolean>>();
    return (workspaceId) => {
      let answer = seen.get(workspaceId);
      if (!answer) {
        answer = ask(workspaceId).catch((err: unknown) => {
          // Not knowing is no reason to stop a freeze: act, as before the check existed.
          this.#deps.logger.warn({ err, workspace: workspaceId }, 'could not check the bot token; acting');
          return true;
        });
        seen.set(workspaceId, answer);
      }
      return answer;
    };
  }

  #launch(rec: ClaimRecord): void {
    const key = keyOf(rec);
    const run = (rec.phase === 'start' ? this.#runStart(rec) : this.#runEnd(rec))
      .catch((err: unknown) =>
        this.#deps.logger.error({ err, window: rec.windowId, phase: rec.phase }, 'freeze run failed'),
      )
      .finally(() => this.#inflight.delete(key));
    this.#inflight.set(key, run);
  }

  async #announce(event: FreezeEvent): Promise<void> {
    try {
      await this.#deps.announce(event);
    } catch (err) {
      this.#deps.logger.warn(
        { err, window: event.window.id, kind: event.kind },
        'freeze announcement failed',
      );
    }
  }

  #base(rec: ClaimRecord) {
    return {
      window: rec.window,
      occurrence: occurrenceOf(rec),
      channelId: rec.window.channelId,
      workspaceId: rec.workspaceId,
    };
  }

  async #read(rec: ClaimRecord): Promise<QueueReading | { error: string }> {
    try {
      return await this.#deps.readQueue(rec.workspaceId, rec.window.target);
    } catch (err) {
      return { error: err instanceof Error ? err.message : String(err) };
    }
  }

  /**
   * Another window's freeze that is on now: its start set a state and its end has not run. A window
   * that opens while the queue is in that state joins it instead of treating it as someone else's.
   */
  async #otherFreezes(rec: ClaimRecord, now: number): Promise<ClaimRecord[]> {
    const starts = await this.#claims.startsOnTarget(
      rec.workspaceId,
      rec.target,
      rec.occurrenceStart - 2 * 86_400_000,
    );
    const out: ClaimRecord[] = [];
    for (const s of starts) {
      if (s.windowId === rec.windowId || s.occurrenceStart > now) continue;
      const inProgress = s.status === 'running' || s.status === 'retrying';
      if (!inProgress && !(s.status === 'done' && s.setState)) continue;
      const end = await this.#claims.get({ ...s, phase: 'end' });
      if (end?.status === 'done' || end?.status === 'failed') continue;
      out.push(s);
    }
    return out;
  }

  async #runStart(rec: ClaimRecord): Promise<void> {
    const w = rec.window;
    const me = this.#deps.replicaId;
    const desired = STATE_FOR_ACTION[w.action];
    const now = this.#now();
    const late = now - rec.occurrenceStart > FREEZE_LATE_AFTER_MS;
    // At each start the window acts as its creator would: only while they are an operator. (A takeover
    // whose previous owner already changed the queue was checked by it.)
    if (rec.beforeState === undefined && this.#deps.creatorStanding) {
      const standing = await this.#creatorStanding(w);
      if (standing.kind === 'unknown') return this.#startFailed(rec, standing.error);
      if (standing.kind === 'refused') {
        if (
          await this.#claims.finish(rec, me, 'done', 'creator_not_operator', now, {
            detail: standing.because,
          })
        )
          await this.#announce({
            ...this.#base(rec),
            kind: 'creator_not_operator',
            because: standing.because,
          });
        return;
      }
    }
    const reading = await this.#read(rec);
    if ('error' in reading) return this.#startFailed(rec, reading.error);
    const cur = lower(reading.state);
    const started = async (state: 'paused' | 'draining', outcome: string, joined?: string) => {
      if (!(await this.#claims.finish(rec, me, 'done', outcome, this.#now(), { setState: state }))) return;
      const event: FreezeEvent = { ...this.#base(rec), kind: 'started', state, late };
      if (joined) event.joined = joined;
      await this.#announce(event);
    };
    // A takeover after the previous owner changed the queue but died before recording it.
    if (rec.beforeState !== undefined && rec.beforeState !== desired && cur === desired)
      return started(desired, 'started');
    if (now >= rec.occurrenceEnd)
      return this.#startFailed(rec, rec.detail ?? 'the window closed before it could start');
    const joined = (await this.#otherFreezes(rec, now)).find((s) => s.setState === cur);
    if (cur === 'running' || (joined && cur === 'draining' && desired === 'paused')) {
      if (!(await this.#claims.recordBefore(rec, me, cur))) return;
      const res = await this.#change(
        rec,
        desired,
        `${FREEZE_REASON_PREFIX}${w.id}${w.reason ? `: ${w.reason}` : ''}`,
      );
      if (res.outcome === 'ok' || (res.outcome === 'noop' && lower(res.state ?? '') === desired))
        return started(desired, 'started', joined?.windowId);
      return this.#startFailed(rec, res.outcome === 'noop' ? res.reason : res.error);
    }
    if (joined) return started(cur as 'paused' | 'draining', 'joined', joined.windowId);
    if (cur === 'paused' || cur === 'draining') {
      if (await this.#claims.finish(rec, me, 'done', 'already_frozen', now, { detail: `was ${cur}` }))
        await this.#announce({ ...this.#base(rec), kind: 'already_frozen', found: cur });
      return;
    }
    return this.#startFailed(rec, `the queue is ${cur.replaceAll('_', ' ')}`);
  }

  async #creatorStanding(w: FreezeWindow): ReturnType<CreatorStanding> {
    try {
      return await this.#deps.creatorStanding!(w);
    } catch (err) {
      return {
        kind: 'unknown',
        error: `could not check that the window's creator is still an operator (${err instanceof Error ? err.message : String(err)})`,
      };
    }
  }

  async #change(rec: ClaimRecord, state: 'paused' | 'draining' | 'running', reason: string) {
    try {
      return await this.#deps.changeQueue(rec.workspaceId, rec.window.target, state, reason, rec.window);
    } catch (err) {
      return { outcome: 'failed' as const, error: err instanceof Error ? err.message : String(err) };
    }
  }

  #backoff(attempts: number): number {
    const base = this.#deps.retryBaseMs ?? 5_000;
    return Math.min(base * 2 ** Math.max(0, attempts - 1), this.#deps.retryMaxMs ?? 120_000);
  }

  /** Retried until the window closes; reported once when it starts failing and once when it never took. */
  async #startFailed(rec: ClaimRecord, error: string): Promise<void> {
    const me = this.#deps.replicaId;
    const now = this.#now();
    this.#deps.logger.warn({ window: rec.windowId, attempt: rec.attempts, error }, 'freeze start failed');
    if (now >= rec.occurrenceEnd) {
      if (await this.#claims.finish(rec, me, 'failed', 'start_failed', now, { detail: error }))
        await this.#announce({ ...this.#base(rec), kind: 'start_failed', attempts: rec.attempts, error });
      return;
    }
    const nextAttemptAt = Math.min(now + this.#backoff(rec.attempts), rec.occurrenceEnd);
    if ((await this.#claims.retryLater(rec, me, nextAttemptAt, error)) && rec.attempts === 1)
      await this.#announce({ ...this.#base(rec), kind: 'start_retrying', attempt: 1, nextAttemptAt, error });
  }

  async #runEnd(rec: ClaimRecord): Promise<void> {
    const me = this.#deps.replicaId;
    const now = this.#now();
    const start = await this.#claims.get({ ...rec, phase: 'start' });
    if (!start || start.status === 'failed' || !start.setState) {
      // The start never took (already reported) or left a queue someone else had frozen: nothing to undo.
      await this.#claims.finish(
        rec,
        me,
        'done',
        start?.status === 'failed' ? 'never_started' : 'not_ours',
        now,
      );
      return;
    }
    // The queue stays frozen while another window on it is open, or closes later (or at the same time with
    // a higher id, so that exactly one of two windows closing together resumes).
    const keptBy = (await this.#otherFreezes(rec, now)).filter(
      (s) =>
        s.occurrenceEnd > now ||
        s.occurrenceEnd > rec.occurrenceEnd ||
        (s.occurrenceEnd === rec.occurrenceEnd && s.windowId > rec.windowId),
    );
    if (keptBy.length > 0) {
      const ids = [...new Set(keptBy.map((s) => s.windowId))];
      if (await this.#claims.finish(rec, me, 'done', 'kept_frozen', now, { detail: ids.join(' ') }))
        await this.#announce({ ...this.#base(rec), kind: 'ended', resumed: false, keptFrozenBy: ids });
      return;
    }
    const reading = await this.#read(rec);
    if ('error' in reading) return this.#endFailed(rec, reading.error);
    const cur = lower(reading.state);
    const late = now - rec.occurrenceEnd > FREEZE_LATE_AFTER_MS;
    const resumed = async () => {
      if (await this.#claims.finish(rec, me, 'done', 'resumed', this.#now()))
        await this.#announce({ ...this.#base(rec), kind: 'ended', resumed: true, late });
    };
    if (rec.beforeState !== undefined && rec.beforeState !== 'running' && cur === 'running') return resumed();
    const expected = await this.#expectedState(rec);
    if (cur !== expected) return this.#notResumed(rec, reading, expected);
    // The state is the freeze's, but a person set it again after the window started (resumed for a
    // hotfix, paused again for an incident): theirs now, so left alone.
    const touched = await this.#personChangeSince(rec);
    if (touched)
      return this.#notResumed(
        rec,
        { ...reading, changedAt: touched.at, changedBy: touched.userId },
        expected,
      );
    if (!(await this.#claims.recordBefore(rec, me, cur))) return;
    const res = await this.#change(rec, 'running', `${FREEZE_REASON_PREFIX}${rec.windowId} ended`);
    if (res.outcome === 'ok' || (res.outcome === 'noop' && lower(res.state ?? '') === 'running'))
      return resumed();
    return this.#endFailed(rec, res.outcome === 'noop' ? res.reason : res.error);
  }

  /** The latest change of the queue's state a person made since this window's start, if any. */
  async #personChangeSince(rec: ClaimRecord) {
    if (!this.#deps.personChanges) return undefined;
    try {
      return (await this.#deps.personChanges(rec.workspaceId, rec.window.target, rec.occurrenceStart))[0];
    } catch (err) {
      // Unknown: the audit is unreadable, so the state read decides, as without the check.
      this.#deps.logger.warn({ err, window: rec.windowId }, 'could not read who changed the queue');
      return undefined;
    }
  }

  /** The state the freeze is in: what the latest start on this queue set during or after this window. */
  async #expectedState(rec: ClaimRecord): Promise<string | undefined> {
    const starts = await this.#claims.startsOnTarget(rec.workspaceId, rec.target, rec.occurrenceStart);
    return starts
      .filter((s) => s.status === 'done' && s.setState && s.occurrenceStart <= this.#now())
      .sort((a, b) => (a.finishedAt ?? 0) - (b.finishedAt ?? 0))
      .pop()?.setState;
  }

  async #notResumed(rec: ClaimRecord, reading: QueueReading, expected: string | undefined): Promise<void> {
    const found = lower(reading.state);
    const reason = notResumedReason(rec.window, found, reading);
    if (
      !(await this.#claims.finish(rec, this.#deps.replicaId, 'done', 'not_resumed', this.#now(), {
        detail: reason,
      }))
    )
      return;
    const event: FreezeEvent = { ...this.#base(rec), kind: 'not_resumed', found, reason };
    if (expected) event.expected = expected;
    if (reading.changedAt !== undefined) event.changedAt = reading.changedAt;
    if (reading.changedBy !== undefined) event.changedBy = reading.changedBy;
    await this.#announce(event);
  }

  async #endFailed(rec: ClaimRecord, error: string): Promise<void> {
    const me = this.#deps.replicaId;
    const now = this.#now();
    this.#deps.logger.warn({ window: rec.windowId, attempt: rec.attempts, error }, 'freeze end failed');
    if (rec.attempts >= END_MAX_ATTEMPTS) {
      if (await this.#claims.finish(rec, me, 'failed', 'end_failed', now, { detail: error }))
        await this.#announce({ ...this.#base(rec), kind: 'end_failed', attempts: rec.attempts, error });
      return;
    }
    const nextAttemptAt = now + this.#backoff(rec.attempts);
    if ((await this.#claims.retryLater(rec, me, nextAttemptAt, error)) && rec.attempts === 1)
      await this.#announce({ ...this.#base(rec), kind: 'end_retrying', attempt: 1, nextAttemptAt, error });
  }
}

/** "paused by someone else at 14:05 (Europe/Paris)", or "resumed by someone else", in the window's zone. */
export function notResumedReason(w: FreezeWindow, found: string, reading: QueueReading): string {
  const who = reading.changedBy ? ` (${reading.changedBy})` : '';
  const when =
    reading.changedAt !== undefined
      ? ` at ${new Intl.DateTimeFormat('en-GB', { timeZone: w.tz, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(reading.changedAt)} (${w.tz})`
      : ' during the window';
  if (found === 'running') return `resumed by someone else${who}${when}`;
  return `${found.replaceAll('_', ' ')} by someone else${who}${when}`;
}
