/**
 * What `freeze add|list|remove|skip` and the status message do, as plain data: the Slack side renders
 * the results, checks who may act and writes the audit entry.
 */
import type { QueueRef } from '../core/target.ts';
import type { Db } from '../store/types.ts';
import { WindowRepository } from './repository.ts';
import { activeOrNext, nextWindowOccurrence, type Occurrence, type WindowSpec } from './schedule.ts';
import type { FreezeAdd, FreezeWindow } from './types.ts';

export function windowSpec(w: FreezeWindow): WindowSpec {
  const spec: WindowSpec = { startMinute: w.startMinute, endMinute: w.endMinute, tz: w.tz, rule: w.rule };
  if (w.skipStartAt !== undefined) spec.skipStartAt = w.skipStartAt;
  return spec;
}

/** A window with the occurrence open now, or its next one (none when a `once` window has passed). */
export interface WindowView {
  window: FreezeWindow;
  current?: { occurrence: Occurrence; active: boolean };
}

export function viewOf(w: FreezeWindow, now: number): WindowView {
  const current = activeOrNext(windowSpec(w), now);
  return current ? { window: w, current } : { window: w };
}

export interface AddWindowInput {
  workspaceId: string;
  channelId: string;
  createdBy: string;
  /** Resolved by the caller from the typed target and the channel's or workspace's default. */
  target: QueueRef;
  command: FreezeAdd;
}

export async function addWindow(db: Db, input: AddWindowInput, now: number): Promise<WindowView> {
  const c = input.command;
  const fields: Omit<FreezeWindow, 'id'> = {
    workspaceId: input.workspaceId,
    channelId: input.channelId,
    createdBy: input.createdBy,
    createdAt: now,
    target: input.target,
    startMinute: c.startMinute,
    endMinute: c.endMinute,
    tz: c.tz,
    rule: c.rule,
    action: c.action,
  };
  if (c.reason) fields.reason = c.reason;
  const w = await new WindowRepository(db).insert(fields);
  return viewOf(w, now);
}

/** This workspace's windows with their open or next occurrence. */
export async function listWindows(db: Db, workspaceId: string, now: number): Promise<WindowView[]> {
  return (await new WindowRepository(db).list(workspaceId)).map((w) => viewOf(w, now));
}

/**
 * Removes the window. If it is open and froze the queue, the freezer ends that occurrence at its next
 * tick (the claim keeps a copy of the window), resuming the queue under the usual rules.
 */
export async function removeWindow(
  db: Db,
  workspaceId: string,
  id: string,
  now: number,
): Promise<WindowView | undefined> {
  const repo = new WindowRepository(db);
  const w = await repo.get(workspaceId, id);
  if (!w || !(await repo.remove(workspaceId, id))) return undefined;
  return viewOf(w, now);
}

export type SkipResult =
  | { outcome: 'skipped'; window: FreezeWindow; skipped: Occurrence; next?: Occurrence }
  | { outcome: 'not_found' }
  | { outcome: 'already_skipped'; window: FreezeWindow; skipped: Occurrence }
  | { outcome: 'no_next'; window: FreezeWindow };

/**
 * Skips the next occurrence that has not started (an open one carries on: remove the window, or resume
 * the queue, to end it early). One skip at a time, so a second skip cannot silently move the first.
 */
export async function skipNext(db: Db, workspaceId: string, id: string, now: number): Promise<SkipResult> {
  const repo = new WindowRepository(db);
  const w = await repo.get(workspaceId, id);
  if (!w) return { outcome: 'not_found' };
  const spec = windowSpec(w);
  if (w.skipStartAt !== undefined && w.skipStartAt > now) {
    const skipped = nextWindowOccurrence({ ...spec, skipStartAt: undefined }, w.skipStartAt - 1);
    if (skipped?.start === w.skipStartAt) return { outcome: 'already_skipped', window: w, skipped };
  }
  const next = nextWindowOccurrence({ ...spec, skipStartAt: undefined }, now);
  if (!next) return { outcome: 'no_next', window: w };
  await repo.setSkip(workspaceId, id, next.start);
  const updated: FreezeWindow = { ...w, skipStartAt: next.start };
  const after = nextWindowOccurrence(windowSpec(updated), now);
  return after
    ? { outcome: 'skipped', window: updated, skipped: next, next: after }
    : { outcome: 'skipped', window: updated, skipped: next };
}

/**
 * For the status message of one queue: an open window (the one closing last, if several overlap), else
 * the one opening next. Undefined when the queue has no upcoming window.
 */
export async function nextOrActiveWindow(
  db: Db,
  workspaceId: string,
  target: QueueRef,
  now: number,
): Promise<(WindowView & { current: NonNullable<WindowView['current']> }) | undefined> {
  const views = (await new WindowRepository(db).forTarget(workspaceId, target))
    .map((w) => viewOf(w, now))
    .filter(
      (v): v is WindowView & { current: NonNullable<WindowView['current']> } => v.current !== undefined,
    );
  const active = views
    .filter((v) => v.current.active)
    .sort((a, b) => a.current.occurrence.end - b.current.occurrence.end);
  if (active.length > 0) return active.at(-1);
  return views.sort((a, b) => a.current.occurrence.start - b.current.occurrence.start)[0];
}
