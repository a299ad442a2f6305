import { describe, expect, it } from 'vitest';
import type { DirectoryUser } from '../../src/queue/permissions.ts';
import { createActor, type PeopleDirectory } from '../../src/services/actor.ts';
import type { AuditEntry } from '../../src/store/types.ts';

const W = 'T1';

function world(users: DirectoryUser[], members: Record<string, string[]>, publics: string[] = []) {
  const calls = { users: 0, members: 0, publics: 0, operators: 0 };
  const audits: Omit<AuditEntry, 'id'>[] = [];
  const directory: PeopleDirectory = {
    async getUser(id) {
      calls.users++;
      return users.find((u) => u.id === id);
    },
    async usergroupMembers() {
      return [];
    },
    async isChannelMember(channel, user) {
      calls.members++;
      return (members[channel] ?? []).includes(user);
    },
    async isPublicChannel(channel) {
      calls.publics++;
      return publics.includes(channel);
    },
  };
  const store = {
    async listOperators() {
      calls.operators++;
      return [{ kind: 'user' as const, id: 'UOP', addedBy: 'UADMIN', addedAt: 0 }];
    },
    async getWorkspace() {
      return undefined;
    },
    async appendAudit(e: Omit<AuditEntry, 'id'>) {
      audits.push(e);
    },
  };
  const actor = (userId: string, payloadTeamId?: string) =>
    createActor({
      workspace: { id: W, install: 'single' },
      userId,
      payloadTeamId,
      now: () => 42,
      directory,
      store,
    });
  return { actor, calls, audits };
}

const member = (id: string, extra: Partial<DirectoryUser> = {}): DirectoryUser => ({
  id,
  isAdmin: false,
  isOwner: false,
  teamId: W,
  ...extra,
});

describe('Actor', () => {
  it('asks Slack once per request, however many rules ask', async () => {
    const w = world([member('UOP')], { C1: ['UOP'] });
    const a = w.actor('UOP');
    expect(await a.isOperator()).toBe(true);
    expect(await a.isOperator()).toBe(true);
    expect(await a.canSee('C1')).toBe(true);
    expect(await a.isChannelMember('C1')).toBe(true);
    expect(await a.isOwnOrganization()).toBe(true);
    expect(w.calls.users).toBe(1);
    expect(w.calls.members).toBe(1);
    expect(w.calls.operators).toBe(1);
  });

  it('sees a public channel as one of our own, a private one only as a member', async () => {
    const w = world([member('U1'), member('UG', { isRestricted: true })], { CPRIV: [] }, ['CPUB']);
    expect(await w.actor('U1').canSee('CPUB')).toBe(true);
    expect(await w.actor('U1').canSee('CPRIV')).toBe(false);
    // A guest sees only channels they are in, and never manages them.
    const guest = w.actor('UG');
    expect(await guest.canSee('CPUB')).toBe(false);
    expect(await guest.isGuest()).toBe(true);
    expect(await guest.isOwnOrganization()).toBe(false);
    expect(await guest.isOperator()).toBe(false);
  });

  it('a person of another organization is neither own nor operator, whatever their org says', async () => {
    const w = world([member('UX', { teamId: 'TOTHER', isAdmin: true })], {});
    const a = w.actor('UX');
    expect(await a.isOwnOrganization()).toBe(false);
    expect((await a.operator()).allowed).toBe(false);
  });

  it("keeps the directory's Grid question: a member of the organization outside this workspace is told so", async () => {
    let asked = 0;
    const a = createActor({
      workspace: { id: W, install: 'workspace' },
      userId: 'UGRID',
      now: () => 1,
      store: {
        listOperators: async () => [],
        getWorkspace: async () => undefined,
        appendAudit: async () => {},
      },
      directory: {
        getUser: async () => member('UGRID', { teamId: 'T2', enterpriseId: 'E1' }),
        usergroupMembers: async () => [],
        isChannelMember: async () => false,
        isPublicChannel: async () => false,
        workspaceEnterpriseId: async () => {
          asked++;
          return 'E1';
        },
      },
    });
    expect((await a.operator()).because).toMatch(
      /belong to this Enterprise Grid organization but not to this workspace/,
    );
    expect(asked).toBe(1);
  });

  it('audits as the person, stamped by the clock', async () => {
    const w = world([member('U1')], {});
    await w.actor('U1').audit('pause', 'acme/web:main', 'refused', { because: 'x' });
    expect(w.audits).toEqual([
      expect.objectContaining({ workspaceId: W, userId: 'U1', action: 'pause', outcome: 'refused', at: 42 }),
    ]);
  });
});
