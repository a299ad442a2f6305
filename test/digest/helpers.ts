/**
 * A digest service on its loop (src/workers/digests.ts), wired as the app wires it (src/workers/index.ts) — real store, real Trunk client, every
 * message through the Slack outbox — on the world (test/helpers/world.ts): the Trunk and Slack fakes on
 * loopback and a clock the test moves. Each workspace posts with a bot token of its own, as installed
 * workspaces do, so one can be revoked.
 */
import { WebClient } from '@slack/web-api';
import type { SlackFake } from '../../dev/fakes/slack/server.ts';
import type { TrunkFake } from '../../dev/fakes/trunk/index.ts';
import type { DigestCommandContext } from '../../src/digest/index.ts';
import type { WorkspaceTrunk } from '../../src/digest/types.ts';
import { silentLogger } from '../../src/observability/log.ts';
import type { Metrics } from '../../src/observability/metrics.ts';
import { instrumentedSlackFetch } from '../../src/observability/slack-metrics.ts';
import type { Actor } from '../../src/services/actor.ts';
import { createDigestService as digestCommands } from '../../src/services/digest.ts';
import { digestSurface } from '../../src/slack/digest-surface.ts';
import { answerDigest } from '../../src/slack/listeners/commands/digest/index.ts';
import { auditBy } from '../../src/store/audit-retrying.ts';
import type { Store } from '../../src/store/types.ts';
import { apiTokenAuth } from '../../src/trunk/auth.ts';
import { createTrunkClient } from '../../src/trunk/client.ts';
import {
  createDigestWorker,
  type DigestWorker,
  type DigestWorkerOptions,
} from '../../src/workers/digests.ts';
import { startWorld } from '../helpers/world.ts';

export const WS = 'T0DIGEST01';
export const OTHER_WS = 'T0DIGEST02';
export const CHANNEL = 'C0DIGEST01';

export interface Rig {
  store: Store;
  trunk: TrunkFake;
  slack: SlackFake;
  clock: { now: number };
  metrics: Metrics;
  /** Trunk tokens per workspace (change one to simulate a revoked token). */
  tokens: Map<string, string>;
  /** `channelPaceMs`: the outbox's pace between two messages to one channel (default 0). */
  service(overrides?: Partial<DigestWorkerOptions> & { channelPaceMs?: number }): DigestWorker;
  close(): Promise<void>;
}

export async function startRig(opts: { database?: { kind: 'postgres'; url: string } } = {}): Promise<Rig> {
  const world = await startWorld({
    ...(opts.database ? { database: opts.database } : {}),
    trunkTokens: ['token-one', 'token-two'],
  });
  const { store, trunk, slack, clock, metrics } = world;
  const tokens = new Map([
    [WS, 'token-one'],
    [OTHER_WS, 'token-two'],
  ]);
  const clients = new Map<string, WorkspaceTrunk>();
  const services: DigestWorker[] = [];
  const trunkFor = (ws: string): WorkspaceTrunk | undefined => {
    const token = tokens.get(ws);
    if (!token) return undefined;
    const key = `${ws}:${token}`;
    let c = clients.get(key);
    if (!c) {
      c = {
        api: createTrunkClient({
          baseUrl: trunk.url,
          auth: apiTokenAuth(token),
          retry: { maxAttempts: 2, baseDelayMs: 5, maxDelayMs: 10 },
        }),
        orgSlug: 'acme',
      };
      clients.set(key, c);
    }
    return c;
  };
  const slackClients = new Map<string, WebClient>();
  const slackFor = (ws: string) => {
    let c = slackClients.get(ws);
    if (!c) {
      c = new WebClient(`xoxb-${ws.toLowerCase()}`, {
        slackApiUrl: slack.url,
        retryConfig: { retries: 0 },
        rejectRateLimitedCalls: true,
        // As in production (slack/workspace.ts): Slack errors and 429 waits are counted at the fetch.
        fetch: instrumentedSlackFetch(metrics),
      });
      slackClients.set(ws, c);
    }
    return c;
  };
  let n = 0;
  return {
    store,
    trunk,
    slack,
    clock,
    metrics,
    tokens,
    service({ channelPaceMs = 0, ...overrides } = {}) {
      const s = createDigestWorker({
        store,
        trunkFor,
        // As the app wires it (app.ts): every message through the Slack outbox.
        notifier: world.outbox({ paceMs: channelPaceMs, slackFor }),
        surface: digestSurface,
        logger: silentLogger(),
        metrics,
        clock: () => clock.now,
        graceHours: 6,
        replicaId: `test-${++n}`,
        trunkAppUrl: 'https://app.trunk.example',
        ...overrides,
      });
      services.push(s);
      auditsOf.set(s, { store, now: () => clock.now });
      return s;
    },
    async close() {
      for (const s of services) await s.stop(0);
      await world.close();
    },
  };
}

export function ctx(
  over: Partial<{
    userId: string;
    channelId: string;
    userTz: string;
    operator: boolean;
    /** A member of the digest's channel (default true). */
    member: boolean;
    workspaceId: string;
  }> = {},
) {
  return {
    workspaceId: over.workspaceId ?? WS,
    channelId: over.channelId ?? CHANNEL,
    userId: over.userId ?? 'UOPER00001',
    userTz: over.userTz ?? 'America/New_York',
    isOperator: async () => over.operator ?? true,
    isChannelMember: async () => over.member ?? true,
    canSeeChannel: async () => over.member ?? true,
  };
}

/** The digest id in an "Added digest `d…`" reply. */
export function addedId(text: string): string {
  const m = /Added digest `(d[a-z0-9]{5})`/.exec(text);
  if (!m) throw new Error(`not an "added" reply: ${text}`);
  return m[1]!;
}

export function textOfBlocks(blocks: unknown[] | undefined): string {
  return JSON.stringify(blocks ?? []);
}

/** Where each rig's digest service keeps its audit: the rig's store (the actor writes the rows). */
const auditsOf = new WeakMap<DigestWorker, { store: Store; now: () => number }>();

/** `/mergequeue digest <args>` as the command listener answers it, without the Slack round trip. */
export function digestCommand(service: DigestWorker, args: string[], c: DigestCommandContext) {
  const audits = auditsOf.get(service);
  if (!audits) throw new Error('digestCommand takes a digest service built by startRig');
  return answerDigest(digestCommands(service.manage), args, actorOf(c, audits), c.channelId, silentLogger());
}

/**
 * The actor a listener would build, answering the context's questions (only what the digest service asks)
 * and writing its audit rows to `store` as the real Actor does (services/actor.ts).
 */
function actorOf(c: DigestCommandContext, audits: { store: Store; now: () => number }): Actor {
  const partial: Partial<Actor> = {
    audit: (action, target, outcome, detail) =>
      auditBy({ ...audits, workspaceId: c.workspaceId, userId: c.userId }, action, target, outcome, detail),
    workspace: { id: c.workspaceId, install: 'single' },
    userId: c.userId,
    payloadTeamId: undefined,
    now: Date.now,
    standing: async () => ({
      unreadable: false,
      known: true,
      own: true,
      guest: false,
      ...(c.userTz ? { tz: c.userTz } : {}),
    }),
    isOperator: c.isOperator,
    isChannelMember: c.isChannelMember,
    canSee: c.canSeeChannel,
  };
  return partial as Actor;
}
