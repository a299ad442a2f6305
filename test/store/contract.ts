/**
 * The one contract both store engines must pass. sqlite.test.ts and postgres.test.ts call
 * `storeContract(fixture)`; everything engine-specific lives in the fixture.
 */
import { randomBytes } from 'node:crypto';
import type { Installation } from '@slack/bolt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClaimRepository } from '../../src/digest/claims.ts';
import { ManualRunCooldown } from '../../src/digest/cooldown.ts';
import {
  mergedStays,
  pruneHistory,
  recordTransition,
  transitionsOfPr,
} from '../../src/history/repository.ts';
import { ResubmissionClaims } from '../../src/kicks/repository.ts';
import { createLogger } from '../../src/observability/log.ts';
import { slackInstallationStore } from '../../src/slack/installation-store.ts';
import {
  EncryptionKeyMissingError,
  EncryptionKeyUnknownError,
  keyIdOf,
  SecretError,
  SecretTamperedError,
} from '../../src/store/crypto.ts';
import { migrations as appMigrations } from '../../src/store/migrations/index.ts';
import { openStore } from '../../src/store/open.ts';
import { InvalidStoreInputError } from '../../src/store/trunk-credentials.ts';
import type { DbExecutor, Migration, NewStepWait, OpenStoreOptions, Store } from '../../src/store/types.ts';
import { StepWaitRepository } from '../../src/watch/index.ts';

export type DatabaseOption = OpenStoreOptions['database'];

export interface EngineFixture {
  dialect: 'sqlite' | 'postgres';
  /** A new, empty database (dropped by cleanup). */
  freshDatabase(): Promise<DatabaseOption>;
  /** Every stored byte of that database as text, to search for plaintext secrets. */
  dump(db: DatabaseOption): Promise<string>;
  cleanup(): Promise<void>;
}

const newKey = () => randomBytes(32);
/** A token value that is unmistakable wherever it might leak. */
const secret = (kind: string) => `${kind}-SECRET-${randomBytes(12).toString('hex')}`;

function teamInstall(
  teamId: string,
  s: Record<'bot' | 'botRefresh' | 'user' | 'webhook', string>,
): Installation {
  return {
    team: { id: teamId, name: 'Acme' },
    enterprise: undefined,
    user: { token: s.user, scopes: ['identify'], id: 'UINSTALLER' },
    bot: {
      token: s.bot,
      refreshToken: s.botRefresh,
      expiresAt: 1_900_000_000,
      scopes: ['commands', 'chat:write'],
      id: 'B0001',
      userId: 'UBOT',
    },
    incomingWebhook: {
      url: s.webhook,
      channel: '#eng',
      channelId: 'C0001',
      configurationUrl: 'https://acme.slack.com/x',
    },
    appId: 'A0001',
    tokenType: 'bot',
    isEnterpriseInstall: false,
    authVersion: 'v2',
  };
}

function orgInstall(enterpriseId: string, bot: string): Installation {
  return {
    team: undefined,
    enterprise: { id: enterpriseId, name: 'Acme Grid' },
    user: { token: undefined, scopes: undefined, id: 'UORGADMIN' },
    bot: { token: bot, scopes: ['commands'], id: 'B0002', userId: 'UBOT2' },
    appId: 'A0001',
    tokenType: 'bot',
    isEnterpriseInstall: true,
    enterpriseUrl: 'https://acme-grid.enterprise.slack.com/',
    authVersion: 'v2',
  };
}

export function storeContract(makeFixture: () => Promise<EngineFixture>): void {
  let fx: EngineFixture;
  const open: Store[] = [];
  const logLines: string[] = [];
  const logger = createLogger('trace', { write: (line: string) => void logLines.push(line) });
  /** Every secret value (and key) the suite stores: none may appear in logs or database bytes. */
  const secretsUsed: string[] = [];
  const track = <T extends string>(v: T): T => {
    secretsUsed.push(v);
    return v;
  };
  /** Fresh, tracked secrets for one workspace installation. */
  const installSecrets = () => ({
    bot: track(secret('xoxb')),
    botRefresh: track(secret('xoxe')),
    user: track(secret('xoxp')),
    webhook: track(`https://hooks.slack.test/${secret('hook')}`),
  });
  const trackKey = (k: Buffer) => {
    secretsUsed.push(k.toString('base64'), k.toString('hex'));
    return k;
  };

  let clock = 1_700_000_000_000;
  const now = () => clock;

  async function openOn(database: DatabaseOption, keys: Buffer[], extra?: Migration[]): Promise<Store> {
    const store = await openStore({
      database,
      encryptionKeys: keys,
      logger,
      now,
      ...(extra ? { extraMigrations: extra } : {}),
    });
    open.push(store);
    return store;
  }

  async function close(store: Store) {
    const i = open.indexOf(store);
    if (i >= 0) open.splice(i, 1);
    await store.close();
  }

  /** A fresh database migrated up to migration `before` (not included), `seed` written into it, closed. */
  async function databaseBefore(
    before: number,
    seed: (x: (sql: string, params: Array<string | number>) => Promise<number>) => Promise<void>,
  ): Promise<DatabaseOption> {
    const database = await fx.freshDatabase();
    const { migrate } = await import('../../src/store/migrate.ts');
    const engine =
      database.kind === 'sqlite'
        ? (await import('../../src/store/db-sqlite.ts')).openSqliteDb(database.path)
        : (await import('../../src/store/db-postgres.ts')).openPostgresDb(database.url);
    try {
      await migrate(
        engine,
        appMigrations.filter((m) => m.id < before),
      );
      await seed((sql, params) => engine.execute(sql, params));
    } finally {
      await engine.close();
    }
    return database;
  }

  // One database shared by the tests that do not care about others' rows (each uses its own workspace ids).
  let shared: DatabaseOption;
  let key: Buffer;
  let store: Store;

  beforeAll(async () => {
    fx = await makeFixture();
    shared = await fx.freshDatabase();
    key = trackKey(newKey());
    store = await openOn(shared, [key]);
  });

  afterAll(async () => {
    for (const s of open.splice(0)) await s.close().catch(() => undefined);
    await fx?.cleanup();
  });

  describe('migrations', () => {
    it('applies every migration once and reports ready', async () => {
      const r = await store.ready();
      expect(r).toEqual({ ok: true, schemaVersion: appMigrations.at(-1)!.id });
      const again = await openOn(shared, [key]);
      const rows = await again.db.query<{ id: number; n: number }>(
        'SELECT id, COUNT(*) AS n FROM schema_migrations GROUP BY id ORDER BY id',
      );
      expect(rows.map((r) => [Number(r.id), Number(r.n)])).toEqual(appMigrations.map((m) => [m.id, 1]));
      await close(again);
    });

    it('several stores opening one fresh database at once apply each migration exactly once', async () => {
      const db = await fx.freshDatabase();
      // Not idempotent on purpose: a second application would fail (duplicate table) or add a second row.
      const probe: Migration = {
        id: 1000,
        name: 'probe',
        sqlite: 'CREATE TABLE probe (n INTEGER NOT NULL); INSERT INTO probe (n) VALUES (1);',
        postgres: 'CREATE TABLE probe (n INTEGER NOT NULL); INSERT INTO probe (n) VALUES (1);',
      };
      const stores = await Promise.all(Array.from({ length: 5 }, () => openOn(db, [], [probe])));
      const applied = logLines
        .map((l) => JSON.parse(l) as { msg: string; migration?: number })
        .filter((l) => l.msg === 'store migration applied' && l.migration === 1000);
      expect(applied).toHaveLength(1);
      const [first] = stores;
      expect(await first!.db.query('SELECT n FROM probe')).toEqual([{ n: 1 }]);
      const ids = await first!.db.query<{ id: number }>('SELECT id FROM schema_migrations ORDER BY id');
      expect(ids.map((r) => Number(r.id))).toEqual([...appMigrations.map((m) => m.id), 1000]);
      for (const s of stores) expect((await s.ready()).ok).toBe(true);
      for (const s of stores) await close(s);
    });

    it('refuses a migration list that is out of order', async () => {
      const bad: Migration = { id: 1, name: 'dup', sqlite: 'SELECT 1', postgres: 'SELECT 1' };
      await expect(openOn(shared, [key], [bad])).rejects.toThrow(/out of order/);
    });
  });

  describe('Db seam (portable SQL)', () => {
    it('takes $n placeholders in any order, returns BIGINT as numbers and booleans as 0/1', async () => {
      const db = store.db;
      await db.execute(
        'CREATE TABLE IF NOT EXISTS seam_probe (id TEXT PRIMARY KEY, at BIGINT NOT NULL, flag INTEGER NOT NULL, note TEXT)',
      );
      const at = 1_763_700_000_123;
      expect(
        await db.execute(
          "INSERT INTO seam_probe (note, flag, at, id) VALUES ('costs $1 -- not a param', $3, $2, $1)",
          ['a', at, true],
        ),
      ).toBe(1);
      await db.execute('INSERT INTO seam_probe (id, at, flag) VALUES ($1, $2, $3)', [
        'b',
        BigInt(at) + 1n,
        false,
      ]);
      const rows = await db.query('SELECT id, at, flag, note FROM seam_probe WHERE at >= $1 ORDER BY id', [
        at,
      ]);
      expect(rows).toEqual([
        { id: 'a', at, flag: 1, note: 'costs $1 -- not a param' },
        { id: 'b', at: at + 1, flag: 0, note: null },
      ]);
      const [count] = await db.query<{ n: number }>(
        'SELECT COUNT(*) AS n FROM seam_probe WHERE id = $1 OR id = $1',
        ['a'],
      );
      expect(count!.n).toBe(1);
      const returned = await db.query('UPDATE seam_probe SET flag = $1 WHERE id = $2 RETURNING id, flag', [
        true,
        'b',
      ]);
      expect(returned).toEqual([{ id: 'b', flag: 1 }]);
    });

    it('commits a transaction, and rolls it back entirely when the callback throws', async () => {
      const db = store.db;
      await db.execute('CREATE TABLE IF NOT EXISTS seam_tx (id TEXT PRIMARY KEY)');
      await db.transaction(async (tx) => {
        await tx.execute('INSERT INTO seam_tx (id) VALUES ($1)', ['kept']);
      });
      await expect(
        db.transaction(async (tx) => {
          await tx.execute('INSERT INTO seam_tx (id) VALUES ($1)', ['dropped']);
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      // A constraint failure inside also rolls back what came before it.
      await expect(
        db.transaction(async (tx) => {
          await tx.execute('INSERT INTO seam_tx (id) VALUES ($1)', ['dropped-too']);
          await tx.execute('INSERT INTO seam_tx (id) VALUES ($1)', ['kept']);
        }),
      ).rejects.toThrow();
      expect(await db.query('SELECT id FROM seam_tx ORDER BY id')).toEqual([{ id: 'kept' }]);
      // A statement issued outside while a transaction is open is not swept into its rollback.
      await Promise.all([
        db
          .transaction(async (tx) => {
            await tx.execute('INSERT INTO seam_tx (id) VALUES ($1)', ['t1']);
            await new Promise((r) => setTimeout(r, 20));
            throw new Error('rollback');
          })
          .catch(() => undefined),
        db.execute('INSERT INTO seam_tx (id) VALUES ($1)', ['outside']),
      ]);
      expect(await db.query('SELECT id FROM seam_tx ORDER BY id')).toEqual([
        { id: 'kept' },
        { id: 'outside' },
      ]);
    });
  });

  describe('workspace settings and channel defaults', () => {
    it('keeps the default target, installer and Trunk credentials per workspace', async () => {
      expect(await store.getWorkspace('TSET1')).toBeUndefined();
      await store.setWorkspaceDefaultTarget(
        'TSET1',
        { repo: { host: 'github.com', owner: 'acme', name: 'web' } },
        'U1',
      );
      await store.setInstaller('TSET1', 'UINST');
      expect(await store.getWorkspace('TSET1')).toEqual({
        workspaceId: 'TSET1',
        defaultTarget: { repo: { host: 'github.com', owner: 'acme', name: 'web' } },
        hasTrunkCredentials: false,
        installerUserId: 'UINST',
      });
      const token = track(secret('trunk'));
      clock += 1000;
      await store.setTrunkCredentials('TSET1', { token, orgSlug: 'acme' }, 'UADMIN');
      expect(await store.getWorkspace('TSET1')).toMatchObject({
        hasTrunkCredentials: true,
        trunkOrgSlug: 'acme',
        trunkCredentialsUpdatedBy: 'UADMIN',
        trunkCredentialsUpdatedAt: clock,
        installerUserId: 'UINST',
      });
      expect(await store.getTrunkCredentials('TSET1')).toEqual({ token, orgSlug: 'acme' });
      expect(await store.getTrunkCredentials('TSET2')).toBeUndefined();

      const replaced = track(secret('trunk'));
      await store.setTrunkCredentials('TSET1', { token: replaced, orgSlug: 'acme-2' }, 'UADMIN2');
      expect(await store.getTrunkCredentials('TSET1')).toEqual({ token: replaced, orgSlug: 'acme-2' });

      await store.setWorkspaceDefaultTarget('TSET1', {
        repo: { host: 'gitlab.example.com', owner: 'a', name: 'b' },
        branch: 'release/1.2',
      });
      expect((await store.getWorkspace('TSET1'))?.defaultTarget).toEqual({
        repo: { host: 'gitlab.example.com', owner: 'a', name: 'b' },
        branch: 'release/1.2',
      });
      await store.setWorkspaceDefaultTarget('TSET1', undefined);
      expect((await store.getWorkspace('TSET1'))?.defaultTarget).toBeUndefined();
      expect(await store.getTrunkCredentials('TSET1')).toEqual({ token: replaced, orgSlug: 'acme-2' });
    });

    it('rejects bad Trunk credentials with a message per field and stores nothing', async () => {
      const err = await store
        .setTrunkCredentials('TBAD', { token: 'has space', orgSlug: 'no/slash' }, 'U1')
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InvalidStoreInputError);
      expect((err as InvalidStoreInputError).problems).toHaveLength(2);
      expect((err as Error).message).toMatch(/organization slug/);
      expect((err as Error).message).not.toContain('has space');
      expect(await store.getWorkspace('TBAD')).toBeUndefined();
    });

    it('keeps a Trunk v2 key per workspace, encrypted, replaceable and removable', async () => {
      expect(await store.getTrunkV2Key('TV2KEY')).toBeUndefined();
      const v2Key = track(`trunk_v2_${secret('v2key')}`);
      await store.setTrunkV2Key('TV2KEY', v2Key, 'UADMIN');
      expect(await store.getTrunkV2Key('TV2KEY')).toBe(v2Key);
      expect(await store.getWorkspace('TV2KEY')).toMatchObject({
        hasTrunkV2Key: true,
        hasTrunkCredentials: false,
      });
      const raw = await store.db.query<{ trunk_v2_key: string }>(
        "SELECT trunk_v2_key FROM workspace_settings WHERE workspace_id = 'TV2KEY'",
      );
      expect(raw[0]?.trunk_v2_key.startsWith(`v1.${keyIdOf(key)}.`)).toBe(true);
      const replaced = track(`trunk_v2_${secret('v2key')}`);
      await store.setTrunkV2Key('TV2KEY', replaced, 'UADMIN');
      expect(await store.getTrunkV2Key('TV2KEY')).toBe(replaced);
      // The v1 credentials and the v2 key are independent.
      await store.setTrunkCredentials('TV2KEY', { token: track(secret('trunk')), orgSlug: 'acme' }, 'UADMIN');
      expect(await store.getTrunkV2Key('TV2KEY')).toBe(replaced);
      await store.setTrunkV2Key('TV2KEY', undefined, 'UADMIN');
      expect(await store.getTrunkV2Key('TV2KEY')).toBeUndefined();
      expect((await store.getWorkspace('TV2KEY'))?.hasTrunkV2Key).toBeUndefined();
      expect(await store.getTrunkCredentials('TV2KEY')).toMatchObject({ orgSlug: 'acme' });
    });

    it('keeps several Trunk webhook secrets per workspace, encrypted, replaceable and removable', async () => {
      const whsec = () => track(`whsec_${randomBytes(24).toString('base64')}`);
      expect(await store.getTrunkWebhookSecrets('TWHSEC')).toEqual([]);
      const [a, b] = [whsec(), whsec()];
      await store.setTrunkWebhookSecrets('TWHSEC', [a, b], 'UADMIN');
      expect(await store.getTrunkWebhookSecrets('TWHSEC')).toEqual([a, b]);
      expect((await store.getWorkspace('TWHSEC'))?.hasTrunkWebhookSecrets).toBe(true);
      const raw = await store.db.query<{ trunk_webhook_secrets: string }>(
        "SELECT trunk_webhook_secrets FROM workspace_settings WHERE workspace_id = 'TWHSEC'",
      );
      expect(raw[0]?.trunk_webhook_secrets.startsWith(`v1.${keyIdOf(key)}.`)).toBe(true);
      expect(raw[0]?.trunk_webhook_secrets).not.toContain('whsec_');
      const c = whsec();
      await store.setTrunkWebhookSecrets('TWHSEC', [c], 'UADMIN');
      expect(await store.getTrunkWebhookSecrets('TWHSEC')).toEqual([c]);
      const err = await store
        .setTrunkWebhookSecrets('TWHSEC', ['whsec_not base64!'], 'UADMIN')
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InvalidStoreInputError);
      expect((err as Error).message).not.toContain('not base64');
      expect(await store.getTrunkWebhookSecrets('TWHSEC')).toEqual([c]);
      await store.setTrunkWebhookSecrets('TWHSEC', [], 'UADMIN');
      expect(await store.getTrunkWebhookSecrets('TWHSEC')).toEqual([]);
      expect((await store.getWorkspace('TWHSEC'))?.hasTrunkWebhookSecrets).toBeUndefined();
    });

    it('keeps whether GitHub links unfurl per workspace: off by default, on and off again', async () => {
      expect(await store.getUnfurlGithub('TUNFURL')).toBe(false);
      await store.setUnfurlGithub('TUNFURL', true, 'UADMIN');
      expect(await store.getUnfurlGithub('TUNFURL')).toBe(true);
      expect(await store.getUnfurlGithub('TOTHERWS')).toBe(false);
      // Other settings of the workspace are left alone, and the flag survives them.
      await store.setWorkspaceDefaultTarget(
        'TUNFURL',
        { repo: { host: 'github.com', owner: 'a', name: 'b' } },
        'U1',
      );
      expect(await store.getUnfurlGithub('TUNFURL')).toBe(true);
      await store.setUnfurlGithub('TUNFURL', false, 'UADMIN');
      expect(await store.getUnfurlGithub('TUNFURL')).toBe(false);
      expect((await store.getWorkspace('TUNFURL'))?.defaultTarget?.repo?.name).toBe('b');
    });

    it('refuses a v2 key that is not one, without echoing it, and stores nothing', async () => {
      const err = await store.setTrunkV2Key('TV2BAD', 'a-v1-token-by-mistake', 'U1').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InvalidStoreInputError);
      expect((err as Error).message).toMatch(/trunk_v2_/);
      expect((err as Error).message).not.toContain('a-v1-token-by-mistake');
      expect(await store.getWorkspace('TV2BAD')).toBeUndefined();
    });

    it('keeps channel defaults per workspace and channel, and clears them', async () => {
      expect(await store.getChannelDefault('TCH', 'C1')).toBeUndefined();
      await store.setChannelDefault('TCH', 'C1', { branch: 'develop' });
      await store.setChannelDefault('TCH', 'C2', {
        repo: { host: 'github.com', owner: 'o', name: 'r' },
        branch: 'main',
      });
      await store.setChannelDefault('T0CHOTHER', 'C1', { branch: 'other' });
      expect(await store.getChannelDefault('TCH', 'C1')).toEqual({ branch: 'develop' });
      expect(await store.getChannelDefault('TCH', 'C2')).toEqual({
        repo: { host: 'github.com', owner: 'o', name: 'r' },
        branch: 'main',
      });
      await store.setChannelDefault('TCH', 'C1', { branch: 'next' }, 'U1');
      expect(await store.getChannelDefault('TCH', 'C1')).toEqual({ branch: 'next' });
      await store.setChannelDefault('TCH', 'C1', undefined);
      expect(await store.getChannelDefault('TCH', 'C1')).toBeUndefined();
      expect(await store.getChannelDefault('T0CHOTHER', 'C1')).toEqual({ branch: 'other' });
    });
  });

  describe('operators and audit', () => {
    it('adds, lists and removes operators, reporting duplicates and absences', async () => {
      clock += 10;
      expect(await store.addOperator('TOP', { kind: 'user', id: 'U1', addedBy: 'UA' })).toBe(true);
      clock += 10;
      expect(await store.addOperator('TOP', { kind: 'usergroup', id: 'S1', addedBy: 'UA' })).toBe(true);
      expect(await store.addOperator('TOP', { kind: 'user', id: 'U1', addedBy: 'UB' })).toBe(false);
      expect(await store.addOperator('T0OPOTHER', { kind: 'user', id: 'U9', addedBy: 'UA' })).toBe(true);
      expect(await store.listOperators('TOP')).toEqual([
        { kind: 'user', id: 'U1', addedBy: 'UA', addedAt: clock - 10 },
        { kind: 'usergroup', id: 'S1', addedBy: 'UA', addedAt: clock },
      ]);
      expect(await store.removeOperator('TOP', 'user', 'U1')).toBe(true);
      expect(await store.removeOperator('TOP', 'user', 'U1')).toBe(false);
      expect(await store.removeOperator('TOP', 'user', 'S1')).toBe(false);
      expect((await store.listOperators('TOP')).map((o) => o.id)).toEqual(['S1']);
    });

    it('appends audit entries and lists them newest first, by target, with a limit', async () => {
      for (let i = 0; i < 5; i++) {
        await store.appendAudit({
          workspaceId: 'TAUD',
          userId: `U${i}`,
          action: i % 2 ? 'pause' : 'resume',
          target: i % 2 ? 'github.com/acme/web:main' : 'github.com/acme/api:main',
          outcome: i === 4 ? 'refused' : 'ok',
          detail: { reason: `r${i}`, nested: { before: 'running', after: 'paused' } },
          at: 1_000 + i,
        });
      }
      await store.appendAudit({
        workspaceId: 'T0AUOTHER',
        userId: 'U0AUDIT01',
        action: 'x',
        target: '',
        outcome: 'ok',
        detail: {},
      });
      const all = await store.listAudit('TAUD');
      expect(all.map((e) => e.userId)).toEqual(['U4', 'U3', 'U2', 'U1', 'U0']);
      expect(all[0]).toMatchObject({
        workspaceId: 'TAUD',
        action: 'resume',
        outcome: 'refused',
        target: 'github.com/acme/api:main',
        detail: { reason: 'r4', nested: { before: 'running', after: 'paused' } },
        at: 1_004,
      });
      expect(typeof all[0]!.id).toBe('number');
      expect(
        (await store.listAudit('TAUD', { target: 'github.com/acme/web:main' })).map((e) => e.userId),
      ).toEqual(['U3', 'U1']);
      expect((await store.listAudit('TAUD', { limit: 2 })).map((e) => e.userId)).toEqual(['U4', 'U3']);
    });

    it('counts repeated refusals of one person and action into one row within the hour; prunes by last seen', async () => {
      // Its own database: pruning is global.
      const own = await openOn(await fx.freshDatabase(), [key]);
      const refusal = (userId: string, action: string, at: number) =>
        own.appendAudit({
          workspaceId: 'TAUD3',
          userId,
          action,
          target: 'x',
          outcome: 'refused',
          detail: {},
          at,
        });
      const t0 = 5_000_000;
      for (let i = 0; i < 10; i++) await refusal('U1', 'pause', t0 + i * 60_000);
      await refusal('U2', 'pause', t0);
      await refusal('U1', 'drain', t0);
      // More than an hour after the last one: a new row.
      await refusal('U1', 'pause', t0 + 9 * 60_000 + 61 * 60_000);
      const rows = await own.listAudit('TAUD3');
      const u1Pause = rows.filter((r) => r.userId === 'U1' && r.action === 'pause');
      expect(u1Pause.map((r) => r.count)).toEqual([1, 10]);
      expect(u1Pause[1]).toMatchObject({ at: t0, lastAt: t0 + 9 * 60_000 });
      expect(rows).toHaveLength(4);
      // Pruning goes by when a row was last seen, so the counted row outlives its first time.
      expect(await own.pruneAudit(t0 + 60_000)).toBe(2);
      expect((await own.listAudit('TAUD3')).map((r) => r.count)).toEqual([1, 10]);
      await close(own);
    });

    it('redacts secret-named keys that slip into audit details', async () => {
      const leaked = track(secret('audit'));
      await store.appendAudit({
        workspaceId: 'TAUD2',
        userId: 'U1',
        action: 'connect',
        target: '',
        outcome: 'ok',
        detail: { orgSlug: 'acme', token: leaked, nested: { apiToken: leaked } },
      });
      const [entry] = await store.listAudit('TAUD2');
      expect(entry!.detail).toEqual({
        orgSlug: 'acme',
        token: '[redacted]',
        nested: { apiToken: '[redacted]' },
      });
    });
  });

  describe('claimOnce', () => {
    it('claims once until the claim expires, then again', async () => {
      expect(await store.claimOnce('k-expiry', 1000)).toBe(true);
      expect(await store.claimOnce('k-expiry', 1000)).toBe(false);
      clock += 999;
      expect(await store.claimOnce('k-expiry', 1000)).toBe(false);
      clock += 1;
      expect(await store.claimOnce('k-expiry', 1000)).toBe(true);
      expect(await store.claimOnce('k-expiry', 1000)).toBe(false);
      await expect(store.claimOnce('k-bad', 0)).rejects.toThrow(/positive ttlMs/);
    });

    it('releaseClaim makes the key claimable again at once (a failed click can be retried)', async () => {
      expect(await store.claimOnce('k-release', 30_000)).toBe(true);
      await store.releaseClaim('k-release');
      expect(await store.claimOnce('k-release', 30_000)).toBe(true);
      expect(await store.claimOnce('k-release', 30_000)).toBe(false);
      await store.releaseClaim('k-never-claimed');
    });

    it('claims asked for together (one loop turn, several statements on SQLite) each go to their first asker', async () => {
      expect(await store.claimOnce('turn-old', 1000)).toBe(true);
      clock += 1000;
      const keys = Array.from({ length: 150 }, (_, i) => `turn-${i}`);
      const asked = [...keys, 'turn-old', ...keys];
      const results = await Promise.all(asked.map((k) => store.claimOnce(k, 60_000)));
      // The first ask of each key wins (the expired one is taken over); the second loses.
      expect(results).toEqual([...keys.map(() => true), true, ...keys.map(() => false)]);
      expect(await store.claimOnce('turn-7', 60_000)).toBe(false);
      expect(await store.claimOnce('turn-old', 60_000)).toBe(false);
    });

    it('gives each key to exactly one of two store instances racing on one database', async () => {
      const other = await openOn(shared, [key]);
      const keys = Array.from({ length: 25 }, (_, i) => `race-${i}`);
      const results = await Promise.all(
        keys.flatMap((k) => [
          store.claimOnce(k, 60_000),
          other.claimOnce(k, 60_000),
          other.claimOnce(k, 60_000),
        ]),
      );
      for (let i = 0; i < keys.length; i++) {
        expect(results.slice(i * 3, i * 3 + 3).filter(Boolean)).toHaveLength(1);
      }
      // The claim made through one instance is visible to the other.
      expect(await store.claimOnce('cross', 60_000)).toBe(true);
      expect(await other.claimOnce('cross', 60_000)).toBe(false);
      await close(other);
    });
  });

  describe('leases (migration 009): the one claim protocol', () => {
    const T = 1_800_000_000_000;
    let n = 0;
    /** A fresh lease id per test, in the shared database. */
    const fresh = () => ({ kind: 'contract', key: `work|${++n}` });

    it('claim: the first holder acquires at fence 1; a second holder is refused while it is live', async () => {
      const id = fresh();
      const a = await store.leases.claim({ ...id, holder: 'A', ttlMs: 1000, now: T, workspaceId: 'TL' });
      expect(a).toMatchObject({ acquired: true, fence: 1, attempts: 1, takenOver: false });
      const b = await store.leases.claim({ ...id, holder: 'B', ttlMs: 1000, now: T + 999 });
      expect(b.acquired).toBe(false);
      expect(b.lease).toMatchObject({
        holder: 'A',
        fence: 1,
        state: 'held',
        expiresAt: T + 1000,
        workspaceId: 'TL',
      });
      // Claiming again as the holder is refused too (one holding at a time), unless it asks to renew:
      // then the same holding goes on, with the same fence.
      expect((await store.leases.claim({ ...id, holder: 'A', ttlMs: 1000, now: T + 500 })).acquired).toBe(
        false,
      );
      expect(
        await store.leases.claim({ ...id, holder: 'A', ttlMs: 1000, now: T + 500, mode: 'renew' }),
      ).toMatchObject({
        acquired: true,
        fence: 1,
        takenOver: false,
      });
      expect((await store.leases.get(id))?.expiresAt).toBe(T + 1500);
      await expect(store.leases.claim({ ...id, holder: 'A', ttlMs: 0, now: T })).rejects.toThrow(
        /positive ttlMs/,
      );
    });

    it('contention: of many claims racing through two store instances, exactly one wins each lease', async () => {
      const other = await openOn(shared, [key]);
      const ids = Array.from({ length: 10 }, fresh);
      const results = await Promise.all(
        ids.flatMap((id) =>
          ['A', 'B', 'C', 'D'].map((holder, i) =>
            (i % 2 ? other : store).leases.claim({ ...id, holder, ttlMs: 60_000, now: T }),
          ),
        ),
      );
      for (let i = 0; i < ids.length; i++)
        expect(results.slice(i * 4, i * 4 + 4).filter((r) => r.acquired)).toHaveLength(1);
      await close(other);
    });

    it('heartbeat extends only the holder’s lease', async () => {
      const id = fresh();
      await store.leases.claim({ ...id, holder: 'A', ttlMs: 1000, now: T });
      expect(await store.leases.heartbeat({ ...id, holder: 'A', expiresAt: T + 5000 })).toBe(true);
      expect(await store.leases.heartbeat({ ...id, holder: 'B', expiresAt: T + 9000 })).toBe(false);
      expect(await store.leases.heartbeat({ ...id, holder: 'A', fence: 1 })).toBe(true);
      expect((await store.leases.get(id))?.expiresAt).toBe(T + 5000);
      // Still live at its expiry instant; another holder takes it 1 ms later.
      expect((await store.leases.claim({ ...id, holder: 'B', ttlMs: 1000, now: T + 5000 })).acquired).toBe(
        false,
      );
      expect((await store.leases.claim({ ...id, holder: 'B', ttlMs: 1000, now: T + 5001 })).acquired).toBe(
        true,
      );
    });

    it('takeover after expiry: a new fence, one more attempt, and the stalled holder’s late writes are refused', async () => {
      const id = fresh();
      await store.leases.claim({ ...id, holder: 'A', ttlMs: 1000, now: T });
      const b = await store.leases.claim({ ...id, holder: 'B', ttlMs: 1000, now: T + 1001 });
      expect(b).toMatchObject({ acquired: true, fence: 2, attempts: 2, takenOver: true });
      expect(b.acquired && b.lease).toMatchObject({ holder: 'B', state: 'held', expiresAt: T + 2001 });
      // A wakes up: every write it tries is refused, and changes nothing.
      expect(await store.leases.heartbeat({ ...id, holder: 'A', expiresAt: T + 9999 })).toBe(false);
      expect(await store.leases.finish({ ...id, holder: 'A', now: T + 1002, result: 'late' })).toBe(false);
      expect(await store.leases.release({ ...id, holder: 'A' })).toBe(false);
      expect(await store.leases.get(id)).toMatchObject({
        holder: 'B',
        fence: 2,
        state: 'held',
        expiresAt: T + 2001,
      });
    });

    it('fencing: a holder that re-acquired refuses writes carrying its older fence', async () => {
      const id = fresh();
      await store.leases.claim({ ...id, holder: 'A', ttlMs: 1000, now: T });
      expect(await store.leases.release({ ...id, holder: 'A', fence: 1 })).toBe(true);
      const again = await store.leases.claim({ ...id, holder: 'A', ttlMs: 1000, now: T + 1 });
      expect(again).toMatchObject({ acquired: true, fence: 2, takenOver: true });
      expect(await store.leases.heartbeat({ ...id, holder: 'A', fence: 1, expiresAt: T + 5000 })).toBe(false);
      expect(await store.leases.finish({ ...id, holder: 'A', fence: 1, now: T + 2 })).toBe(false);
      expect(await store.leases.heartbeat({ ...id, holder: 'A', fence: 2, expiresAt: T + 5000 })).toBe(true);
    });

    it('a fenced write and its caller’s own write commit together or not at all', async () => {
      const id = fresh();
      await store.leases.claim({ ...id, holder: 'A', ttlMs: 1000, now: T });
      await store.leases.claim({ ...id, holder: 'B', ttlMs: 1000, now: T + 2000 });
      const wrote = await store.db
        .transaction(async (tx) => {
          if (!(await store.leases.heartbeat({ ...id, holder: 'A' }, tx))) throw new Error('fenced off');
          await tx.execute(
            'INSERT INTO idempotency_claims (claim_key, claimed_at, expires_at) VALUES ($1, 0, 0)',
            [`late-${id.key}`],
          );
          return true;
        })
        .catch(() => false);
      expect(wrote).toBe(false);
      expect(
        await store.db.query('SELECT claim_key FROM idempotency_claims WHERE claim_key = $1', [
          `late-${id.key}`,
        ]),
      ).toEqual([]);
    });

    it('together: the lease step and the record write are kept both or neither', async () => {
      const id = fresh();
      const record = (key: string) => (tx: DbExecutor) =>
        tx.execute(
          'INSERT INTO idempotency_claims (claim_key, claimed_at, expires_at) VALUES ($1, 0, 0) ON CONFLICT (claim_key) DO NOTHING',
          [key],
        );
      const claimAs = (holder: string) => async (tx: DbExecutor) => {
        const c = await store.leases.claim({ ...id, holder, ttlMs: 1000, now: T, mode: 'new' }, tx);
        return c.acquired ? c : undefined;
      };
      // The record write changes nothing (its row exists): the claim is undone.
      await record(`rec-${id.key}`)(store.db);
      expect(await store.leases.together(claimAs('A'), record(`rec-${id.key}`))).toBeUndefined();
      expect(await store.leases.get(id)).toBeUndefined();
      // Both happen.
      expect(await store.leases.together(claimAs('A'), record(`rec2-${id.key}`))).toMatchObject({ fence: 1 });
      // The lease step is refused: the record is not written.
      expect(await store.leases.together(claimAs('B'), record(`rec3-${id.key}`))).toBeUndefined();
      const rows = await store.db.query('SELECT claim_key FROM idempotency_claims WHERE claim_key = $1', [
        `rec3-${id.key}`,
      ]);
      expect(rows).toEqual([]);
    });

    it('takeOver is a compare-and-set on the lease as seen: one of two racing replicas wins', async () => {
      const id = fresh();
      await store.leases.claim({ ...id, holder: 'A', ttlMs: 1000, now: T });
      const [seen] = (await store.leases.available({ kind: id.kind, now: T + 1001, limit: 1000 })).filter(
        (l) => l.key === id.key,
      );
      expect(seen).toMatchObject({ holder: 'A', fence: 1, expiresAt: T + 1000 });
      const wins = await Promise.all(
        ['B', 'C'].map((holder) =>
          store.leases.takeOver({
            ...id,
            holder,
            expiresAt: T + 9000,
            seen: { fence: 1, expiresAt: T + 1000 },
          }),
        ),
      );
      expect(wins.filter((f) => f === 2)).toHaveLength(1);
      expect(wins.filter((f) => f === undefined)).toHaveLength(1);
      // `new` claims never take anything over, even a lapsed lease.
      const lapsed = await store.leases.claim({ ...id, holder: 'D', ttlMs: 1, now: T + 99_999, mode: 'new' });
      expect(lapsed.acquired).toBe(false);
    });

    it('finish records a result; a finished lease is never taken again, nor listed as available', async () => {
      const id = fresh();
      await store.leases.claim({ ...id, holder: 'A', ttlMs: 1000, now: T });
      expect(await store.leases.finish({ ...id, holder: 'A', now: T + 10, result: '{"pages":3}' })).toBe(
        true,
      );
      expect(await store.leases.get(id)).toMatchObject({
        state: 'finished',
        result: '{"pages":3}',
        finishedAt: T + 10,
      });
      const later = await store.leases.claim({ ...id, holder: 'B', ttlMs: 1000, now: T + 99_999 });
      expect(later).toMatchObject({ acquired: false, lease: { state: 'finished', result: '{"pages":3}' } });
      expect(await store.leases.heartbeat({ ...id, holder: 'A' })).toBe(false);
      const avail = await store.leases.available({ kind: id.kind, now: T + 99_999, limit: 1000 });
      expect(avail.map((l) => l.key)).not.toContain(id.key);
    });

    it('release: free to take from the time given (at once by default)', async () => {
      const id = fresh();
      await store.leases.claim({ ...id, holder: 'A', ttlMs: 60_000, now: T });
      expect(await store.leases.release({ ...id, holder: 'A', availableAt: T + 500 })).toBe(true);
      const keysAt = async (now: number) =>
        (await store.leases.available({ kind: id.kind, now, limit: 1000 })).map((l) => l.key);
      expect(await keysAt(T + 499)).not.toContain(id.key);
      expect(await keysAt(T + 500)).toContain(id.key);
      expect((await store.leases.claim({ ...id, holder: 'B', ttlMs: 1000, now: T + 499 })).acquired).toBe(
        false,
      );
      expect(await store.leases.claim({ ...id, holder: 'B', ttlMs: 1000, now: T + 500 })).toMatchObject({
        acquired: true,
        fence: 2,
        attempts: 2,
      });
    });

    it('abandon closes a lapsed lease whose work is gone, and never one its holder still renews', async () => {
      const id = fresh();
      await store.leases.claim({ ...id, holder: 'A', ttlMs: 1000, now: T });
      const [seen] = (await store.leases.available({ kind: id.kind, now: T + 2000, limit: 1000 })).filter(
        (l) => l.key === id.key,
      );
      // A renewed meanwhile: the lease as seen is gone, nothing changes.
      await store.leases.heartbeat({ ...id, holder: 'A', expiresAt: T + 3000 });
      expect(await store.leases.abandon(seen!, T + 2000)).toBe(false);
      expect(await store.leases.get(id)).toMatchObject({ holder: 'A', state: 'held' });
      const [lapsed] = (await store.leases.available({ kind: id.kind, now: T + 3001, limit: 1000 })).filter(
        (l) => l.key === id.key,
      );
      expect(await store.leases.abandon(lapsed!, T + 3001)).toBe(true);
      expect(await store.leases.get(id)).toMatchObject({ state: 'finished', result: 'abandoned' });
      const after = await store.leases.available({ kind: id.kind, now: T + 9999, limit: 1000 });
      expect(after.map((l) => l.key)).not.toContain(id.key);
    });

    it('prune forgets old leases nobody holds, and keeps live ones, ones still due, and other kinds', async () => {
      const db = await fx.freshDatabase();
      const st = await openOn(db, [key]);
      const claim = (kind: string, k: string, now: number, ttlMs = 1000) =>
        st.leases.claim({ kind, key: k, holder: 'A', ttlMs, now });
      await claim('p', 'finished-old', T);
      await st.leases.finish({ kind: 'p', key: 'finished-old', holder: 'A', now: T + 1 });
      await claim('p', 'lapsed-old', T);
      await claim('p', 'live-old', T, 10_000_000);
      await claim('p', 'released-due-later', T);
      await st.leases.release({
        kind: 'p',
        key: 'released-due-later',
        holder: 'A',
        availableAt: T + 100_000,
      });
      await claim('p', 'released-old', T);
      await st.leases.release({ kind: 'p', key: 'released-old', holder: 'A' });
      await claim('p', 'finished-new', T + 5000);
      await st.leases.finish({ kind: 'p', key: 'finished-new', holder: 'A', now: T + 5001 });
      await claim('q', 'finished-old', T);
      await st.leases.finish({ kind: 'q', key: 'finished-old', holder: 'A', now: T + 1 });
      expect(await st.leases.prune({ kind: 'p', before: T + 4000 })).toBe(3);
      const left = await st.db.query<{ kind: string; lease_key: string }>(
        'SELECT kind, lease_key FROM leases ORDER BY kind, lease_key',
      );
      expect(left).toEqual([
        { kind: 'p', lease_key: 'finished-new' },
        { kind: 'p', lease_key: 'live-old' },
        { kind: 'p', lease_key: 'released-due-later' },
        { kind: 'q', lease_key: 'finished-old' },
      ]);
      await st.deleteWorkspace('');
      expect(await st.db.query('SELECT kind FROM leases')).toEqual([]);
      await close(st);
    });

    it('migration 009 converts the claim rows of earlier releases in place', async () => {
      const database = await databaseBefore(9, async (x) => {
        // A digest being posted (and one finished), a freeze start waiting to retry, a watched queue's
        // poller, a delivery in flight (and one sent), a shared collection under way (and one done).
        await x(
          `INSERT INTO digest_runs (subscription_id, scheduled_at, workspace_id, status, owner, lease_until, attempts, posted_count, claimed_at)
         VALUES ('d1', $1, 'TM', 'running', 'r1', $2, 2, 1, $1), ('d2', $1, 'TM', 'done', 'r1', $1, 1, 3, $1)`,
          [T, T + 60_000],
        );
        await x(
          `INSERT INTO freeze_claims (window_id, occurrence_start, phase, workspace_id, target, occurrence_end, window_json, status, owner, lease_until, attempts, claimed_at)
         VALUES ('f1', $1, 'start', 'TM', 'github.com/a/b:main', $2, '{}', 'retrying', 'r2', $3, 1, $1)`,
          [T, T + 3_600_000, T + 30_000],
        );
        await x(
          `INSERT INTO watch_leases (workspace_id, queue_key, owner, lease_until) VALUES ('TM', 'q1', 'r3', $1)`,
          [T + 10_000],
        );
        await x(
          `INSERT INTO watch_deliveries (event_id, destination, workspace_id, status, owner, lease_until, attempts)
         VALUES ('e1', 'channel:C1', 'TM', 'claimed', 'r3', $1, 1), ('e1', 'user:U1', 'TM', 'sent', 'r3', $1, 1)`,
          [T + 10_000],
        );
        await x(
          `INSERT INTO digest_collections (workspace_id, kind, source, scheduled_at, status, owner, lease_until, generation, pages, created_at, finished_at)
         VALUES ('TM', 'failing', 'acme/github.com/a/b', $1, 'collecting', 'r1', $2, 2, 1, $1, NULL),
                ('TM', 'failing', 'acme/github.com/a/done', $1, 'done', 'r1', $1, 1, 4, $1, $1)`,
          [T, T + 5_000],
        );
      });
      const st = await openOn(database, [key]);
      const rows = await st.db.query('SELECT kind, lease_key FROM leases ORDER BY kind, lease_key');
      expect(rows).toEqual([
        { kind: 'digest.collection', lease_key: `TM|failing|${T}|acme/github.com/a/b` },
        { kind: 'digest.run', lease_key: `d1|${T}` },
        { kind: 'freeze.phase', lease_key: `f1|${T}|start` },
        { kind: 'watch.delivery', lease_key: 'e1|channel:C1' },
        { kind: 'watch.poll', lease_key: 'TM|q1' },
      ]);
      expect(await st.leases.get({ kind: 'digest.run', key: `d1|${T}` })).toMatchObject({
        holder: 'r1',
        state: 'held',
        expiresAt: T + 60_000,
        attempts: 2,
        fence: 2,
        workspaceId: 'TM',
      });
      expect(await st.leases.get({ kind: 'freeze.phase', key: `f1|${T}|start` })).toMatchObject({
        holder: 'r2',
        state: 'released',
        expiresAt: T + 30_000,
      });
      expect(await st.leases.get({ kind: 'watch.poll', key: 'TM|q1' })).toMatchObject({
        holder: 'r3',
        state: 'held',
        expiresAt: T + 10_000,
      });
      expect(
        await st.leases.get({ kind: 'digest.collection', key: `TM|failing|${T}|acme/github.com/a/b` }),
      ).toMatchObject({
        holder: 'r1',
        state: 'held',
        fence: 2,
        expiresAt: T + 5_000,
      });
      // The converted lease works as any other: its holder renews it, and it is taken over once lapsed.
      expect(
        await st.leases.heartbeat({ kind: 'watch.poll', key: 'TM|q1', holder: 'r3', expiresAt: T + 20_000 }),
      ).toBe(true);
      expect(
        await st.leases.claim({
          kind: 'digest.run',
          key: `d1|${T}`,
          holder: 'r9',
          ttlMs: 1000,
          now: T + 60_001,
        }),
      ).toMatchObject({ acquired: true, fence: 3, attempts: 3, takenOver: true });
      await st.deleteWorkspace('TM');
      expect(await st.db.query('SELECT kind FROM leases')).toEqual([]);
      await close(st);
    });
    it('migration 018 drops lease_until and watch_leases, keeping the rows and giving lease-less work a lease', async () => {
      const PLACEHOLDER = Number.MAX_SAFE_INTEGER; // what releases 009 to 016 wrote into lease_until
      const database = await databaseBefore(18, async (x) => {
        // Rows of release 016: a digest run with its lease (claimed by 016) and one without (claimed by an
        // 008 replica after 009 migrated), a finished one; a freeze phase retrying without a lease; a
        // delivery in flight and one sent; a collection under way without a lease; a poller's old row.
        await x(
          `INSERT INTO digest_runs (subscription_id, scheduled_at, workspace_id, status, owner, lease_until, attempts, posted_count, claimed_at)
         VALUES ('r16', $1, 'TN', 'running', 'a', $2, 1, 0, $1), ('r08', $1, 'TN', 'running', 'b', $3, 2, 1, $1),
                ('rdone', $1, 'TN', 'done', 'a', $2, 1, 3, $1)`,
          [T, PLACEHOLDER, T + 60_000],
        );
        await x(
          `INSERT INTO leases (kind, lease_key, workspace_id, holder, fence, state, expires_at, attempts, created_at)
         VALUES ('digest.run', $1, 'TN', 'a', 1, 'held', $2, 1, $3)`,
          [`r16|${T}`, T + 30_000, T],
        );
        await x(
          `INSERT INTO freeze_claims (window_id, occurrence_start, phase, workspace_id, target, occurrence_end, window_json, status, owner, lease_until, attempts, claimed_at)
         VALUES ('f8', $1, 'end', 'TN', 'github.com/a/b:main', $2, '{}', 'retrying', 'c', $3, 2, $1)`,
          [T, T + 3_600_000, T + 45_000],
        );
        await x(
          `INSERT INTO watch_deliveries (event_id, destination, workspace_id, status, owner, lease_until, attempts)
         VALUES ('e8', 'channel:C1', 'TN', 'claimed', 'd', $1, 1), ('e8', 'user:U1', 'TN', 'sent', 'd', $2, 1)`,
          [T + 10_000, PLACEHOLDER],
        );
        await x(
          `INSERT INTO digest_collections (workspace_id, kind, source, scheduled_at, status, owner, lease_until, generation, pages, created_at)
         VALUES ('TN', 'failing', 'acme/github.com/a/b', $1, 'collecting', 'e', $2, 3, 1, $1)`,
          [T, T + 5_000],
        );
        await x(
          `INSERT INTO watch_leases (workspace_id, queue_key, owner, lease_until) VALUES ('TN', 'q', 'f', $1)`,
          [T],
        );
      });
      const st = await openOn(database, [key]);
      expect((await st.ready()).schemaVersion).toBeGreaterThanOrEqual(18);
      // The columns and the table are gone.
      for (const table of ['digest_runs', 'freeze_claims', 'watch_deliveries', 'digest_collections'])
        await expect(st.db.query(`SELECT lease_until FROM ${table}`)).rejects.toThrow();
      await expect(st.db.query('SELECT * FROM watch_leases')).rejects.toThrow();
      // Every row is kept.
      expect(
        (
          await st.db.query('SELECT subscription_id, status, owner FROM digest_runs ORDER BY subscription_id')
        ).map((r) => [r['subscription_id'], r['status'], r['owner']]),
      ).toEqual([
        ['r08', 'running', 'b'],
        ['r16', 'running', 'a'],
        ['rdone', 'done', 'a'],
      ]);
      expect(
        await st.db.query("SELECT status FROM watch_deliveries WHERE event_id = 'e8' ORDER BY destination"),
      ).toEqual([{ status: 'claimed' }, { status: 'sent' }]);
      // Work in progress without a lease got one from its lease_until; a lease already there is untouched.
      const leases = await st.db.query('SELECT kind, lease_key FROM leases ORDER BY kind, lease_key');
      expect(leases).toEqual([
        { kind: 'digest.collection', lease_key: `TN|failing|${T}|acme/github.com/a/b` },
        { kind: 'digest.run', lease_key: `r08|${T}` },
        { kind: 'digest.run', lease_key: `r16|${T}` },
        { kind: 'freeze.phase', lease_key: `f8|${T}|end` },
        { kind: 'watch.delivery', lease_key: 'e8|channel:C1' },
      ]);
      expect(await st.leases.get({ kind: 'digest.run', key: `r08|${T}` })).toMatchObject({
        holder: 'b',
        state: 'held',
        expiresAt: T + 60_000,
        attempts: 2,
        fence: 2,
      });
      expect(await st.leases.get({ kind: 'digest.run', key: `r16|${T}` })).toMatchObject({
        holder: 'a',
        expiresAt: T + 30_000,
        fence: 1,
      });
      expect(await st.leases.get({ kind: 'freeze.phase', key: `f8|${T}|end` })).toMatchObject({
        holder: 'c',
        state: 'released',
        expiresAt: T + 45_000,
      });
      expect(
        await st.leases.get({ kind: 'digest.collection', key: `TN|failing|${T}|acme/github.com/a/b` }),
      ).toMatchObject({ holder: 'e', fence: 3, expiresAt: T + 5_000 });
      // The records read and work through the claim rows as any other: the lapsed run is taken over.
      const runs = new ClaimRepository(st);
      const r08 = await runs.get({ subscriptionId: 'r08', scheduledAt: T });
      expect(r08).toMatchObject({
        owner: 'b',
        attempts: 2,
        fence: 2,
        leaseUntil: T + 60_000,
        postedCount: 1,
      });
      expect(await runs.get({ subscriptionId: 'rdone', scheduledAt: T })).toMatchObject({
        status: 'done',
        owner: 'a',
      });
      expect(await runs.takeOver(r08!, 'g', T + 120_000)).toBe(true);
      expect(await runs.get({ subscriptionId: 'r08', scheduledAt: T })).toMatchObject({
        owner: 'g',
        attempts: 3,
      });
      // New claims insert without the column; deleting the workspace no longer names watch_leases.
      expect(
        await runs.claim(
          { subscriptionId: 'r18', scheduledAt: T, workspaceId: 'TN', manual: false, late: false },
          'h',
          T,
          1000,
        ),
      ).toBe(true);
      await st.deleteWorkspace('TN');
      expect(await st.db.query('SELECT kind FROM leases')).toEqual([]);
      expect(await st.db.query('SELECT subscription_id FROM digest_runs')).toEqual([]);
      await close(st);
    });
    it('migration 022 drops claimed_until, giving the autopilot claims in flight a lease', async () => {
      const Q = 'github.com/a/b:main';
      const R = 'github.com/a/b:rel|1'; // a branch name may hold `|`
      const database = await databaseBefore(22, async (x) => {
        // Rows of release 021: a claim in flight, one released after Trunk failed, one done.
        await x(
          `INSERT INTO autopilot_resubmissions (workspace_id, queue_key, pr_number, head_sha, kick_class, evidence,
             status, owner, claimed_until, attempts, created_at)
           VALUES ('TP', $1, 201, 's1', 'infra', 'timeout', 'claimed', 'a', $3, 1, $4),
                  ('TP', $2, 202, 's2', 'flaky', 'e2e', 'claimed', 'b', 0, 2, $4),
                  ('TP', $1, 203, 's3', 'infra', 'timeout', 'done', 'c', $3, 1, $4)`,
          [Q, R, T + 45_000, T],
        );
      });
      const st = await openOn(database, [key]);
      expect((await st.ready()).schemaVersion).toBeGreaterThanOrEqual(22);
      await expect(st.db.query('SELECT claimed_until FROM autopilot_resubmissions')).rejects.toThrow();
      // The claims still held got a lease from their old expiry; the settled one needs none.
      expect(
        await st.db.query(
          "SELECT lease_key FROM leases WHERE kind = 'autopilot.resubmit' ORDER BY lease_key",
        ),
      ).toEqual([{ lease_key: `${Q}|TP|201|s1` }, { lease_key: `${R}|TP|202|s2` }]);
      expect(await st.leases.get({ kind: 'autopilot.resubmit', key: `${Q}|TP|201|s1` })).toMatchObject({
        holder: 'a',
        state: 'held',
        expiresAt: T + 45_000,
        fence: 1,
        createdAt: T,
      });
      expect(await st.leases.get({ kind: 'autopilot.resubmit', key: `${R}|TP|202|s2` })).toMatchObject({
        holder: 'b',
        state: 'released',
        attempts: 2,
      });
      // They work as claim rows: taken over once the old expiry passed (or at once, released), never settled.
      const claims = new ResubmissionClaims(st);
      const kick = { kickClass: 'infra', evidence: 'timeout' } as const;
      const k = (queueKey: string, prNumber: number) => ({
        workspaceId: 'TP',
        queueKey,
        prNumber,
        headSha: `s${prNumber - 200}`,
      });
      const claim = (queueKey: string, prNumber: number, holder: string, at: number) =>
        claims.claim(k(queueKey, prNumber), kick, holder, at, 45_000);
      expect(await claim(Q, 201, 'x', T + 10_000)).toEqual({ acquired: false, status: 'claimed' });
      expect(await claim(Q, 201, 'x', T + 45_001)).toEqual({ acquired: true, takeover: true, claimedAt: T });
      expect(await claims.get(k(Q, 201))).toMatchObject({ status: 'claimed', attempts: 2 });
      expect(await claim(R, 202, 'y', T + 1)).toMatchObject({ acquired: true, takeover: true });
      expect(await claim(Q, 203, 'z', T + 1)).toEqual({ acquired: false, status: 'done' });
      // A new claim inserts without the column, settles once, and is never claimed again.
      expect(await claim(Q, 204, 'w', T + 2)).toEqual({ acquired: true, takeover: false, claimedAt: T + 2 });
      expect(await claims.finish(k(Q, 204), 'x', 'done', T + 3)).toBe(false);
      expect(await claims.finish(k(Q, 204), 'w', 'done', T + 3, 'answer')).toBe(true);
      expect(await claim(Q, 204, 'x', T + 100_000)).toEqual({ acquired: false, status: 'done' });
      // Listed newest first, as the Home reads them.
      const listed = (await claims.list('TP', undefined, T)).map((r) => [r.prNumber, r.status]);
      expect(listed[0]).toEqual([204, 'done']);
      expect(listed.slice(1).sort()).toEqual([
        [201, 'claimed'],
        [202, 'claimed'],
        [203, 'done'],
      ]);
      await st.deleteWorkspace('TP');
      expect(await st.db.query('SELECT kind FROM leases')).toEqual([]);
      expect(await st.db.query('SELECT pr_number FROM autopilot_resubmissions')).toEqual([]);
      await close(st);
    });

    it('migration 023 keeps the queue history and stays without the age indexes; pruning still cuts by time', async () => {
      const T = 1_764_000_000_000;
      const S = 1000;
      const history = `INSERT INTO queue_history (workspace_id, queue_key, pr_number, state, occurred_at, head_sha,
         priority, no_batch, reason_code, failing_checks, kick_class, kick_evidence, submitted_by, source, recorded_at,
         title, author) VALUES `;
      const database = await databaseBefore(23, async (x) => {
        await x(
          `${history} ('TH', 'q', 1, 'submitted', $1, 'a1', 2, 1, NULL, NULL, NULL, NULL, 'U1', 'webhook', $1, 'Fix', 'ada'),
             ('TH', 'q', 1, 'testing', $2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'poll', $2, NULL, NULL),
             ('TH', 'q', 1, 'failed', $3, 'a1', NULL, NULL, 'TEST_RUN_TIMEOUT', '["e2e"]', 'infra', 'timed out', NULL, 'webhook', $3, NULL, NULL),
             ('TH', 'q', 1, 'submitted', $4, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'readback', $4, NULL, NULL),
             ('TH', 'q', 1, 'testing', $5, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'readback', $5, NULL, NULL),
             ('TH', 'q', 1, 'merged', $6, 'a1', NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'webhook', $6, NULL, NULL),
             ('TI', 'r', 5, 'queued', $1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 'webhook', $1, NULL, NULL)`,
          [T, T + 10 * S, T + 60 * S, T + 70 * S, T + 80 * S, T + 120 * S],
        );
        await x(
          `INSERT INTO queue_stays (workspace_id, queue_key, pr_number, merged_at, entered_at, tested_at)
           VALUES ('TH', 'q', 1, $1, $2, $3)`,
          [T + 120 * S, T + 70 * S, T + 80 * S],
        );
      });
      const st = await openOn(database, [key]);
      const indexes =
        fx.dialect === 'sqlite'
          ? "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'queue_%'"
          : "SELECT indexname AS name FROM pg_indexes WHERE indexname LIKE 'queue_%'";
      const names = (await st.db.query(indexes)).map((r) => String(r['name']));
      expect(names).toContain('queue_history_window');
      expect(names).not.toContain('queue_history_age');
      expect(names).not.toContain('queue_stays_age');
      const pr1 = await transitionsOfPr(st.db, 'TH', 'q', 1);
      expect(pr1.map((r) => [r.state, r.occurredAt - T, r.source])).toEqual([
        ['submitted', 0, 'webhook'],
        ['testing', 10 * S, 'poll'],
        ['failed', 60 * S, 'webhook'],
        ['submitted', 70 * S, 'readback'],
        ['testing', 80 * S, 'readback'],
        ['merged', 120 * S, 'webhook'],
      ]);
      expect(pr1[0]).toMatchObject({
        headSha: 'a1',
        priority: 2,
        noBatch: true,
        submittedBy: 'U1',
        title: 'Fix',
      });
      expect(pr1[2]).toMatchObject({
        reasonCode: 'TEST_RUN_TIMEOUT',
        failingChecks: ['e2e'],
        kickClass: 'infra',
      });
      const stay = { prNumber: 1, enteredAt: T + 70 * S, mergedAt: T + 120 * S, testingMs: 40 * S };
      expect(await mergedStays(st.db, 'TH', 'q', T, T + 200 * S)).toEqual([stay]);
      // Rows are recorded as before, and pruning cuts every workspace's, queue's and state's old rows.
      expect(
        await recordTransition(st.db, {
          workspaceId: 'TH',
          queueKey: 'q',
          prNumber: 2,
          state: 'merged',
          occurredAt: T + 150 * S,
          source: 'webhook',
          recordedAt: T + 150 * S,
        }),
      ).toBe(true);
      expect(await pruneHistory(st.db, T + 65 * S)).toBe(4);
      expect((await transitionsOfPr(st.db, 'TH', 'q', 1)).map((r) => r.state)).toEqual([
        'submitted',
        'testing',
        'merged',
      ]);
      expect(await transitionsOfPr(st.db, 'TI', 'r', 5)).toEqual([]);
      expect(await mergedStays(st.db, 'TH', 'q', T, T + 200 * S)).toEqual([stay]);
      await st.deleteWorkspace('TH');
      expect(await st.db.query('SELECT pr_number FROM queue_stays')).toEqual([]);
      await close(st);
    });
  });

  describe('manual digest run cooldown (migration 003)', () => {
    it('lets one of many racing claims through per window, across store instances, and releases', async () => {
      const other = await openOn(shared, [key]);
      const mine = new ManualRunCooldown(store.db);
      const theirs = new ManualRunCooldown(other.db);
      const sub = { subscriptionId: 'dcool1', workspaceId: 'TCOOL' };
      const t = 1_800_000_000_000;
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) => (i % 2 ? mine : theirs).claim(sub, `U${i}`, t, 300_000)),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      const winner = results.findIndex((r) => r.ok);
      for (const r of results.filter((x) => !x.ok))
        expect(r).toEqual({
          ok: false,
          lastStartedAt: t,
          lastStartedBy: `U${winner}`,
          nextAllowedAt: t + 300_000,
        });
      // Still inside the window 1 ms before it ends; open again once it has passed.
      expect((await mine.claim(sub, 'UX', t + 299_999, 300_000)).ok).toBe(false);
      expect((await theirs.claim(sub, 'UX', t + 300_000, 300_000)).ok).toBe(true);
      // A released claim (the run could not start) does not make the next person wait.
      await mine.release(sub.subscriptionId, t + 300_000);
      expect((await theirs.claim(sub, 'UY', t + 300_001, 300_000)).ok).toBe(true);
      await close(other);
    });
  });

  describe('Slack installations (Bolt InstallationStore)', () => {
    it('round-trips a workspace install, keyed by team id', async () => {
      const inst = teamInstall('TINST1', installSecrets());
      await slackInstallationStore(store.installations).storeInstallation(inst);
      const back = await slackInstallationStore(store.installations).fetchInstallation({
        teamId: 'TINST1',
        enterpriseId: undefined,
        isEnterpriseInstall: false,
      });
      expect(back).toEqual(inst);
      expect((await store.getWorkspace('TINST1'))?.installerUserId).toBe('UINSTALLER');
      // A workspace of an Enterprise Grid without an org-wide install is still keyed by team id.
      await expect(
        slackInstallationStore(store.installations).fetchInstallation({
          teamId: 'TINST1',
          enterpriseId: 'E9',
          isEnterpriseInstall: false,
        }),
      ).resolves.toEqual(inst);
    });

    it('a re-install by someone else keeps the recorded installer; only setInstaller moves it', async () => {
      const first = teamInstall('TREINST', installSecrets());
      await slackInstallationStore(store.installations).storeInstallation(first);
      const again = { ...first, user: { ...first.user, id: 'UNEWCOMER' } };
      await slackInstallationStore(store.installations).storeInstallation(again);
      expect((await store.getWorkspace('TREINST'))?.installerUserId).toBe('UINSTALLER');
      // The new tokens are stored all the same: Slack did authorise this install.
      const back = await slackInstallationStore(store.installations).fetchInstallation({
        teamId: 'TREINST',
        enterpriseId: undefined,
        isEnterpriseInstall: false,
      });
      expect(back.user.id).toBe('UNEWCOMER');
      await store.setInstaller('TREINST', 'UNEWCOMER');
      expect((await store.getWorkspace('TREINST'))?.installerUserId).toBe('UNEWCOMER');
    });

    it('keys org-wide installs by enterprise id', async () => {
      const bot = track(secret('xoxb'));
      const inst = orgInstall('EORG1', bot);
      await slackInstallationStore(store.installations).storeInstallation(inst);
      const back = await slackInstallationStore(store.installations).fetchInstallation({
        teamId: undefined,
        enterpriseId: 'EORG1',
        isEnterpriseInstall: true,
      });
      expect(back).toEqual(inst);
      // A workspace of that org asks with its team id too; the enterprise id decides.
      expect(
        (
          await slackInstallationStore(store.installations).fetchInstallation({
            teamId: 'TX',
            enterpriseId: 'EORG1',
            isEnterpriseInstall: true,
          })
        ).bot?.token,
      ).toBe(bot);
      await expect(
        slackInstallationStore(store.installations).fetchInstallation({
          teamId: 'EORG1',
          enterpriseId: undefined,
          isEnterpriseInstall: false,
        }),
      ).resolves.toBeDefined();
    });

    it('throws when no installation is stored, as Bolt expects', async () => {
      await expect(
        slackInstallationStore(store.installations).fetchInstallation({
          teamId: 'TNONE',
          enterpriseId: undefined,
          isEnterpriseInstall: false,
        }),
      ).rejects.toThrow(/No Slack installation stored for team TNONE/);
      await expect(
        slackInstallationStore(store.installations).fetchInstallation({
          teamId: undefined,
          enterpriseId: 'ENONE',
          isEnterpriseInstall: true,
        }),
      ).rejects.toThrow(/enterprise ENONE/);
    });

    it('stores refreshed tokens the way Bolt token rotation saves them', async () => {
      const s = {
        bot: track(secret('xoxb')),
        botRefresh: track(secret('xoxe')),
        user: track(secret('xoxp')),
        webhook: track(`https://hooks.slack.test/${secret('hook')}`),
      };
      await slackInstallationStore(store.installations).storeInstallation(teamInstall('TROT', s));
      const q = { teamId: 'TROT', enterpriseId: undefined, isEnterpriseInstall: false } as const;
      const fetched = await slackInstallationStore(store.installations).fetchInstallation(q);
      expect(fetched.bot).toMatchObject({ refreshToken: s.botRefresh, expiresAt: 1_900_000_000 });
      // What InstallProvider.authorize does after oauth.v2.access grant_type=refresh_token:
      const updated = { ...fetched };
      const newBot = track(secret('xoxb'));
      const newRefresh = track(secret('xoxe'));
      updated.bot = { ...fetched.bot!, token: newBot, refreshToken: newRefresh, expiresAt: 1_950_000_000 };
      await slackInstallationStore(store.installations).storeInstallation(updated);
      const after = await slackInstallationStore(store.installations).fetchInstallation(q);
      expect(after.bot).toEqual({
        ...fetched.bot,
        token: newBot,
        refreshToken: newRefresh,
        expiresAt: 1_950_000_000,
      });
      expect(after.user).toEqual(fetched.user);
    });

    it('deleteInstallation removes the tokens of that team or enterprise only', async () => {
      await slackInstallationStore(store.installations).storeInstallation(
        orgInstall('EDEL', track(secret('xoxb'))),
      );
      await slackInstallationStore(store.installations).storeInstallation(
        orgInstall('EKEEP', track(secret('xoxb'))),
      );
      await slackInstallationStore(store.installations).deleteInstallation({
        teamId: undefined,
        enterpriseId: 'EDEL',
        isEnterpriseInstall: true,
      });
      await expect(
        slackInstallationStore(store.installations).fetchInstallation({
          teamId: undefined,
          enterpriseId: 'EDEL',
          isEnterpriseInstall: true,
        }),
      ).rejects.toThrow();
      await expect(
        slackInstallationStore(store.installations).fetchInstallation({
          teamId: undefined,
          enterpriseId: 'EKEEP',
          isEnterpriseInstall: true,
        }),
      ).resolves.toBeDefined();
    });
  });

  describe('deleteWorkspace', () => {
    it('removes tokens, credentials, settings, channels, operators and tables of later migrations; keeps audit', async () => {
      const db = await fx.freshDatabase();
      const extra: Migration = {
        id: 2000,
        name: 'digest-like',
        sqlite: 'CREATE TABLE extra_rows (workspace_id TEXT NOT NULL, v TEXT NOT NULL)',
        postgres: 'CREATE TABLE extra_rows (workspace_id TEXT NOT NULL, v TEXT NOT NULL)',
        workspaceTables: ['extra_rows'],
      };
      const st = await openOn(db, [key], [extra]);
      for (const ws of ['TGONE', 'TSTAYS']) {
        await slackInstallationStore(st.installations).storeInstallation(
          teamInstall(ws, {
            bot: track(secret('xoxb')),
            botRefresh: track(secret('xoxe')),
            user: track(secret('xoxp')),
            webhook: track(secret('hook')),
          }),
        );
        await st.setTrunkCredentials(ws, { token: track(secret('trunk')), orgSlug: 'acme' }, 'U1');
        await st.setWorkspaceDefaultTarget(ws, { branch: 'main' });
        await st.setChannelDefault(ws, 'C1', { branch: 'main' });
        await st.addOperator(ws, { kind: 'user', id: 'U1', addedBy: 'U0' });
        await st.appendAudit({
          workspaceId: ws,
          userId: 'U1',
          action: 'pause',
          target: 't',
          outcome: 'ok',
          detail: {},
        });
        await st.db.execute('INSERT INTO extra_rows (workspace_id, v) VALUES ($1, $2)', [ws, 'x']);
      }
      await st.deleteWorkspace('TGONE');

      const q = (ws: string) =>
        ({ teamId: ws, enterpriseId: undefined, isEnterpriseInstall: false }) as const;
      await expect(slackInstallationStore(st.installations).fetchInstallation(q('TGONE'))).rejects.toThrow();
      expect(await st.getWorkspace('TGONE')).toBeUndefined();
      expect(await st.getTrunkCredentials('TGONE')).toBeUndefined();
      expect(await st.getChannelDefault('TGONE', 'C1')).toBeUndefined();
      expect(await st.listOperators('TGONE')).toEqual([]);
      expect(await st.db.query('SELECT v FROM extra_rows WHERE workspace_id = $1', ['TGONE'])).toEqual([]);
      expect(await st.listAudit('TGONE')).toHaveLength(1);

      await expect(
        slackInstallationStore(st.installations).fetchInstallation(q('TSTAYS')),
      ).resolves.toBeDefined();
      expect(await st.getTrunkCredentials('TSTAYS')).toMatchObject({ orgSlug: 'acme' });
      expect(await st.listOperators('TSTAYS')).toHaveLength(1);
      expect(await st.db.query('SELECT v FROM extra_rows WHERE workspace_id = $1', ['TSTAYS'])).toEqual([
        { v: 'x' },
      ]);
      await close(st);
    });
  });

  describe('token revocations', () => {
    it('revokeUserTokens forgets only the named installer user token; deleteBotData keeps settings', async () => {
      const db = await fx.freshDatabase();
      const extra: Migration = {
        id: 2000,
        name: 'digest-like',
        sqlite: 'CREATE TABLE bot_rows (workspace_id TEXT NOT NULL, v TEXT NOT NULL)',
        postgres: 'CREATE TABLE bot_rows (workspace_id TEXT NOT NULL, v TEXT NOT NULL)',
        workspaceTables: ['bot_rows'],
        botTables: ['bot_rows'],
      };
      const st = await openOn(db, [key], [extra]);
      const q = { teamId: 'T0REVOKE1', enterpriseId: undefined, isEnterpriseInstall: false } as const;
      await slackInstallationStore(st.installations).storeInstallation(
        teamInstall('T0REVOKE1', {
          bot: secret('xoxb'),
          botRefresh: secret('xoxe'),
          user: secret('xoxp'),
          webhook: secret('hook'),
        }),
      );
      await st.setTrunkCredentials('T0REVOKE1', { token: secret('trunk'), orgSlug: 'acme' }, 'U1');
      await st.addOperator('T0REVOKE1', { kind: 'user', id: 'U1', addedBy: 'U0' });
      await st.db.execute('INSERT INTO bot_rows (workspace_id, v) VALUES ($1, $2)', ['T0REVOKE1', 'x']);
      expect(await st.installations.botUserId('T0REVOKE1')).toBe('UBOT');

      expect(await st.installations.revokeUserTokens('T0REVOKE1', ['U0SOMEONE'])).toBe(0);
      expect((await slackInstallationStore(st.installations).fetchInstallation(q)).user.token).toBeDefined();
      expect(await st.installations.revokeUserTokens('T0REVOKE1', ['UINSTALLER'])).toBe(1);
      const after = await slackInstallationStore(st.installations).fetchInstallation(q);
      expect(after.user.token).toBeUndefined();
      expect(after.bot?.token).toBeDefined();

      await st.deleteBotData('T0REVOKE1');
      await expect(slackInstallationStore(st.installations).fetchInstallation(q)).rejects.toThrow();
      expect(await st.db.query('SELECT v FROM bot_rows WHERE workspace_id = $1', ['T0REVOKE1'])).toEqual([]);
      expect(await st.getTrunkCredentials('T0REVOKE1')).toMatchObject({ orgSlug: 'acme' });
      expect(await st.listOperators('T0REVOKE1')).toHaveLength(1);
      await close(st);
    });
  });

  describe('without ENCRYPTION_KEY (single-workspace mode)', () => {
    it('opens and keeps non-secret data, and refuses to store a secret, naming ENCRYPTION_KEY', async () => {
      const db = await fx.freshDatabase();
      const st = await openOn(db, []);
      await st.setWorkspaceDefaultTarget('TSINGLE', { branch: 'main' });
      await st.addOperator('TSINGLE', { kind: 'user', id: 'U1', addedBy: 'U0' });
      expect(await st.claimOnce('k', 1000)).toBe(true);
      const token = track(secret('trunk'));
      const err = await st
        .setTrunkCredentials('TSINGLE', { token, orgSlug: 'acme' }, 'U1')
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(EncryptionKeyMissingError);
      expect((err as Error).message).toMatch(/ENCRYPTION_KEY is not set/);
      expect((err as Error).message).not.toContain(token);
      expect(await st.getWorkspace('TSINGLE')).toMatchObject({
        hasTrunkCredentials: false,
        defaultTarget: { branch: 'main' },
      });

      const bot = track(secret('xoxb'));
      await expect(
        slackInstallationStore(st.installations).storeInstallation(orgInstall('ESINGLE', bot)),
      ).rejects.toThrow(/ENCRYPTION_KEY/);
      await expect(
        slackInstallationStore(st.installations).fetchInstallation({
          teamId: undefined,
          enterpriseId: 'ESINGLE',
          isEnterpriseInstall: true,
        }),
      ).rejects.toThrow(/No Slack installation/);
      expect(await st.keyIdsInUse()).toEqual({});
      await close(st);
      // Adding a key later works; from then on the key is needed to start.
      const withKey = await openOn(db, [key]);
      await withKey.setTrunkCredentials('TSINGLE', { token, orgSlug: 'acme' }, 'U1');
      await close(withKey);
      const err2 = await openOn(db, []).catch((e: unknown) => e);
      expect(err2).toBeInstanceOf(EncryptionKeyUnknownError);
      expect((err2 as Error).message).toContain(keyIdOf(key));
      expect((err2 as Error).message).toMatch(/ENCRYPTION_KEY is not set/);
    });
  });

  describe('encryption at rest', () => {
    it('binds each ciphertext to its row and field: a copied value fails to decrypt', async () => {
      const a = track(secret('trunk'));
      await store.setTrunkCredentials('T0AAD000A', { token: a, orgSlug: 'acme' }, 'U1');
      await store.setTrunkCredentials('T0AAD000B', { token: track(secret('trunk')), orgSlug: 'acme' }, 'U1');
      const [rowA] = await store.db.query<{ trunk_token: string }>(
        'SELECT trunk_token FROM workspace_settings WHERE workspace_id = $1',
        ['T0AAD000A'],
      );
      expect(rowA!.trunk_token).toMatch(
        new RegExp(`^v1\\.${keyIdOf(key)}\\.[A-Za-z0-9_-]{16}\\.[A-Za-z0-9_-]+$`),
      );
      await store.db.execute('UPDATE workspace_settings SET trunk_token = $1 WHERE workspace_id = $2', [
        rowA!.trunk_token,
        'T0AAD000B',
      ]);
      const err = await store.getTrunkCredentials('T0AAD000B').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SecretTamperedError);
      expect((err as Error).message).toMatch(/workspace_settings\.trunk_token of workspace T0AAD000B/);
      expect((err as Error).message).not.toContain(a);
      expect(await store.getTrunkCredentials('T0AAD000A')).toEqual({ token: a, orgSlug: 'acme' });

      // Same row, another field: the bot token moved into the user token column.
      await slackInstallationStore(store.installations).storeInstallation(
        teamInstall('T0AAD000C', {
          bot: track(secret('xoxb')),
          botRefresh: track(secret('xoxe')),
          user: track(secret('xoxp')),
          webhook: track(secret('hook')),
        }),
      );
      await store.db.execute(
        'UPDATE slack_installations SET user_token = bot_token WHERE workspace_id = $1',
        ['T0AAD000C'],
      );
      await expect(
        slackInstallationStore(store.installations).fetchInstallation({
          teamId: 'T0AAD000C',
          enterpriseId: undefined,
          isEnterpriseInstall: false,
        }),
      ).rejects.toBeInstanceOf(SecretTamperedError);
    });

    it('fails loudly on a tampered or truncated ciphertext', async () => {
      await store.setTrunkCredentials('TTAMPER', { token: track(secret('trunk')), orgSlug: 'acme' }, 'U1');
      const [row] = await store.db.query<{ trunk_token: string }>(
        'SELECT trunk_token FROM workspace_settings WHERE workspace_id = $1',
        ['TTAMPER'],
      );
      const ct = row!.trunk_token;
      const body = ct.split('.')[3]!;
      const flipped = `${ct.slice(0, ct.length - body.length)}${body[0] === 'A' ? 'B' : 'A'}${body.slice(1)}`;
      for (const bad of [flipped, ct.slice(0, -6), 'v1.zz.yy.xx', 'plaintext-token']) {
        await store.db.execute('UPDATE workspace_settings SET trunk_token = $1 WHERE workspace_id = $2', [
          bad,
          'TTAMPER',
        ]);
        const err = await store.getTrunkCredentials('TTAMPER').catch((e: unknown) => e);
        expect(err).toBeInstanceOf(SecretError);
        expect((err as SecretError).code).toBe('SECRET_INVALID');
      }
    });

    it('rotates keys: old values stay readable after a new key is added, reencryptAll moves them, the old key can go', async () => {
      const db = await fx.freshDatabase();
      const oldKey = trackKey(newKey());
      const newKeyBuf = trackKey(newKey());
      const v1 = await openOn(db, [oldKey]);
      const trunk = track(secret('trunk'));
      const bot = track(secret('xoxb'));
      await v1.setTrunkCredentials('TROT1', { token: trunk, orgSlug: 'acme' }, 'U1');
      await slackInstallationStore(v1.installations).storeInstallation(orgInstall('EROT1', bot));
      expect(await v1.keyIdsInUse()).toEqual({ [keyIdOf(oldKey)]: 2 });
      await close(v1);

      const v2 = await openOn(db, [newKeyBuf, oldKey]);
      expect(await v2.getTrunkCredentials('TROT1')).toEqual({ token: trunk, orgSlug: 'acme' });
      const trunk2 = track(secret('trunk'));
      await v2.setTrunkCredentials('TROT2', { token: trunk2, orgSlug: 'beta' }, 'U1');
      expect(await v2.keyIdsInUse()).toEqual({ [keyIdOf(oldKey)]: 2, [keyIdOf(newKeyBuf)]: 1 });
      expect(await v2.reencryptAll()).toBe(2);
      expect(await v2.reencryptAll()).toBe(0);
      expect(await v2.keyIdsInUse()).toEqual({ [keyIdOf(newKeyBuf)]: 3 });
      const keyRows = await v2.db.query<{ key_id: string; retired_at: number | null }>(
        'SELECT key_id, retired_at FROM encryption_keys ORDER BY key_id',
      );
      expect(Object.fromEntries(keyRows.map((r) => [r.key_id, r.retired_at === null]))).toEqual({
        [keyIdOf(oldKey)]: false,
        [keyIdOf(newKeyBuf)]: true,
      });
      await close(v2);

      const v3 = await openOn(db, [newKeyBuf]);
      expect(await v3.getTrunkCredentials('TROT1')).toEqual({ token: trunk, orgSlug: 'acme' });
      expect(await v3.getTrunkCredentials('TROT2')).toEqual({ token: trunk2, orgSlug: 'beta' });
      expect(
        (
          await slackInstallationStore(v3.installations).fetchInstallation({
            teamId: undefined,
            enterpriseId: 'EROT1',
            isEnterpriseInstall: true,
          })
        ).bot?.token,
      ).toBe(bot);
      await close(v3);
    });

    it('refuses to start with a wrong key, naming the key ids needed, and changes nothing', async () => {
      const db = await fx.freshDatabase();
      const right = trackKey(newKey());
      const wrong = trackKey(newKey());
      const st = await openOn(db, [right]);
      const token = track(secret('trunk'));
      await st.setTrunkCredentials('TWRONG', { token, orgSlug: 'acme' }, 'U1');
      await close(st);
      const before = await fx.dump(db);

      const err = await openOn(db, [wrong]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(EncryptionKeyUnknownError);
      const msg = (err as Error).message;
      expect(msg).toContain(keyIdOf(right));
      expect(msg).toContain(keyIdOf(wrong));
      for (const k of [right, wrong]) {
        expect(msg).not.toContain(k.toString('base64'));
        expect(msg).not.toContain(k.toString('hex'));
      }
      expect((err as EncryptionKeyUnknownError).neededKeyIds).toEqual([keyIdOf(right)]);
      expect(await fx.dump(db)).toBe(before);

      const again = await openOn(db, [right]);
      expect(await again.getTrunkCredentials('TWRONG')).toEqual({ token, orgSlug: 'acme' });
      await close(again);
    });

    it('no plaintext secret is anywhere in the stored bytes', async () => {
      // The shared database holds every installation and Trunk token the tests above stored.
      const dump = await fx.dump(shared);
      expect(dump.length).toBeGreaterThan(1000);
      expect(dump).toContain(`v1.${keyIdOf(key)}.`);
      const stored = secretsUsed.filter((s) => s.includes('-SECRET-'));
      expect(stored.length).toBeGreaterThan(10);
      for (const s of secretsUsed)
        expect(dump.includes(s), `plaintext found in ${fx.dialect} storage`).toBe(false);
      // And the check itself can fail: a non-secret value that was stored is found.
      expect(dump).toContain('UINSTALLER');
    });
  });

  describe('waiting Workflow Builder steps (migration 016)', () => {
    const wait = (
      executionId: string,
      workspaceId: string,
      token: string,
      over: Partial<NewStepWait> = {},
    ) => ({
      executionId,
      workspaceId,
      callbackId: 'wait_for_pr',
      queueKey: 'github.com/acme/web:main',
      target: { repo: { host: 'github.com', owner: 'acme', name: 'web' }, branch: 'main' },
      prNumber: 42,
      token,
      deadlineAt: clock + 60_000,
      createdAt: clock,
      ...over,
    });

    it('stores the execution token encrypted, bound to its row; one row per execution', async () => {
      const token = track(secret('xwfp'));
      expect(
        await store.addStepWait(wait('FxSTORE1', 'TSTEPS1', token, { channelId: 'C1', userId: 'U1' })),
      ).toBe(true);
      expect(await store.addStepWait(wait('FxSTORE1', 'TSTEPS1', track(secret('xwfp'))))).toBe(false);
      expect(await store.stepWaitToken('TSTEPS1', 'FxSTORE1')).toBe(token);
      expect(await store.stepWaitToken('TSTEPS1', 'FxNONE')).toBeUndefined();
      // Another execution's ciphertext, copied into this row, does not decrypt.
      await store.addStepWait(wait('FxSTORE2', 'TSTEPS1', track(secret('xwfp'))));
      await store.db.execute(
        `UPDATE step_waits SET function_token = (SELECT function_token FROM step_waits WHERE execution_id = 'FxSTORE1')
         WHERE execution_id = 'FxSTORE2'`,
      );
      await expect(store.stepWaitToken('TSTEPS1', 'FxSTORE2')).rejects.toBeInstanceOf(SecretTamperedError);
      const waits = new StepWaitRepository(store);
      expect(await waits.get('FxSTORE1')).toMatchObject({
        status: 'waiting',
        channelId: 'C1',
        userId: 'U1',
        prNumber: 42,
        target: { repo: { owner: 'acme', name: 'web' }, branch: 'main' },
      });
    });

    it('the first outcome counts; the send is claimed once and recorded', async () => {
      await store.addStepWait(wait('FxDECIDE', 'TSTEPS2', track(secret('xwfp'))));
      const waits = new StepWaitRepository(store);
      expect(
        (await waits.waitingFor('TSTEPS2', 'github.com/acme/web:main', 42)).map((w) => w.executionId),
      ).toEqual(['FxDECIDE']);
      expect(await waits.decide('FxDECIDE', { ok: true, state: 'merged' }, clock)).toBe(true);
      expect(await waits.decide('FxDECIDE', { ok: false, error: 'timed out' }, clock)).toBe(false);
      expect(await waits.waitingFor('TSTEPS2', 'github.com/acme/web:main', 42)).toEqual([]);
      let sends = 0;
      const send = async () => {
        sends++;
        return { ok: false as const, error: 'internal_error', final: false };
      };
      const id = { executionId: 'FxDECIDE', workspaceId: 'TSTEPS2' };
      expect(await waits.complete(id, 'A', clock, send)).toBe('retry');
      // Released with a pause before the retry: not yet due.
      expect(await waits.complete(id, 'B', clock + 1, send)).toBe('busy');
      expect(sends).toBe(1);
      const ok = async () => {
        sends++;
        return { ok: true as const };
      };
      const [a, b] = await Promise.all([
        waits.complete(id, 'A', clock + 10_000, ok),
        waits.complete(id, 'B', clock + 10_000, ok),
      ]);
      // One sends; the other finds it being sent, or already sent.
      expect([a, b].filter((x) => x === 'sent')).toHaveLength(1);
      expect([a, b].filter((x) => x !== 'sent')[0]).toMatch(/^(busy|gone)$/);
      expect(sends).toBe(2);
      expect(await waits.complete(id, 'B', clock + 20_000, ok)).toBe('gone');
      expect((await waits.get('FxDECIDE'))?.status).toBe('done');
      expect(await waits.undelivered()).not.toContainEqual(
        expect.objectContaining({ executionId: 'FxDECIDE' }),
      );
    });

    it('rotation re-encrypts step tokens with their row in the associated data', async () => {
      const db = await fx.freshDatabase();
      const oldKey = trackKey(newKey());
      const newKeyBuf = trackKey(newKey());
      const v1 = await openOn(db, [oldKey]);
      const token = track(secret('xwfp'));
      await v1.addStepWait(wait('FxROT1', 'TROTSTEP', token));
      await v1.addStepWait(wait('FxROT2', 'TROTSTEP', track(secret('xwfp'))));
      await close(v1);
      const v2 = await openOn(db, [newKeyBuf, oldKey]);
      expect(await v2.reencryptAll()).toBe(2);
      expect(await v2.keyIdsInUse()).toEqual({ [keyIdOf(newKeyBuf)]: 2 });
      await close(v2);
      const v3 = await openOn(db, [newKeyBuf]);
      expect(await v3.stepWaitToken('TROTSTEP', 'FxROT1')).toBe(token);
      await close(v3);
    });

    it('deleteWorkspace removes its waits', async () => {
      await store.addStepWait(wait('FxGONE', 'TSTEPSDEL', track(secret('xwfp'))));
      await store.deleteWorkspace('TSTEPSDEL');
      expect(await new StepWaitRepository(store).get('FxGONE')).toBeUndefined();
    });
  });

  it('no secret ever reached the logs of this suite', () => {
    const text = logLines.join('');
    expect(logLines.length).toBeGreaterThan(5);
    expect(text).toContain('store opened');
    for (const s of secretsUsed) expect(text.includes(s), 'secret found in logs').toBe(false);
  });
}
