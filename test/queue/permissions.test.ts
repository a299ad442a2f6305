import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  canOperate,
  checkOperator,
  type Directory,
  type DirectoryUser,
} from '../../src/queue/permissions.ts';
import { openStore } from '../../src/store/open.ts';
import type { Store } from '../../src/store/types.ts';

/** A Directory backed by maps, counting lookups; `down` makes every call fail like an unreachable Slack. */
function fakeDirectory(users: DirectoryUser[], groups: Record<string, string[]>) {
  const calls = { users: 0, groups: 0 };
  let down = false;
  const dir: Directory = {
    async getUser(id) {
      calls.users++;
      if (down) throw new Error('slack down');
      return users.find((u) => u.id === id);
    },
    async usergroupMembers(id) {
      calls.groups++;
      if (down) throw new Error('slack down');
      return groups[id] ?? [];
    },
  };
  return { dir, calls, setDown: (d: boolean) => (down = d) };
}

const W = 'T1';
let store: Store;
let dirPath: string;

beforeAll(async () => {
  dirPath = mkdtempSync(join(tmpdir(), 'mq-perm-'));
  store = await openStore({
    database: { kind: 'sqlite', path: join(dirPath, 'db.sqlite') },
    encryptionKeys: [],
  });
  await store.setInstaller(W, 'UINSTALL');
  await store.addOperator(W, { kind: 'user', id: 'UOP', addedBy: 'UINSTALL' });
  await store.addOperator(W, { kind: 'usergroup', id: 'SREL', addedBy: 'UINSTALL' });
  await store.addOperator(W, { kind: 'usergroup', id: 'SOTHER', addedBy: 'UINSTALL' });
});
afterAll(async () => {
  await store?.close();
  rmSync(dirPath, { recursive: true, force: true });
});

describe('checkOperator', () => {
  const users: DirectoryUser[] = [
    { id: 'UADMIN', isAdmin: true, isOwner: false, teamId: W },
    { id: 'UOWNER', isAdmin: false, isOwner: true, teamId: W },
    { id: 'UINSTALL', isAdmin: false, isOwner: false, teamId: W },
    { id: 'UOP', isAdmin: false, isOwner: false, teamId: W },
    { id: 'UMEMBER', isAdmin: false, isOwner: false, teamId: W },
    { id: 'UNOBODY', isAdmin: false, isOwner: false, teamId: W },
    { id: 'UX', isAdmin: false, isOwner: false, teamId: W },
    { id: 'UY', isAdmin: false, isOwner: false, teamId: W },
    // Listed (UOP-like) or in an operator group, yet not one of the workspace's own people.
    { id: 'UGUEST', isAdmin: false, isOwner: false, teamId: W, isRestricted: true },
    { id: 'USINGLE', isAdmin: false, isOwner: false, teamId: W, isUltraRestricted: true },
    { id: 'UGONE', isAdmin: true, isOwner: false, teamId: W, deleted: true },
    { id: 'UBOT', isAdmin: false, isOwner: false, teamId: W, isBot: true },
    { id: 'UEXT', isAdmin: true, isOwner: true, teamId: 'TOTHERORG' },
    { id: 'USTRANGE', isAdmin: false, isOwner: false, teamId: W, isStranger: true },
    { id: 'UGRID', isAdmin: false, isOwner: false, teamId: 'EGRID1', enterpriseId: 'EGRID1', teams: ['T9'] },
  ];
  const groups = { SREL: ['UX', 'UMEMBER', 'UGUEST', 'USINGLE', 'UBOT', 'UEXT', 'USTRANGE'], SOTHER: ['UY'] };

  it.each([
    ['UADMIN', true, 'workspace admin'],
    ['UOWNER', true, 'workspace owner'],
    ['UINSTALL', true, 'installed the app'],
    ['UOP', true, 'listed as an operator'],
    ['UMEMBER', true, 'member of operator group <!subteam^SREL>'],
    ['UNOBODY', false, 'only workspace admins'],
  ])('%s → allowed=%s', async (userId, allowed, because) => {
    const { dir } = fakeDirectory(users, groups);
    const d = await checkOperator({ directory: dir, store, workspaceId: W, userId });
    expect(d.allowed).toBe(allowed);
    expect(d.because).toContain(because);
  });

  it('operators of one workspace are not operators of another', async () => {
    const { dir } = fakeDirectory(users, groups);
    expect((await checkOperator({ directory: dir, store, workspaceId: 'T2', userId: 'UOP' })).allowed).toBe(
      false,
    );
    expect(
      (await checkOperator({ directory: dir, store, workspaceId: 'T2', userId: 'UINSTALL' })).allowed,
    ).toBe(false);
  });

  it('reads each group at most once per cache, and stops at the first match', async () => {
    const { dir, calls } = fakeDirectory(users, groups);
    const cache = new Map();
    await checkOperator({ directory: dir, store, workspaceId: W, userId: 'UNOBODY', cache });
    expect(calls.groups).toBe(2);
    await checkOperator({ directory: dir, store, workspaceId: W, userId: 'UNOBODY', cache });
    expect(calls.groups).toBe(2);
    // A member of the first group listed is allowed without reading the second.
    const first = (await store.listOperators(W)).find((o) => o.kind === 'usergroup')!
      .id as keyof typeof groups;
    const fresh = fakeDirectory(users, groups);
    const d = await checkOperator({ directory: fresh.dir, store, workspaceId: W, userId: groups[first][0]! });
    expect(d.allowed).toBe(true);
    expect(fresh.calls.groups).toBe(1);
  });

  it('fails closed when Slack cannot be asked: who someone is cannot be checked, so nobody operates', async () => {
    const { dir, setDown } = fakeDirectory(users, groups);
    setDown(true);
    for (const userId of ['UADMIN', 'UOP', 'UINSTALL']) {
      const d = await checkOperator({ directory: dir, store, workspaceId: W, userId });
      expect(d, userId).toEqual({ allowed: false, because: expect.stringContaining('could not be checked') });
    }
  });

  it.each([
    ['UGUEST', 'guests'],
    ['USINGLE', 'guests'],
    ['UGONE', 'deactivated'],
    ['UBOT', 'bots'],
    ['UEXT', 'another organization'],
    ['USTRANGE', 'another organization'],
  ])('%s is never an operator, even listed and in an operator group (%s)', async (userId, because) => {
    await store.addOperator(W, { kind: 'user', id: userId, addedBy: 'UINSTALL' });
    try {
      const { dir } = fakeDirectory(users, groups);
      const d = await checkOperator({
        directory: dir,
        store,
        workspaceId: W,
        userId,
        installerUserId: userId,
      });
      expect(d.allowed).toBe(false);
      expect(d.because).toContain(because);
    } finally {
      await store.removeOperator(W, 'user', userId);
    }
  });

  it('a click whose payload names another team is refused even when users.info looks local', async () => {
    const { dir } = fakeDirectory(users, groups);
    const d = await checkOperator({
      directory: dir,
      store,
      workspaceId: W,
      userId: 'UOP',
      payloadTeamId: 'TOTHER',
    });
    expect(d).toEqual({ allowed: false, because: expect.stringContaining('another organization') });
  });

  it('an org-wide install counts members of the enterprise; a workspace install only its own team', async () => {
    const { dir } = fakeDirectory(users, groups);
    await store.addOperator('EGRID1', { kind: 'user', id: 'UGRID', addedBy: 'U0' });
    await store.addOperator('T8', { kind: 'user', id: 'UGRID', addedBy: 'U0' });
    expect(
      (await checkOperator({ directory: dir, store, workspaceId: 'EGRID1', userId: 'UGRID' })).allowed,
    ).toBe(true);
    // A Grid workspace they belong to (enterprise_user.teams) counts; a sister workspace does not.
    await store.addOperator('T9', { kind: 'user', id: 'UGRID', addedBy: 'U0' });
    expect((await checkOperator({ directory: dir, store, workspaceId: 'T9', userId: 'UGRID' })).allowed).toBe(
      true,
    );
    expect((await checkOperator({ directory: dir, store, workspaceId: 'T8', userId: 'UGRID' })).allowed).toBe(
      false,
    );
  });

  it('an org-wide install: the enterprise’s admins and owners operate; on a workspace install they do not', () => {
    const grid = (flags: Partial<DirectoryUser>): DirectoryUser => ({
      id: 'WORG',
      isAdmin: false,
      isOwner: false,
      teamId: 'T9',
      enterpriseId: 'EGRID1',
      teams: ['T9'],
      ...flags,
    });
    const facts = (workspaceId: string, user: DirectoryUser) => ({
      workspaceId,
      userId: 'WORG',
      user,
      operators: [],
      groupMembers: new Map<string, readonly string[]>(),
    });
    expect(canOperate(facts('EGRID1', grid({ isEnterpriseAdmin: true })))).toEqual({
      allowed: true,
      because: 'admin of the Enterprise Grid organization',
    });
    expect(canOperate(facts('EGRID1', grid({ isEnterpriseOwner: true }))).allowed).toBe(true);
    // A workspace install is its workspace's: the organization's admin is a member there like any other.
    expect(canOperate(facts('T9', grid({ isEnterpriseAdmin: true }))).allowed).toBe(false);
    expect(canOperate(facts('EGRID1', grid({}))).allowed).toBe(false);
  });

  it('a member of the same Grid organization outside a workspace install is told exactly that', async () => {
    const { dir } = fakeDirectory(users, groups);
    const withOrg: Directory = { ...dir, workspaceEnterpriseId: async () => 'EGRID1' };
    const d = await checkOperator({ directory: withOrg, store, workspaceId: 'T8', userId: 'UGRID' });
    expect(d.allowed).toBe(false);
    expect(d.because).toMatch(/belong to this Enterprise Grid organization but not to this workspace/);
    // Without knowing the workspace's organization, the old answer stands.
    const plain = await checkOperator({ directory: dir, store, workspaceId: 'T8', userId: 'UGRID' });
    expect(plain.because).toMatch(/another organization/);
  });

  it('an installer given by the caller counts without a stored one', async () => {
    const { dir } = fakeDirectory(users, groups);
    const d = await checkOperator({
      directory: dir,
      store,
      workspaceId: W,
      userId: 'UNOBODY',
      installerUserId: 'UNOBODY',
    });
    expect(d.allowed).toBe(true);
  });
});

describe('canOperate (pure rule)', () => {
  it('refuses when a listed group could not be read, saying so', () => {
    const d = canOperate({
      workspaceId: 'T1',
      userId: 'U1',
      user: { id: 'U1', isAdmin: false, isOwner: false, teamId: 'T1' },
      operators: [{ kind: 'usergroup', id: 'S1', addedBy: 'U0', addedAt: 0 }],
      groupMembers: new Map(),
      unreadableGroups: ['S1'],
    });
    expect(d.allowed).toBe(false);
    expect(d.because).toContain('could not be checked');
  });
});
