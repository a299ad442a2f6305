/**
 * Queue events from two snapshots (pure). The watcher polls getQueue, turns the answer into a snapshot,
 * and compares it with the one in the store: settings that changed, PRs that entered, PRs that started
 * testing, and PRs that left (whose fate getSubmittedPullRequest tells: resolveDeparted). The first look
 * at a queue has nothing to compare with and so announces nothing.
 */
import type { AuditEntry } from '../store/types.ts';
import type { Queue, SubmittedPullRequest } from '../trunk/types.ts';
import type {
  EventPr,
  QueueSnapshot,
  QueueTarget,
  SettingChange,
  SnapshotPr,
  WatchEvent,
  WatchEventKind,
} from './types.ts';

const HALTED = new Set(['paused', 'draining']);

/** The snapshot of a getQueue answer, carrying forward the times health needs from the previous one. */
export function toSnapshot(queue: Queue, prev: QueueSnapshot | undefined, now: number): QueueSnapshot {
  const { state, branch: _b, enqueuedPullRequests, ...settings } = queue;
  const prs: SnapshotPr[] = (enqueuedPullRequests ?? []).map((p) => {
    const pr: SnapshotPr = {
      number: p.prNumber,
      title: p.prTitle,
      author: p.prAuthor,
      stateChangedAt: p.stateChangedAt,
    };
    if (p.state !== undefined) pr.state = p.state;
    return pr;
  });
  const snap: QueueSnapshot = {
    state,
    settings: settings as Record<string, unknown>,
    prs,
    // Waiting is measured from when the queue last moved, from when it stopped being empty, or from when
    // it was resumed: a halted queue is expected not to move, so its pause must not count as being stuck.
    progressAt:
      !prev || (prev.prs.length === 0 && prs.length > 0) || (HALTED.has(prev.state) && !HALTED.has(state))
        ? now
        : prev.progressAt,
  };
  if (HALTED.has(state)) snap.haltedSince = prev && HALTED.has(prev.state) ? (prev.haltedSince ?? now) : now;
  return snap;
}

/** Marks the snapshot as having moved when a PR started testing or merged in this poll. */
export function noteProgress(snap: QueueSnapshot, events: readonly WatchEvent[], at: number): QueueSnapshot {
  return events.some((e) => e.kind === 'testing' || e.kind === 'merged') ? { ...snap, progressAt: at } : snap;
}

/** A change made through this app, read from the audit log: which queue fields it set, and who. */
export interface OurChange {
  fields: string[];
  /** The value each field had once Trunk applied the change (the audit's `after`), when it says. */
  values: Record<string, unknown>;
  userId: string;
  at: number;
}

/** Audit entries of a target → the changes of ours they record (refused, failed and no-op ones changed nothing). */
export function ourChangesFromAudit(entries: readonly AuditEntry[]): OurChange[] {
  const out: OurChange[] = [];
  for (const e of entries) {
    if (e.outcome !== 'ok') continue;
    let fields: string[] = [];
    const values: Record<string, unknown> = {};
    const after = e.detail['after'];
    if (e.action === 'pause' || e.action === 'drain' || e.action === 'resume') {
      fields = ['state'];
      if (after !== undefined) values['state'] = after;
    } else if (e.action === 'concurrency') {
      fields = ['concurrency'];
      if (after !== undefined) values['concurrency'] = after;
    } else if (e.action === 'settings') {
      const changes = e.detail['changes'];
      if (changes && typeof changes === 'object')
        fields = Object.keys(changes).map((k) => (k === 'deleteRequiredStatuses' ? 'requiredStatuses' : k));
      if (after && typeof after === 'object') Object.assign(values, after);
    }
    if (fields.length > 0) out.push({ fields, values, userId: e.userId, at: e.at });
  }
  return out;
}

export interface DiffFacts {
  workspaceId: string;
  queueKey: string;
  target: QueueTarget;
  /** The sequence number the new snapshot will be stored under. */
  seq: number;
  at: number;
  /** Changes made through this app within the last poll window (see ourChangesFromAudit). */
  ourChanges: readonly OurChange[];
}

export interface DiffResult {
  /** state, submitted and testing events. */
  events: WatchEvent[];
  /** PRs that left the queue: resolve each with getSubmittedPullRequest, then resolveDeparted. */
  departed: EventPr[];
}

export function eventId(
  facts: Pick<DiffFacts, 'workspaceId' | 'queueKey' | 'seq'>,
  kind: WatchEventKind,
  part = '',
): string {
  return `${facts.workspaceId}|${facts.queueKey}|${facts.seq}|${kind}|${part}`;
}

function base(facts: DiffFacts, kind: WatchEventKind, part: string) {
  return {
    id: eventId(facts, kind, part),
    workspaceId: facts.workspaceId,
    queueKey: facts.queueKey,
    target: facts.target,
    seq: facts.seq,
    at: facts.at,
  };
}

/** A snapshot PR already has the fields events carry; a copy keeps the event independent of it. */
function eventPr(p: SnapshotPr): EventPr {
  return { ...p };
}

function same(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/** Trunk answers enums in either case (older deployments: `PAUSED`). */
function sameValue(a: unknown, b: unknown): boolean {
  if (typeof a === 'string' && typeof b === 'string') return a.toLowerCase() === b.toLowerCase();
  return same(a, b);
}

export function diffSnapshots(
  prev: QueueSnapshot | undefined,
  next: QueueSnapshot,
  facts: DiffFacts,
): DiffResult {
  if (!prev) return { events: [], departed: [] };
  const events: WatchEvent[] = [];

  const changes: SettingChange[] = [];
  const fields = ['state', ...new Set([...Object.keys(prev.settings), ...Object.keys(next.settings)])];
  for (const field of fields) {
    const before = field === 'state' ? prev.state : prev.settings[field];
    const after = field === 'state' ? next.state : next.settings[field];
    if (same(before, after)) continue;
    // Someone's change is named only when it produced the value observed: a pause from Slack followed by a
    // resume in Trunk's web app shows "running" as changed outside Slack, not as that person's doing.
    const ours = facts.ourChanges
      .filter((c) => c.fields.includes(field) && field in c.values && sameValue(c.values[field], after))
      .sort((a, b) => b.at - a.at)[0];
    const change: SettingChange = { field, before, after, outsideSlack: !ours };
    if (ours) change.by = ours.userId;
    changes.push(change);
  }
  if (changes.length > 0)
    events.push({
      ...base(facts, 'state', ''),
      kind: 'state',
      changes,
      outsideSlack: changes.some((c) => c.outsideSlack),
    });

  const before = new Map(prev.prs.map((p) => [p.number, p]));
  const after = new Set(next.prs.map((p) => p.number));
  for (const p of next.prs) {
    const was = before.get(p.number);
    if (!was)
      events.push({ ...base(facts, 'submitted', String(p.number)), kind: 'submitted', pr: eventPr(p) });
    if (p.state === 'testing' && was?.state !== 'testing')
      events.push({ ...base(facts, 'testing', String(p.number)), kind: 'testing', pr: eventPr(p) });
  }
  const departed = prev.prs.filter((p) => !after.has(p.number)).map(eventPr);
  return { events, departed };
}

/**
 * The event for a PR that left the queue, from what getSubmittedPullRequest answered (undefined: Trunk
 * no longer knows the PR). A PR Trunk still shows in the queue or in an unknown state is `left`.
 */
export function resolveDeparted(
  pr: EventPr,
  found: SubmittedPullRequest | undefined,
  facts: DiffFacts,
): WatchEvent {
  const fate = found?.state?.toLowerCase();
  const detail: EventPr = found
    ? { number: pr.number, title: found.prTitle || pr.title, author: found.prAuthor || pr.author }
    : pr;
  if (found) {
    if (found.state !== undefined) detail.state = found.state;
    detail.stateChangedAt = found.stateChangedAt;
  }
  const part = String(pr.number);
  if (fate === 'merged') return { ...base(facts, 'merged', part), kind: 'merged', pr: detail };
  if (found && (fate === 'failed' || fate === 'cancelled')) {
    const e: WatchEvent = {
      ...base(facts, fate, part),
      kind: fate,
      pr: detail,
      prBaseBranch: found.prBaseBranch,
    };
    if (found.readiness) e.readiness = found.readiness;
    return e;
  }
  return { ...base(facts, 'left', part), kind: 'left', pr: detail };
}

/** The event of a PR that left as Trunk v2's history says (no v1 read: its readiness is not known). */
export function departedAs(
  pr: EventPr,
  fate: 'merged' | 'failed' | 'cancelled',
  facts: DiffFacts,
): WatchEvent {
  const detail: EventPr = { ...pr, state: fate };
  const part = String(pr.number);
  if (fate === 'merged') return { ...base(facts, 'merged', part), kind: 'merged', pr: detail };
  return { ...base(facts, fate, part), kind: fate, pr: detail };
}
