/**
 * The audit log cannot be grown without bound by one member: repeated refusals of the same person and
 * action are one row with a count, and rows older than AUDIT_RETENTION_DAYS are pruned (at start and
 * hourly), here with the app's clock moved forward.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness, TEAM, USERS } from '../helpers/app-harness.ts';

const DAY = 24 * 60 * 60 * 1000;
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ env: { AUDIT_RETENTION_DAYS: '30' } });
  h.trunk.addQueue('acme/web', 'main', { state: 'running' });
});
afterAll(async () => h?.close());

const refusedPauses = async () =>
  (await h.app!.store.listAudit(TEAM, { limit: 1000 })).filter(
    (e) => e.action === 'pause' && e.outcome === 'refused' && e.userId === USERS.member,
  );

describe('audit growth', () => {
  it('50 refused pauses by one member are one audit row with a count of 50', async () => {
    for (let i = 0; i < 50; i++) {
      const sent = await h.sendCommand(`pause acme/web:main attempt ${i}`, { user: USERS.member });
      expect(sent.status).toBe(200);
      await h.reply(sent.responseUrl);
    }
    await h.idle();
    const rows = await refusedPauses();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.count).toBe(50);
    expect(rows[0]!.lastAt).toBeGreaterThanOrEqual(rows[0]!.at);
    expect(h.trunkCalls('updateQueue')).toHaveLength(0);
    // Another person's refusal is still its own row.
    const other = await h.sendCommand('pause acme/web:main', { user: USERS.operator });
    await h.reply(other.responseUrl);
    await h.idle();
    const all = await h.app!.store.listAudit(TEAM, { limit: 1000 });
    expect(all.filter((e) => e.outcome === 'refused')).toHaveLength(2);
  });

  it('rows older than AUDIT_RETENTION_DAYS are pruned when the app starts (clock moved forward)', async () => {
    const store = h.app!.store;
    const base = Date.now();
    await store.appendAudit({
      workspaceId: TEAM,
      userId: USERS.admin,
      action: 'resume',
      target: 'github.com/acme/web:main',
      outcome: 'ok',
      detail: {},
      at: base + 20 * DAY, // within 30 days of the moved clock below
    });
    expect((await refusedPauses()).length).toBe(1);
    const later = await startHarness({
      env: { AUDIT_RETENTION_DAYS: '30', DATABASE_URL: h.env['DATABASE_URL'] },
      slack: h.slack,
      trunk: h.trunk,
      app: { clock: () => base + 31 * DAY },
    });
    try {
      const left = await later.app!.store.listAudit(TEAM, { limit: 1000 });
      expect(left.map((e) => e.action)).toEqual(['resume']);
    } finally {
      await later.close();
    }
  });
});
