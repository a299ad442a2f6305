/**
 * The watch and freeze services as plain functions in milliseconds (the wire tests in
 * test/slack/e2e/feeds.test.ts and visibility.test.ts drive them through Slack): who may manage a feed, and
 * `freeze list` showing only the windows of channels the person can see. A real SQLite store; the actor is
 * the real one over an in-memory directory; Trunk is a stub that knows every queue.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/observability/log.ts';
import type { DirectoryUser } from '../../src/queue/permissions.ts';
import { createServices, type Services } from '../../src/services/index.ts';
import type { SharedChannels } from '../../src/services/watch.ts';
import { openStore } from '../../src/store/open.ts';
import type { Store } from '../../src/store/types.ts';
import { actorOf, deploymentDefaults, trunkAccess } from '../helpers/services.ts';

const W = 'T0SVCFEED1';
const PUBLIC = 'C0PUBLIC01';
const PRIVATE = 'C0PRIVATE1';
const SHARED = 'C0SHARED01';
const people: DirectoryUser[] = [
  { id: 'UADMIN', isAdmin: true, isOwner: false, teamId: W },
  { id: 'UMEMBER', isAdmin: false, isOwner: false, teamId: W },
  { id: 'UGUEST', isAdmin: false, isOwner: false, teamId: W, isUltraRestricted: true },
  { id: 'UOTHER', isAdmin: true, isOwner: false, teamId: 'T0ELSEWHERE' },
];
const members: Record<string, string[]> = {
  [PUBLIC]: ['UADMIN', 'UMEMBER'],
  [PRIVATE]: ['UADMIN'],
  [SHARED]: ['UADMIN', 'UMEMBER'],
};
const shared: SharedChannels = { isShared: async (c) => c === SHARED };

let dir: string;
let store: Store;
let services: Services;

function actor(userId: string) {
  return actorOf(store, userId, {
    workspaceId: W,
    people,
    now: () => Date.parse('2026-11-02T08:00:00Z'),
    members,
    isPublic: (c) => c === PUBLIC || c === SHARED,
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mq-svc-feeds-'));
  store = await openStore({ database: { kind: 'sqlite', path: join(dir, 'mq.db') }, encryptionKeys: [] });
  const trunk = { getQueue: async () => ({ state: 'running', concurrency: 1 }) };
  services = createServices({
    store,
    trunk: trunkAccess(() => ({ api: trunk as never, orgSlug: 'acme' })),
    logger: silentLogger(),
    defaults: deploymentDefaults({ hasEnvTrunkToken: true, envOrgSlug: 'acme', auditRetentionDays: 30 }),
  });
});
afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

const target = { repo: { host: 'github.com', owner: 'acme', name: 'web' }, branch: 'main' };
const watch = (userId: string, channelId: string, stuckMinutes?: number) =>
  services.watch.handle(
    actor(userId),
    {
      kind: 'add',
      channelId,
      target,
      topics: ['state'],
      ...(stuckMinutes !== undefined ? { stuckMinutes } : {}),
    },
    shared,
  );

describe('who may manage a feed', () => {
  it('guests and people of another organization are refused; own people may', async () => {
    expect(await watch('UGUEST', PUBLIC)).toMatchObject({
      answer: 'refused',
      because: 'guests do not manage channel feeds',
      operatorsMay: false,
    });
    expect(await watch('UOTHER', PUBLIC)).toMatchObject({ answer: 'refused', operatorsMay: false });
    expect(await watch('UMEMBER', PUBLIC)).toMatchObject({ answer: 'watching' });
  });

  it('a shared channel and a stuck threshold under 10 minutes are for operators', async () => {
    expect(await watch('UMEMBER', SHARED)).toMatchObject({ answer: 'refused', operatorsMay: true });
    expect(await watch('UADMIN', SHARED)).toMatchObject({ answer: 'watching' });
    expect(await watch('UMEMBER', PUBLIC, 9)).toMatchObject({ answer: 'refused', operatorsMay: true });
    expect(await watch('UMEMBER', PUBLIC, 10)).toMatchObject({ answer: 'watching' });
  });

  it('Slack not saying whether a channel is shared fails closed for non-operators', async () => {
    const unknown: SharedChannels = { isShared: async () => undefined };
    const req = { kind: 'add' as const, channelId: PUBLIC, target, topics: ['state' as const] };
    expect(await services.watch.handle(actor('UMEMBER'), req, unknown)).toMatchObject({ answer: 'refused' });
    expect(await services.watch.handle(actor('UADMIN'), req, unknown)).toMatchObject({ answer: 'watching' });
  });
});

describe('freeze list', () => {
  it("lists only the windows of channels the person can see; a guest sees none of others' channels", async () => {
    const add = (channelId: string, reason: string) =>
      services.freeze.handle(actor('UADMIN'), {
        kind: 'add',
        channelId,
        add: {
          target,
          startMinute: 18 * 60,
          endMinute: 8 * 60,
          tz: 'UTC',
          rule: { kind: 'repeat', days: 'weekdays' },
          action: 'drain',
          reason,
        },
      });
    expect(await add(PUBLIC, 'public')).toMatchObject({ answer: 'added' });
    expect(await add(PRIVATE, 'private')).toMatchObject({ answer: 'added' });
    const reasons = async (userId: string) => {
      const a = await services.freeze.handle(actor(userId), { kind: 'list' });
      return a.answer === 'listed' ? a.views.map((v) => v.window.reason).sort() : a.answer;
    };
    expect(await reasons('UADMIN')).toEqual(['private', 'public']);
    expect(await reasons('UMEMBER')).toEqual(['public']);
    expect(await reasons('UGUEST')).toEqual([]);
  });
});
