/**
 * Separate OS processes sharing one store: the SQLite file (migrations under BEGIN IMMEDIATE, claims
 * under SQLite's write lock) and the key-rotation CLI as an operator runs it.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Installation } from '@slack/bolt';
import { afterAll, describe, expect, it } from 'vitest';
import { slackInstallationStore } from '../../src/slack/installation-store.ts';
import { keyIdOf } from '../../src/store/crypto.ts';
import { migrations } from '../../src/store/migrations/index.ts';
import { openStore } from '../../src/store/open.ts';

const run = promisify(execFile);
// The same Node 24 that `npx node` runs.
const NODE = join(process.cwd(), 'node_modules', '.bin', 'node');
const dir = mkdtempSync(join(tmpdir(), 'mq-store-proc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? dir, ...extra };
}

describe('SQLite shared by several processes', () => {
  it('three processes starting at once migrate once and split the claims between them', async () => {
    const path = join(dir, 'shared', 'mq.db');
    const results = await Promise.all(
      [1, 2, 3].map(() =>
        run(NODE, [join('test', 'store', 'fixtures', 'sqlite-worker.ts'), path, '40'], { env: childEnv({}) }),
      ),
    );
    const outputs = results.map((r) => JSON.parse(r.stdout) as { won: string[]; ready: { ok: boolean } });
    for (const o of outputs) expect(o.ready.ok).toBe(true);
    const all = outputs.flatMap((o) => o.won).sort();
    expect(all).toEqual(Array.from({ length: 40 }, (_, i) => `proc-key-${i}`).sort());
    const store = await openStore({ database: { kind: 'sqlite', path }, encryptionKeys: [] });
    const rows = await store.db.query<{ id: number }>('SELECT id FROM schema_migrations ORDER BY id');
    expect(rows.map((r) => r.id)).toEqual(migrations.map((m) => m.id));
    await store.close();
  });
});

describe('rotate-keys CLI', () => {
  it('re-encrypts under the new key, prints counts and key ids but no secret, and the old key can then go', async () => {
    const path = join(dir, 'rotate', 'mq.db');
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    const trunk = `trunk-SECRET-${randomBytes(8).toString('hex')}`;
    const bot = `xoxb-SECRET-${randomBytes(8).toString('hex')}`;
    const store = await openStore({ database: { kind: 'sqlite', path }, encryptionKeys: [oldKey] });
    await store.setTrunkCredentials('T1', { token: trunk, orgSlug: 'acme' }, 'U1');
    const install: Installation = {
      team: { id: 'T1' },
      enterprise: undefined,
      user: { token: undefined, scopes: undefined, id: 'U1' },
      bot: { token: bot, scopes: ['commands'], id: 'B1', userId: 'UB' },
      isEnterpriseInstall: false,
      authVersion: 'v2',
    };
    await slackInstallationStore(store.installations).storeInstallation(install);
    await store.close();

    const env = childEnv({
      DATABASE_URL: `sqlite:${path}`,
      ENCRYPTION_KEY: `${newKey.toString('base64')},${oldKey.toString('base64')}`,
    });
    const { stdout, stderr } = await run(NODE, ['src/cli/rotate-keys.ts'], { env });
    expect(stdout).toContain(`Current key id: ${keyIdOf(newKey)}`);
    expect(stdout).toContain(`Secrets by key id before: ${keyIdOf(oldKey)}=2`);
    expect(stdout).toContain('Re-encrypted 2 of 2 stored secret(s).');
    expect(stdout).toContain(`Secrets by key id now: ${keyIdOf(newKey)}=2`);
    expect(stdout).toContain('ENCRYPTION_KEY can be set to the first key alone');
    for (const s of [trunk, bot, newKey.toString('base64'), oldKey.toString('base64')]) {
      expect(stdout + stderr).not.toContain(s);
    }

    const after = await openStore({ database: { kind: 'sqlite', path }, encryptionKeys: [newKey] });
    expect(await after.getTrunkCredentials('T1')).toEqual({ token: trunk, orgSlug: 'acme' });
    expect(
      (
        await slackInstallationStore(after.installations).fetchInstallation({
          teamId: 'T1',
          enterpriseId: undefined,
          isEnterpriseInstall: false,
        })
      ).bot?.token,
    ).toBe(bot);
    await after.close();

    // Run with only an unrelated key: refuses, exit 1, names the needed key id, changes nothing.
    const wrong = randomBytes(32);
    const failed = await run(NODE, ['src/cli/rotate-keys.ts'], {
      env: { ...env, ENCRYPTION_KEY: wrong.toString('base64') },
    }).catch((e: { code: number; stdout: string }) => e);
    expect((failed as { code: number }).code).toBe(1);
    expect((failed as { stdout: string }).stdout).toContain(keyIdOf(newKey));
    expect((failed as { stdout: string }).stdout).not.toContain(wrong.toString('base64'));
  });

  it('without ENCRYPTION_KEY says what to set', async () => {
    const failed = await run(NODE, ['src/cli/rotate-keys.ts'], {
      env: childEnv({ DATABASE_URL: `sqlite:${join(dir, 'none', 'mq.db')}` }),
    }).catch((e: { code: number; stdout: string }) => e);
    expect((failed as { code: number }).code).toBe(1);
    expect((failed as { stdout: string }).stdout).toMatch(/ENCRYPTION_KEY is not set/);
  });
});
