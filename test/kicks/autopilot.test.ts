/**
 * Issue 29 through the real wire (signed Slack requests, the fake Slack, the fake Trunk with v1 and v2, the
 * watcher's polls and Trunk's signed webhooks), on SQLite and on PostgreSQL (CI=true):
 * - every kick class from Trunk payloads shaped as shared/spec documents them (v2 histories with reasons,
 *   failure-causing checks and their conclusions, the conflict culprit, the prerequisite reasons; an unknown
 *   code shown as sent), in the author's note, the feed's line, and on the history row;
 * - `config autopilot …`: operators only, audited, announced in the queue's feed channels;
 * - the autopilot: a chosen kick re-submitted once with its previous priority and batching, audited as the
 *   app, told in the author's note with a Cancel button and marked in the feed; and every "never": another
 *   class, a paused queue, a freeze window, a person's cancel or push, twice for one head commit; a refusal
 *   by Trunk said once in the feed;
 * - who hears: the person who submitted a PR from Slack gets the author's notes, once, with the same opt-out.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../dev/fakes/slack/server.ts';
import { addWindow } from '../../src/freeze/windows.ts';
import { recordTransition } from '../../src/history/repository.ts';
import {
  CHANNEL,
  defaultUsers,
  type Harness,
  linkVerified,
  startHarness,
  USERS,
} from '../helpers/app-harness.ts';
import { findAction, textOf } from '../helpers/block-kit-reading.ts';
import { createPgTestDatabase, type PgTestDatabase, pgTestsEnabled } from '../helpers/pg.ts';
import { feedPosts } from '../helpers/slack-posts.ts';

const KEY = 'trunk_v2_kickstestkey00001';
const AUTHOR = { id: 'UAUTHKICK1', name: 'kim', login: 'kim-gh' };

interface Setup {
  h: Harness;
  clock: { now: number };
  n: number;
}

const iso = (msAgo: number) => new Date(Date.now() - msAgo).toISOString();

function history(state: 'failed' | 'cancelled', reason: string | null, extra: Record<string, unknown> = {}) {
  return [
    {
      state: 'pending',
      changedAt: iso(30 * 60_000),
      reason: 'MERGE_ITEM_NOW_READY',
      pending: {
        prerequisitePullRequests: [],
        priorityValue: 10,
        priorityName: 'high',
        allowBatching: false,
      },
    },
    { state: 'testing', changedAt: iso(20 * 60_000), reason: null },
    { state, changedAt: iso(0), reason, ...extra },
  ];
}

const failedWith = (reason: string | null, failed: Record<string, unknown> = {}) =>
  history('failed', reason, { failed: { failureCausingChecks: [], blockReasons: [], ...failed } });

function suite(
  name: string,
  database: () => Promise<{ env: Record<string, string>; drop(): Promise<void> }>,
) {
  describe(name, () => {
    let s: Setup;
    let drop: () => Promise<void>;
    beforeAll(async () => {
      const db = await database();
      drop = db.drop;
      const clock = { now: Date.now() };
      const h = await startHarness({
        app: { clock: () => clock.now },
        env: { TRUNK_API_KEY: KEY, ...db.env },
        slackOptions: {
          users: [...defaultUsers(), { id: AUTHOR.id, name: AUTHOR.name, tz: 'UTC' }],
        },
      });
      h.trunk.v2.setKeys({ [KEY]: [] });
      expect((await linkVerified(h, AUTHOR)).ok).toBe(true);
      s = { h, clock, n: 0 };
    }, 60_000);
    afterAll(async () => {
      await s?.h.close();
      await drop?.();
    });
    beforeEach(async () => {
      await s.h.reset();
    });

    function fresh() {
      s.n++;
      const repo = `acme/kick${s.n}`;
      s.h.trunk.addQueue(repo, 'main', { state: 'running' });
      return {
        repo,
        target: `${repo}:main`,
        key: `github.com/acme/kick${s.n}:main`,
        channel: `C0KICK${String(s.n).padStart(4, '0')}`,
      };
    }
    type Q = ReturnType<typeof fresh>;

    async function interval(seconds = 21) {
      s.clock.now += seconds * 1000;
      await s.h.app!.events!.tick();
      await s.h.app!.events!.watch.watcher.settled();
    }

    async function watched(prs: number[], opts: { autopilot?: string } = {}) {
      const q = fresh();
      for (const prNumber of prs)
        s.h.trunk.enqueuePr(q.repo, 'main', {
          prNumber,
          prAuthor: AUTHOR.login,
          prSha: `sha${prNumber}`,
          state: 'testing',
          priorityValue: 10,
          priorityName: 'high',
        });
      const sent = await s.h.sendCommand(`watch ${q.target} failed submitted`, { channel: q.channel });
      expect(textOf(await s.h.reply(sent.responseUrl))).toContain('follows');
      if (opts.autopilot !== undefined) {
        const on = await s.h.sendCommand(`config autopilot on ${q.target}`, { user: USERS.admin });
        expect(textOf(await s.h.reply(on.responseUrl))).toContain('is on');
        if (opts.autopilot) {
          const cls = await s.h.sendCommand(`config autopilot requeue ${opts.autopilot} ${q.target}`, {
            user: USERS.admin,
          });
          expect(textOf(await s.h.reply(cls.responseUrl))).toContain('now re-submits');
        }
      }
      await interval();
      return q;
    }

    function leaves(q: Q, prNumber: number, state: 'failed' | 'cancelled', transitions: unknown[]) {
      s.h.trunk.v2.setHistory(q.repo, prNumber, transitions as never);
      s.h.trunk.dequeuePr(q.repo, 'main', prNumber);
      s.h.trunk.addSubmittedPr(q.repo, 'main', {
        prNumber,
        prAuthor: AUTHOR.login,
        prSha: `sha${prNumber}`,
        state,
        isCurrentlySubmittedToQueue: false,
        priorityValue: 10,
        priorityName: 'high',
      });
    }

    const notes = (prNumber: number, to = AUTHOR.id): FakeMessage[] =>
      s.h.slack.channelMessages(to).filter((m) => textOf(m).includes(`#${prNumber}`));
    const submits = (repo: string) =>
      s.h.trunkCalls('submitPullRequest').filter((r) => JSON.stringify(r.body).includes(repo.split('/')[1]!));
    const kickRow = async (q: Q, pr: number) =>
      (
        await s.h.app!.store.db.query(
          "SELECT kick_class, kick_evidence FROM queue_history WHERE workspace_id = 'T0DEFAULT' AND queue_key = $1 AND pr_number = $2 AND state IN ('failed','cancelled')",
          [q.key, pr],
        )
      )[0];

    /** The autopilot's deliveries of the queue's kicks (one per kick it was handed). */
    const considered = async (q: Q) =>
      (
        await s.h.app!.store.db.query(
          `SELECT d.status FROM watch_deliveries d JOIN watch_events e ON e.event_id = d.event_id
           WHERE d.destination = 'autopilot' AND e.queue_key = $1 AND e.kind IN ('failed', 'cancelled')`,
          [q.key],
        )
      ).map((r) => String(r['status']));

    /** Two failed-then-merged stays of `check` on one commit each this week: flaky here. */
    async function flakyHistory(q: Q, check: string) {
      const db = s.h.app!.store.db;
      const now = s.clock.now;
      for (const [i, pr] of [9001, 9002].entries()) {
        const base = {
          workspaceId: 'T0DEFAULT',
          queueKey: q.key,
          prNumber: pr,
          headSha: `flaky${i}`,
          source: 'poll' as const,
          recordedAt: now,
        };
        await recordTransition(db, {
          ...base,
          state: 'failed',
          occurredAt: now - 86_400_000 * (i + 1),
          failingChecks: [check],
        });
        await recordTransition(db, {
          ...base,
          state: 'merged',
          occurredAt: now - 86_400_000 * (i + 1) + 3_600_000,
        });
      }
    }

    it('classes every kick from Trunk v2 payloads, with evidence, in notes, feed lines and history rows', async () => {
      const { h } = s;
      const prs = [101, 102, 103, 104, 105, 106, 107, 108, 109];
      const q = await watched(prs);
      await flakyHistory(q, 'e2e');
      const cases: Array<[number, 'failed' | 'cancelled', unknown[], string, string]> = [
        [
          101,
          'failed',
          failedWith('START_TEST_RUN_MERGE_CONFLICT', {
            conflictCulprit: { kind: 'pullRequest', sha: 'c0ffee1', number: 4890 },
          }),
          'conflict',
          'a merge conflict with #4890',
        ],
        [102, 'failed', failedWith('TEST_RUN_TIMEOUT'), 'infra', "ran past the queue's testing timeout"],
        [
          103,
          'failed',
          failedWith('TEST_RUN_REQUIRED_STATUS_FAILED', {
            failureCausingChecks: [{ name: 'e2e', conclusion: 'failure' }],
          }),
          'flaky',
          '`e2e` failed; it failed and then passed on the same commit twice this week',
        ],
        [
          104,
          'cancelled',
          history('cancelled', 'PREREQUISITE_MERGE_ITEM_FAILED'),
          'upstream',
          'depended on failed',
        ],
        [105, 'cancelled', history('cancelled', 'PR_PUSHED_TO'), 'superseded', 'new commits were pushed'],
        [
          106,
          'cancelled',
          history('cancelled', 'USER_REQUESTED', { actor: { gitHubLogin: 'octocat' } }),
          'cancelled',
          '`octocat` cancelled it',
        ],
        [107, 'cancelled', history('cancelled', 'NOT_READY_TIMEOUT_EXPIRED'), 'timeout', 'not ready to test'],
        [
          108,
          'failed',
          failedWith('TEST_RUN_REQUIRED_STATUS_FAILED', {
            failureCausingChecks: [{ name: 'ci/unit', conclusion: 'failure' }],
          }),
          'failure',
          '`ci/unit` failed',
        ],
        [
          109,
          'failed',
          failedWith('QUANTUM_FLUX_DETECTED'),
          'failure',
          "Trunk's reason: `QUANTUM_FLUX_DETECTED`",
        ],
      ];
      for (const [pr, state, transitions] of cases) leaves(q, pr, state, transitions);
      await interval();
      await h.slack.waitFor(() => (notes(109).length > 0 ? true : undefined));
      const feed = textOf((await h.slack.waitFor(() => feedPosts(h.slack, q.channel)[0]))!);
      for (const [pr, , , kickClass, evidence] of cases) {
        const note = textOf(notes(pr)[0]!);
        expect(note, `#${pr}`).toContain(`Kind of kick: *${kickClass}*`);
        expect(note, `#${pr}`).toContain(
          evidence.replace(/'/g, '&#39;').includes('&#39;') ? evidence.split("'")[0]! : evidence,
        );
        expect(feed).toMatch(new RegExp(`#${pr}[^\\n]*· \\*${kickClass}\\*`));
        const row = await kickRow(q, pr);
        expect(row?.['kick_class'], `history row of #${pr}`).toBe(kickClass);
      }
      // `why` says the same, from the same facts and the queue's history.
      const why = await h.sendCommand(`why 103 ${q.target}`);
      expect(textOf(await h.reply(why.responseUrl))).toContain(
        'Kind of kick: *flaky* — `e2e` failed; it failed and then passed on the same commit twice this week',
      );
    });

    it('config autopilot: operators only, audited, announced in the feed channels; anyone reads it', async () => {
      const { h } = s;
      const q = await watched([]);
      const refused = await h.sendCommand(`config autopilot on ${q.target}`, { user: USERS.member });
      expect(textOf(await h.reply(refused.responseUrl))).toMatch(/not allowed|operator/i);
      const bad = await h.sendCommand(`config autopilot requeue cancelled ${q.target}`, {
        user: USERS.admin,
      });
      expect(textOf(await h.reply(bad.responseUrl))).toContain('never re-submitted');
      const on = await h.sendCommand(`config autopilot on ${q.target}`, { user: USERS.admin });
      expect(textOf(await h.reply(on.responseUrl))).toContain('Announced in its feed channel');
      const told = await h.slack.waitFor(() =>
        h.slack.channelMessages(q.channel).find((m) => textOf(m).includes('changed the autopilot')),
      );
      expect(textOf(told!)).toContain('`flaky` `infra`');
      const audit = await h.app!.store.listAudit('T0DEFAULT', { limit: 100 });
      expect(
        audit.filter((a) => a.target.includes(q.repo)).map((a) => `${a.action}:${a.outcome}:${a.userId}`),
      ).toEqual(
        expect.arrayContaining([
          `config.autopilot.on:ok:${USERS.admin}`,
          `config.autopilot.on:refused:${USERS.member}`,
        ]),
      );
      const shown = await h.sendCommand('config autopilot', { user: USERS.member });
      const view = textOf(await h.reply(shown.responseUrl));
      expect(view).toContain('*Workspace:* :white_circle: *off*');
      expect(view).toContain(`${q.key}:* :large_green_circle: *on*`);
    });

    it('re-submits a chosen kick once, with its priority and batching, audited as the app, told and marked', async () => {
      const { h } = s;
      const q = await watched([201], { autopilot: '' });
      leaves(q, 201, 'failed', failedWith('TEST_RUN_TIMEOUT'));
      await interval();
      await h.slack.waitFor(() => (submits(q.repo).length > 0 ? true : undefined));
      const [submit] = submits(q.repo);
      expect(submit!.body).toMatchObject({ pr: { number: 201 }, priority: 10, noBatch: true });
      const note = await h.slack.waitFor(() =>
        notes(201).find((m) => textOf(m).includes('The app submitted')),
      );
      expect(textOf(note!)).toContain('its kick was *infra*');
      expect(findAction(note!.blocks, 'mq_pr_cancel')).toBeDefined();
      const marked = await h.slack.waitFor(() =>
        feedPosts(h.slack, q.channel).find((m) => textOf(m).includes('was submitted again by the app')),
      );
      expect(textOf(marked!)).toContain('autopilot requeue flaky infra');
      const audit = await h.app!.store.listAudit('T0DEFAULT', { limit: 100 });
      expect(
        audit.find((a) => a.action === 'autopilot.resubmit' && a.target.includes(`${q.repo}:main#201`)),
      ).toMatchObject({ userId: 'app:autopilot', outcome: 'ok' });
      // The same kick seen again (the poll after a webhook, a retry) sends nothing more.
      await interval();
      expect(submits(q.repo)).toHaveLength(1);
      // Counted: the re-submission's `submitted` row is the app's (stats: autopilot re-submissions).
      const rows = await h.app!.store.db.query(
        "SELECT submitted_by FROM queue_history WHERE queue_key = $1 AND pr_number = 201 AND state = 'submitted'",
        [q.key],
      );
      expect(rows.map((r) => r['submitted_by'])).toContain('app:autopilot');
      // Shown on the Home.
      const home = JSON.stringify((await h.openHome(USERS.admin)).view);
      expect(home).toContain('*Autopilot:* on for');
      expect(home).toContain(`#201 in ${q.key} (infra)`);
    });

    it('never: another class, a paused queue, a freeze window, a person cancelled or pushed, twice per head commit', async () => {
      const { h } = s;
      // Another class: a real failure is left alone.
      const real = await watched([301], { autopilot: '' });
      leaves(
        real,
        301,
        'failed',
        failedWith('TEST_RUN_REQUIRED_STATUS_FAILED', {
          failureCausingChecks: [{ name: 'unit', conclusion: 'failure' }],
        }),
      );
      // A person's cancel and a push (never chosen).
      const person = await watched([302, 303], { autopilot: '' });
      leaves(person, 302, 'cancelled', history('cancelled', 'USER_REQUESTED'));
      leaves(person, 303, 'cancelled', history('cancelled', 'PR_PUSHED_TO'));
      // A paused queue.
      const paused = await watched([304], { autopilot: '' });
      h.trunk.patchQueue(paused.repo, 'main', { state: 'paused' });
      await interval();
      leaves(paused, 304, 'failed', failedWith('TEST_RUN_TIMEOUT'));
      // A freeze window open now.
      const frozen = await watched([305], { autopilot: '' });
      const d = new Date(s.clock.now);
      const minute = d.getUTCHours() * 60 + d.getUTCMinutes();
      await addWindow(
        h.app!.store.db,
        {
          workspaceId: 'T0DEFAULT',
          channelId: CHANNEL,
          createdBy: USERS.admin,
          target: {
            repo: { host: 'github.com', owner: 'acme', name: frozen.repo.split('/')[1]! },
            branch: 'main',
          },
          command: {
            startMinute: (minute + 1440 - 30) % 1440,
            endMinute: (minute + 30) % 1440,
            tz: 'UTC',
            rule: { kind: 'repeat', days: 'daily' },
            action: 'drain',
          },
        },
        s.clock.now,
      );
      leaves(frozen, 305, 'failed', failedWith('TEST_RUN_TIMEOUT'));
      await interval();
      await interval();
      for (const q of [real, person, paused, frozen]) {
        expect(submits(q.repo), q.repo).toHaveLength(0);
        // Not for want of asking: the autopilot was handed each kick and decided to leave it.
        expect(await considered(q), q.repo).toEqual(q === person ? ['sent', 'sent'] : ['sent']);
      }

      // Twice for one head commit: re-submitted once; kicked again on the same commit, left alone.
      const twice = await watched([306], { autopilot: '' });
      leaves(twice, 306, 'failed', failedWith('TEST_RUN_TIMEOUT'));
      await interval();
      await h.slack.waitFor(() => (submits(twice.repo).length > 0 ? true : undefined));
      await interval();
      leaves(twice, 306, 'failed', failedWith('TEST_RUN_TIMEOUT'));
      await interval();
      await interval();
      expect(submits(twice.repo)).toHaveLength(1);
    });

    it('a re-submission Trunk refuses is said once, in the feed, with the reason', async () => {
      const { h } = s;
      const q = await watched([401], { autopilot: '' });
      leaves(q, 401, 'failed', failedWith('TEST_RUN_TIMEOUT'));
      h.trunk.failNext(
        1,
        { status: 400, body: 'pull request #401 is closed on GitHub' },
        'submitPullRequest',
      );
      await interval();
      const said = await h.slack.waitFor(() =>
        feedPosts(h.slack, q.channel).find((m) => textOf(m).includes('Trunk refused')),
      );
      expect(textOf(said!)).toContain('closed on GitHub');
      await interval();
      await interval();
      expect(feedPosts(h.slack, q.channel).filter((m) => textOf(m).includes('Trunk refused'))).toHaveLength(
        1,
      );
      expect(notes(401).filter((m) => textOf(m).includes('Trunk refused'))).toHaveLength(0);
    });

    it('Trunk failing halfway: a lost answer is read back, a 503 retried; re-submitted once, reported as done', async () => {
      const { h } = s;
      const q = await watched([601, 602], { autopilot: '' });
      // Applied, answer lost (a gateway's 502): the client reads the PR back and does not send it again.
      h.trunk.loseAnswerNext(1, { status: 502 }, 'submitPullRequest');
      leaves(q, 601, 'failed', failedWith('TEST_RUN_TIMEOUT'));
      await interval();
      const told = await h.slack.waitFor(() =>
        notes(601).find((m) => textOf(m).includes('The app submitted')),
      );
      expect(told).toBeDefined();
      expect(h.trunk.submittedPr(q.repo, 'main', 601)?.state).toBe('pending');
      // Not applied (503 every time, past the client's retries): released, and the next attempt sends it once.
      h.trunk.failNext(10, { status: 503 }, 'submitPullRequest');
      leaves(q, 602, 'failed', failedWith('TEST_RUN_TIMEOUT'));
      await interval();
      h.trunk.resetFaults();
      await interval();
      await interval();
      await h.slack.waitFor(() => notes(602).find((m) => textOf(m).includes('The app submitted')));
      const audit = await h.app!.store.listAudit('T0DEFAULT', { limit: 200 });
      const mine = audit.filter((a) => a.action === 'autopilot.resubmit' && a.target.includes(q.repo));
      expect(mine.map((a) => a.outcome).sort()).toEqual(['ok', 'ok']);
      expect(notes(601).filter((m) => textOf(m).includes('The app submitted'))).toHaveLength(1);
      expect(notes(602).filter((m) => textOf(m).includes('The app submitted'))).toHaveLength(1);
    });

    it('who hears: the person who submitted a PR from Slack gets the notes, once, with the same opt-out', async () => {
      const { h } = s;
      const q = await watched([]);
      // An operator (not the author, and with no GitHub link) submits kim's PR from Slack.
      h.trunk.addSubmittedPr(q.repo, 'main', {
        prNumber: 501,
        prAuthor: AUTHOR.login,
        state: 'cancelled',
        isCurrentlySubmittedToQueue: false,
      });
      await h.sendCommand(`submit 501 ${q.target}`, { user: USERS.admin });
      await h.slack.waitFor(() => (submits(q.repo).length > 0 ? true : undefined));
      await h.idle();
      await interval();
      // Testing, then failed: the submitter hears each once, like the author.
      h.trunk.dequeuePr(q.repo, 'main', 501);
      h.trunk.enqueuePr(q.repo, 'main', { prNumber: 501, prAuthor: AUTHOR.login, state: 'testing' });
      await interval();
      const toSubmitter = () =>
        h.slack.channelMessages(USERS.admin).filter((m) => textOf(m).includes('#501'));
      await h.slack.waitFor(() => (toSubmitter().length > 0 ? true : undefined));
      expect(textOf(toSubmitter()[0]!)).toContain('The PR you submitted');
      expect(textOf(toSubmitter()[0]!)).toContain('because you submitted it from Slack');
      await interval();
      expect(toSubmitter()).toHaveLength(1);
      expect(notes(501).length).toBeGreaterThan(0);
      // `me notify off` stops them (the admin has no GitHub link: the opt-out row).
      const off = await h.sendCommand('me notify off', { user: USERS.admin });
      expect(textOf(await h.reply(off.responseUrl))).toContain('submit from Slack are off');
      leaves(q, 501, 'failed', failedWith('TEST_RUN_REQUIRED_STATUS_FAILED'));
      await interval();
      await h.slack.waitFor(() => (notes(501).some((m) => textOf(m).includes('failed')) ? true : undefined));
      expect(toSubmitter()).toHaveLength(1);
    });
  });
}

suite('on SQLite', async () => ({ env: {}, drop: async () => undefined }));

if (await pgTestsEnabled('kicks and autopilot on PostgreSQL'))
  suite('on PostgreSQL', async () => {
    const db: PgTestDatabase = await createPgTestDatabase();
    return { env: { DATABASE_URL: db.url }, drop: () => db.drop() };
  });
