/**
 * `/mergequeue config autopilot …` (issue 29): what the autopilot does, per queue and for the workspace
 * (anyone may read), and turning it on or off or choosing the kick classes it re-submits (operators only,
 * audited; the Slack side announces a change in the queue's feed channels, which this answer names).
 * Without a target a change is the workspace's; with one, that queue's own (it then differs from the
 * workspace's in that part only).
 */
import { formatQueueRef, type QueueRef, type TargetSpec } from '../core/target.ts';
import { isKickClass, type KickClass, NEVER_REQUEUE } from '../kicks/classify.ts';
import {
  AutopilotRepository,
  type AutopilotSetting,
  type EffectiveAutopilot,
  WORKSPACE_WIDE,
} from '../kicks/repository.ts';
import { queueKeyOf, WatchRepository } from '../watch/index.ts';
import type { Actor } from './actor.ts';
import type { ServiceDeps } from './ports.ts';
import type { QueueService } from './queue.ts';

export type AutopilotChange = { op: 'on' | 'off' } | { op: 'requeue'; classes: string[] };

export interface AutopilotView {
  workspace: EffectiveAutopilot;
  /** The queues with a row of their own, each with what applies to it. */
  queues: Array<{ queueKey: string; setting: AutopilotSetting; effective: EffectiveAutopilot }>;
}

export type AutopilotAnswer =
  | { answer: 'shown'; view: AutopilotView }
  | { answer: 'refused'; because: string }
  | { answer: 'invalid'; message: string }
  | { answer: 'no_target' }
  | {
      answer: 'set';
      /** The queue changed, or undefined for the workspace. */
      queue: QueueRef | undefined;
      change: AutopilotChange;
      effective: EffectiveAutopilot;
      /** The feed channels that hear of it: the queue's, or every feed's for a workspace change. */
      channels: string[];
    };

const ALLOWED = 'conflict, infra, flaky, upstream, timeout or failure';

export class AutopilotService {
  readonly #deps: ServiceDeps;
  readonly #queue: QueueService;
  readonly #repo: AutopilotRepository;

  constructor(deps: ServiceDeps, queue: QueueService) {
    this.#deps = deps;
    this.#queue = queue;
    this.#repo = new AutopilotRepository(deps.store.db);
  }

  async show(actor: Actor): Promise<AutopilotAnswer> {
    const ws = actor.workspace.id;
    const rows = await this.#repo.list(ws);
    const queues = [];
    for (const setting of rows.filter((r) => r.queueKey !== WORKSPACE_WIDE))
      queues.push({
        queueKey: setting.queueKey,
        setting,
        effective: await this.#repo.effective(ws, setting.queueKey),
      });
    return { answer: 'shown', view: { workspace: await this.#repo.effective(ws, WORKSPACE_WIDE), queues } };
  }

  async change(
    actor: Actor,
    channelId: string,
    target: TargetSpec | undefined,
    change: AutopilotChange,
  ): Promise<AutopilotAnswer> {
    let classes: KickClass[] | undefined;
    if (change.op === 'requeue') {
      const words = [...new Set(change.classes.map((c) => c.toLowerCase()))];
      const bad = words.filter((w) => !isKickClass(w) || NEVER_REQUEUE.has(w as KickClass));
      if (words.length === 0 || bad.length > 0)
        return {
          answer: 'invalid',
          message:
            bad.length > 0
              ? `\`${bad[0]!.slice(0, 40)}\` is not a kick the autopilot may re-submit: choose among ${ALLOWED} (a person's cancel or push, and kicks of unknown kind, are never re-submitted).`
              : `Name the kick classes to re-submit, among ${ALLOWED}: \`/mergequeue config autopilot requeue flaky infra\`.`,
        };
      classes = words as KickClass[];
    }
    let queue: QueueRef | undefined;
    if (target) {
      queue = await this.#queue.resolveRef(actor, channelId, target);
      if (!queue) return { answer: 'no_target' };
    }
    const where = queue ? formatQueueRef(queue) : '';
    const action = `config.autopilot.${change.op}`;
    const detail = { ...(classes ? { classes } : {}), scope: queue ? 'queue' : 'workspace' };
    const operator = await actor.operator();
    if (!operator.allowed) {
      await actor.audit(action, where, 'refused', { ...detail, because: operator.because });
      return { answer: 'refused', because: operator.because };
    }
    const queueKey = queue ? queueKeyOf(queue) : WORKSPACE_WIDE;
    const ws = actor.workspace.id;
    await this.#repo.set(
      ws,
      queueKey,
      classes ? { classes } : { enabled: change.op === 'on' },
      actor.userId,
      actor.now(),
    );
    await actor.audit(action, where, 'ok', detail);
    const watches = new WatchRepository(this.#deps.store.db);
    const feeds = queue ? await watches.listQueue(ws, queueKey) : await watches.listWorkspace(ws);
    return {
      answer: 'set',
      queue,
      change,
      effective: await this.#repo.effective(ws, queueKey),
      channels: [...new Set(feeds.map((w) => w.channelId))],
    };
  }
}
