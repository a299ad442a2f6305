/**
 * Workspace configuration (defaults, operators, connect) against the real SQLite store, and for connect
 * the real Trunk client talking HTTP to the Trunk fake. Moved from test/queue/service.test.ts when
 * configuration left queue/service.ts for src/workspace/config.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTrunkFake, type TrunkFake } from '../../dev/fakes/trunk/index.ts';
import type { QueueRef } from '../../src/core/target.ts';
import { openStore } from '../../src/store/open.ts';
import type { Store } from '../../src/store/types.ts';
import { apiTokenAuth } from '../../src/trunk/auth.ts';
import { createTrunkClient } from '../../src/trunk/client.ts';
import {
  type ConfigContext,
  changeOperators,
  connectTrunk,
  readConfig,
  setChannelDefault,
  setWorkspaceDefault,
} from '../../src/workspace/config.ts';

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
  return { store, workspaceId, userId, now: () => clock };
}

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
    await setChannelDefault(c, 'C1', { repo: ref.repo, branch: 'main' });
    await setWorkspaceDefault(c, { repo: ref.repo });
    let view = await readConfig(c, 'C1');
    expect(view.channelDefault).toEqual({ repo: ref.repo, branch: 'main' });
    expect(view.workspaceDefault).toEqual({ repo: ref.repo });
    await setChannelDefault(c, 'C1', null);
    view = await readConfig(c, 'C1');
    expect(view.channelDefault).toBeUndefined();

    const added = await changeOperators(c, 'add', [
      { kind: 'user', id: 'U1' },
      { kind: 'usergroup', id: 'S1' },
      { kind: 'name', name: 'ghost' },
    ]);
    expect(added).toEqual({
      changed: [
        { kind: 'user', id: 'U1' },
        { kind: 'usergroup', id: 'S1' },
      ],
      unchanged: [],
      unresolved: ['ghost'],
    });
    const again = await changeOperators(c, 'add', [{ kind: 'user', id: 'U1' }], {
      findByName: async (n) => (n === 'bob' ? { kind: 'user', id: 'UBOB' } : undefined),
    });
    expect(again.unchanged).toEqual([{ kind: 'user', id: 'U1' }]);
    await changeOperators(c, 'remove', [{ kind: 'user', id: 'U1' }]);
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

  it('connect stores credentials, refusing a token Trunk rejects; the token is never audited', async () => {
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
    expect(JSON.stringify(await audit('T8'))).not.toContain('token-1');
    expect(JSON.stringify(await audit('T8'))).not.toContain('test-token');
  });
});
