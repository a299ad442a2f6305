/**
 * Workspace configuration (defaults, operators, connect) against the real SQLite store, and for connect
 * the real Trunk client talking HTTP to the Trunk fake. Moved from test/queue/service.test.ts when
 * configuration left queue/operations.ts for src/workspace/config.ts. The changes are made through the
 * application service (services/workspace.ts), which writes their audit rows; workspace/config.ts writes none.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTrunkFake, type TrunkFake } from '../../dev/fakes/trunk/index.ts';
import type { QueueRef } from '../../src/core/target.ts';
import { silentLogger } from '../../src/observability/log.ts';
import { WorkspaceService } from '../../src/services/workspace.ts';
import { openStore } from '../../src/store/open.ts';
import type { Store } from '../../src/store/types.ts';
import { apiTokenAuth } from '../../src/trunk/auth.ts';
import { createTrunkClient } from '../../src/trunk/client.ts';
import { type ConfigContext, connectTrunk, readConfig } from '../../src/workspace/config.ts';
import { actorOf, deploymentDefaults, trunkAccess } from '../helpers/services.ts';

const ref: QueueRef = { repo: { host: 'github.com', owner: 'acme', name: 'web' }, branch: 'main' };
let fake: TrunkFake;
let store: Store;
let dir: string;
const clock = 1_700_000_000_000;

function client(token = 'test-token') {
  return createTrunkClient({
    baseUrl: fake.url,
    auth: apiTokenAuth(token),
    retry: { maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 1 },
    sleep: async () => {},
  });
}

function ctx(userId: string, workspaceId: string): ConfigContext {
  return { store, workspaceId, userId };
}

/** The workspace service over the store; a token is checked against the Trunk fake as typed. */
function service(): WorkspaceService {
  return new WorkspaceService({
    store,
    trunk: { ...trunkAccess(() => undefined), trunkWithToken: (token) => client(token) },
    defaults: deploymentDefaults({ canStoreSecrets: true }),
    logger: silentLogger(),
  });
}

/** A workspace admin of `workspaceId` (an operator). */
function admin(workspaceId: string) {
  const people = [{ id: 'UADMIN', isAdmin: true, isOwner: false, teamId: workspaceId }];
  return actorOf(store, 'UADMIN', { workspaceId, people, now: () => clock });
}

/** No deadline to speak of: the connect form's 3 s budget is not under test here. */
const noDeadline = { left: () => 2_000, within: <T>(work: Promise<T>) => work };

const audit = async (ws: string) =>
  (await store.listAudit(ws, { limit: 100 })).slice().sort((a, b) => (a.id ?? 0) - (b.id ?? 0));

beforeAll(async () => {
  fake = await startTrunkFake();
  // connect checks the token against the default repository's queue.
  fake.addQueue(ref.repo, 'main', { state: 'running', concurrency: 2 });
  dir = mkdtempSync(join(tmpdir(), 'mq-config-'));
  store = await openStore({
    database: { kind: 'sqlite', path: join(dir, 'db.sqlite') },
    encryptionKeys: [Buffer.alloc(32, 7)],
    now: () => clock,
  });
});
afterAll(async () => {
  await store?.close();
  await fake?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('workspace configuration', () => {
  it('sets and clears defaults, changes operators, and audits each', async () => {
    const c = ctx('UADMIN', 'T9');
    const svc = service();
    const a = admin('T9');
    await svc.setChannelDefault(a, 'C1', { repo: ref.repo, branch: 'main' });
    await svc.setWorkspaceDefault(a, { repo: ref.repo });
    let view = await readConfig(c, 'C1');
    expect(view.channelDefault).toEqual({ repo: ref.repo, branch: 'main' });
    expect(view.workspaceDefault).toEqual({ repo: ref.repo });
    await svc.setChannelDefault(a, 'C1', null);
    view = await readConfig(c, 'C1');
    expect(view.channelDefault).toBeUndefined();

    const changing = await svc.changeOperators(a, 'add', [
      { kind: 'user', id: 'U1' },
      { kind: 'usergroup', id: 'S1' },
      { kind: 'name', name: 'ghost' },
    ]);
    expect(changing.answer).toBe('operators_changed');
    const added = changing.answer === 'operators_changed' ? changing.change : undefined;
    expect(added).toEqual({
      changed: [
        { kind: 'user', id: 'U1' },
        { kind: 'usergroup', id: 'S1' },
      ],
      unchanged: [],
      unresolved: ['ghost'],
    });
    const again = await svc.changeOperators(a, 'add', [{ kind: 'user', id: 'U1' }]);
    expect(again.answer === 'operators_changed' && again.change.unchanged).toEqual([
      { kind: 'user', id: 'U1' },
    ]);
    await svc.changeOperators(a, 'remove', [{ kind: 'user', id: 'U1' }]);
    expect((await store.listOperators('T9')).map((o) => o.id)).toEqual(['S1']);
    const actions = (await audit('T9')).map((a) => `${a.action}:${a.outcome}`);
    expect(actions).toEqual([
      'config.channel:ok',
      'config.workspace:ok',
      'config.channel:ok',
      'config.operators.add:ok',
      'config.operators.add:noop',
      'config.operators.remove:ok',
    ]);
  });

  it('connect stores credentials, refusing a token Trunk rejects', async () => {
    const c = ctx('UADMIN', 'T8');
    const bad = await connectTrunk(
      c,
      { token: 'wrong-token-1', orgSlug: 'acme', defaultTarget: { repo: ref.repo } },
      client,
    );
    expect(bad).toMatchObject({ ok: false, field: 'token' });
    expect(await store.getTrunkCredentials('T8')).toBeUndefined();
    const good = await connectTrunk(
      c,
      { token: 'test-token', orgSlug: 'acme', defaultTarget: { repo: ref.repo } },
      client,
    );
    expect(good).toEqual({ ok: true });
    expect(await store.getTrunkCredentials('T8')).toEqual({ token: 'test-token', orgSlug: 'acme' });
    expect((await store.getWorkspace('T8'))?.defaultTarget).toEqual({ repo: ref.repo });
  });

  it('connect through the service is audited, and the token never is', async () => {
    const svc = service();
    const a = admin('T7');
    const input = { orgSlug: 'acme', defaultTarget: { repo: ref.repo } };
    const bad = await svc.connect(a, { ...input, token: 'wrong-token-1' }, noDeadline, 0);
    expect(bad).toEqual({ answer: 'token_rejected' });
    expect(await store.getTrunkCredentials('T7')).toBeUndefined();
    const good = await svc.connect(a, { ...input, token: 'test-token' }, noDeadline, 0);
    expect(good).toMatchObject({ answer: 'connected', orgSlug: 'acme' });
    expect(await store.getTrunkCredentials('T7')).toEqual({ token: 'test-token', orgSlug: 'acme' });
    expect((await audit('T7')).map((e) => [e.action, e.outcome, e.detail])).toEqual([
      ['connect', 'ok', { orgSlug: 'acme', defaultTarget: { repo: ref.repo } }],
    ]);
    expect(JSON.stringify(await audit('T7'))).not.toContain('token-1');
    expect(JSON.stringify(await audit('T7'))).not.toContain('test-token');
  });
});
