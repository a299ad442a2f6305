/**
 * The queue service as plain functions (milliseconds, beside the wire tests): which queue a command means,
 * and that a change is refused (and audited) before Trunk is asked anything when the person is no operator.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveTarget } from '../../src/core/target.ts';
import { silentLogger } from '../../src/observability/log.ts';
import type { DirectoryUser } from '../../src/queue/permissions.ts';
import type { WorkspaceTrunk } from '../../src/services/ports.ts';
import { QueueService } from '../../src/services/queue.ts';
import { openStore } from '../../src/store/open.ts';
import type { Store } from '../../src/store/types.ts';
import type { TrunkApi } from '../../src/trunk/api.ts';
import { actorOf, deploymentDefaults, trunkAccess } from '../helpers/services.ts';

const W = 'T1';
let store: Store;
let dir: string;
const calls: string[] = [];
const trunk: WorkspaceTrunk = {
  orgSlug: 'acme',
  api: new Proxy({} as TrunkApi, {
    get: (_t, name) => async () => {
      calls.push(String(name));
      return { state: 'running', concurrency: 1 };
    },
  }),
};

function service(connected = true) {
  return new QueueService({
    store,
    trunk: trunkAccess(() => (connected ? trunk : undefined)),
    logger: silentLogger(),
    defaults: deploymentDefaults(),
  });
}

function actor(userId: string, user: Partial<DirectoryUser> = {}) {
  const people: DirectoryUser[] = [{ id: userId, isAdmin: false, isOwner: false, teamId: W, ...user }];
  return actorOf(store, userId, { workspaceId: W, people, now: () => 5 });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mq-queue-svc-'));
  store = await openStore({ database: { kind: 'sqlite', path: join(dir, 'db.sqlite') }, encryptionKeys: [] });
});
afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('QueueService', () => {
  it('locates the channel default, and says when nothing names a queue or Trunk is not connected', async () => {
    const member = actor('UMEMBER01');
    expect(await service().locate(member, 'C1', undefined)).toEqual({ answer: 'no_target' });
    await store.setChannelDefault(
      W,
      'C1',
      { repo: { host: 'github.com', owner: 'acme', name: 'web' }, branch: 'main' },
      'UADMIN',
    );
    const located = await service().locate(member, 'C1', undefined);
    expect(located.answer).toBe('located');
    expect(located.answer === 'located' && located.trunk === trunk).toBe(true);
    expect(located.answer === 'located' && located.ref.repo.name).toBe('web');
    expect(await service(false).locate(member, 'C1', undefined)).toEqual({ answer: 'not_connected' });
  });

  it('refuses a member before Trunk is asked anything, and audits the refusal', async () => {
    calls.length = 0;
    const ref = resolveTarget({ repo: { host: 'github.com', owner: 'acme', name: 'web' }, branch: 'main' })!;
    const answer = await service().change(
      actor('UMEMBER02'),
      { ref, trunk },
      { kind: 'state', desired: 'paused' },
    );
    expect(answer).toMatchObject({ outcome: 'refused', action: 'pause', target: 'acme/web:main' });
    expect(calls).toEqual([]);
    const [last] = await store.listAudit(W, { limit: 1 });
    expect(last).toMatchObject({ userId: 'UMEMBER02', action: 'pause', outcome: 'refused', at: 5 });
  });

  it('an admin changes the queue through the domain (read first, then write)', async () => {
    calls.length = 0;
    const ref = resolveTarget({ repo: { host: 'github.com', owner: 'acme', name: 'web' }, branch: 'main' })!;
    const answer = await service().change(
      actor('UADMIN01', { isAdmin: true }),
      { ref, trunk },
      { kind: 'concurrency', value: 3 },
    );
    expect(answer.outcome).toBe('ok');
    expect(calls).toEqual(['getQueue', 'updateQueue']);
  });
});
