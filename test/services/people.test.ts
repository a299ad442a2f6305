/**
 * The people service as plain functions over both engines (the wire tests in
 * test/slack/e2e/people-trust.test.ts drive it through Slack): `me forget` takes the login out of the
 * audit in the same way on SQLite and PostgreSQL, and never rewrites anything but the login itself.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/observability/log.ts';
import type { DirectoryUser } from '../../src/queue/permissions.ts';
import { PeopleService } from '../../src/services/people.ts';
import { openStore } from '../../src/store/open.ts';
import type { Store } from '../../src/store/types.ts';
import { createPgTestDatabase, type PgTestDatabase, pgTestsEnabled } from '../helpers/pg.ts';
import { actorOf, deploymentDefaults, trunkAccess } from '../helpers/services.ts';

const W = 'T1';
const USER = 'UMARA00001';

function actorFor(store: Store, userId: string) {
  const people: DirectoryUser[] = [{ id: userId, isAdmin: false, isOwner: false, teamId: W }];
  return actorOf(store, userId, { workspaceId: W, people, now: () => 1_000 });
}

function serviceOf(store: Store) {
  return new PeopleService({
    store,
    trunk: trunkAccess(() => undefined),
    logger: silentLogger(),
    defaults: deploymentDefaults({ auditRetentionDays: 30 }),
  });
}

function forgetSuite(engine: string, open: () => Promise<{ store: Store; close: () => Promise<void> }>) {
  describe(`me forget on ${engine}`, () => {
    let store: Store;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ store, close } = await open());
    });
    afterAll(async () => close?.());

    it('replaces the login in targets and quoted details only, deletes deliveries, says what remains', async () => {
      const people = serviceOf(store);
      const me = actorFor(store, USER);
      // A one-letter-ish login must not rewrite other words or keys.
      expect(await people.linkSelf(me, 'on')).toMatchObject({ answer: 'linked' });
      await store.appendAudit({
        workspaceId: W,
        userId: USER,
        action: 'cancel',
        target: 'acme/web:main#7',
        outcome: 'refused',
        detail: { reason: 'done', because: 'you linked yourself to GitHub user on, and …', login: 'on' },
        at: 2,
      });
      await store.db.execute(
        `INSERT INTO watch_deliveries (event_id, destination, workspace_id, status, owner)
         VALUES ('e1', $1, $2, 'sent', 'r')`,
        [`author:${USER}`, W],
      );
      const answer = await people.forget(me);
      expect(answer).toEqual({
        answer: 'forgotten',
        had: true,
        forgotten: { auditEntries: 2, deliveries: 1, auditRetentionDays: 30, queueEventDays: 7 },
      });
      const audit = await store.listAudit(W, { limit: 50 });
      const cancel = audit.find((a) => a.action === 'cancel')!;
      expect(cancel.detail).toEqual({
        reason: 'done',
        because: 'you linked yourself to GitHub user (forgotten GitHub login), and …',
        login: '(forgotten GitHub login)',
      });
      expect(audit.find((a) => a.action === 'me.github')!.target).toBe('(forgotten GitHub login)');
      expect(await store.db.query('SELECT * FROM watch_deliveries')).toEqual([]);
      // Nothing left to forget: told so, nothing else happens.
      expect(await people.forget(me)).toEqual({ answer: 'forgotten', had: false });
    });
  });
}

forgetSuite('SQLite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mq-people-'));
  const store = await openStore({
    database: { kind: 'sqlite', path: join(dir, 'db.sqlite') },
    encryptionKeys: [],
  });
  return {
    store,
    close: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

const pg = await pgTestsEnabled('people service on PostgreSQL');
if (pg)
  forgetSuite('PostgreSQL', async () => {
    const db: PgTestDatabase = await createPgTestDatabase();
    const store = await openStore({ database: { kind: 'postgres', url: db.url }, encryptionKeys: [] });
    return {
      store,
      close: async () => {
        await store.close();
        await db.drop();
      },
    };
  });
