// Acceptance test of the user-facing contract (the README's commands and promises), black-box: the app is started with `npm start`
// and driven only through HTTP, against fakes written from the documents (./fakes.ts).
// Run: `npx vitest run test/acceptance`. ACC_DEBUG=1 prints the answers of queue changes and the settings
// modal, and writes the app's output to $TMPDIR/mq-acceptance-app.log.
// Describe blocks run in order and share one app and one fake queue; each resets the queue state it needs.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allStrings, buttonsIn, visibleText } from '../helpers/block-kit-reading.ts';
import { freePort, type NpmApp, newcomerEnv, npmStart, sleep, waitForHealthy } from '../helpers/processes.ts';
import { type Sent as Ack, postSigned } from '../helpers/slack-requests.ts';
import {
  type Answer,
  answersFor,
  type Corr,
  clickBody,
  ERROR_DUMP,
  newCorr,
  RAW_ERROR_NAME,
  STACK_FRAME,
  slashBody,
  viewSubmissionBody,
  waitForAnswer,
} from './answers.ts';
import {
  type FakeSlack,
  type FakeTrunk,
  type Json,
  RUN_ID,
  type SlackCall,
  startFakeSlack,
  startFakeTrunk,
  TEAM_ID,
} from './fakes.ts';

const SECRET = 'acc-signing-secret-5f1e9c0b7a';
const BOT_TOKEN = 'xoxb-1111-2222-acceptanceBotTok3n';
const TRUNK_TOKEN = 'trunk-acceptance-token-9d8c7b6a';
const ADMIN = 'UADMIN0001';
const MEMBER = 'UMEMBER001';
const SECRETS = [SECRET, BOT_TOKEN, TRUNK_TOKEN];

// "what to type instead": a usage line, an example, or a pointer to help.
const GUIDANCE = /\/mergequeue|\bhelp\b|usage|example|e\.g\.|\btry\b|\btype\b/i;

let slack: FakeSlack;
let trunk: FakeTrunk;
let app: NpmApp;
let dir: string;
const acks: { text: string; ack: Ack }[] = [];

interface Sent {
  corr: Corr;
  ack: Ack;
  startedAt: number;
}

async function command(text: string, user = ADMIN): Promise<Sent> {
  const corr = newCorr(user);
  const startedAt = Date.now();
  const ack = await postSigned(app, slashBody(text, corr, slack, TEAM_ID, user.toLowerCase()));
  acks.push({ text, ack });
  return { corr, ack, startedAt };
}

function updatesSince(t: number) {
  return trunk.requests.filter((r) => r.path === '/v1/updateQueue' && r.at >= t);
}

const expectAckedFast = (s: Sent, label: string): void => {
  expect(s.ack.status, `${label}: ack status (body: ${s.ack.text.slice(0, 300)})`).toBe(200);
  expect(s.ack.ackMs, `${label}: ack time`).toBeLessThan(3000);
};

function expectClean(answers: Answer[], label: string): void {
  for (const a of answers) {
    const all = allStrings(a.body).join('\n');
    expect(all, `${label}: stack trace in Slack-bound text`).not.toMatch(STACK_FRAME);
    expect(all, `${label}: error dump in Slack-bound text`).not.toMatch(ERROR_DUMP);
    expect(a.text, `${label}: raw JS error in Slack-bound text`).not.toMatch(RAW_ERROR_NAME);
    for (const s of SECRETS) expect(all, `${label}: secret in Slack-bound text`).not.toContain(s);
  }
}

/**
 * Runs a queue-changing command as a user would: if the app asks for a confirmation with a button, click the
 * confirming one. Resolves with the updateQueue requests that reached Trunk (none if refused).
 */
async function change(text: string, user: string, waitMs = 6000) {
  const sent = await command(text, user);
  expectAckedFast(sent, text);
  const deadline = Date.now() + waitMs;
  let clicked = false;
  let firstAnswerAt = 0;
  while (Date.now() < deadline) {
    if (updatesSince(sent.startedAt).length > 0) break;
    const answers = answersFor(slack, sent.corr, sent.ack);
    // An answer without a confirm button, and nothing sent to Trunk a second later: a refusal.
    if (answers.length > 0 && firstAnswerAt === 0) firstAnswerAt = Date.now();
    if (firstAnswerAt && !clicked && Date.now() - firstAnswerAt > 1000) break;
    if (!clicked) {
      for (const a of answers) {
        const btn = buttonsIn(a.body).find(
          (b) =>
            !b.url &&
            /confirm|yes|pause|resume|drain|set|apply|change|do it/i.test(b.text) &&
            !/cancel|no\b/i.test(b.text),
        );
        if (btn) {
          const click = await postSigned(
            app,
            clickBody(btn, a, sent.corr, slack, TEAM_ID, user.toLowerCase()),
          );
          acks.push({ text: `${text} [click ${btn.text}]`, ack: click });
          expect(click.status, `${text}: click ack`).toBe(200);
          expect(click.ackMs, `${text}: click ack time`).toBeLessThan(3000);
          clicked = true;
          break;
        }
      }
    }
    await sleep(60);
  }
  // Let the reply after the change arrive.
  await sleep(300);
  const answers = [
    ...answersFor(slack, sent.corr, sent.ack),
    ...slack.responses
      .filter((r) => r.id === `${sent.corr.id}-click`)
      .map((r) => ({ via: 'response_url', body: r.body, text: JSON.stringify(r.body) }) as Answer),
  ];
  if (process.env['ACC_DEBUG']) {
    console.log(`--- ${text} (clicked=${clicked})\n`, JSON.stringify(answers, null, 1).slice(0, 6000));
  }
  return { sent, updates: updatesSince(sent.startedAt), answers, clicked };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mq-acceptance-'));
  slack = await startFakeSlack();
  trunk = await startFakeTrunk({ token: TRUNK_TOKEN, orgSlug: 'acme' });
  slack.users.set(ADMIN, { id: ADMIN, name: 'ada', is_admin: true, is_owner: false, tz: 'Europe/Paris' });
  slack.users.set(MEMBER, {
    id: MEMBER,
    name: 'max',
    is_admin: false,
    is_owner: false,
    tz: 'America/New_York',
  });
  const port = await freePort();
  app = npmStart(
    newcomerEnv({
      SLACK_SIGNING_SECRET: SECRET,
      SLACK_BOT_TOKEN: BOT_TOKEN,
      SLACK_API_URL: slack.apiUrl,
      TRUNK_API_URL: trunk.url,
      TRUNK_API_TOKEN: TRUNK_TOKEN,
      TRUNK_ORG_SLUG: 'acme',
      DEFAULT_REPO: 'acme/web:main',
      DATABASE_URL: `sqlite:${join(dir, 'db.sqlite')}`,
      PORT: String(port),
      LOG_LEVEL: 'info',
    }),
    port,
  );
  await waitForHealthy(app);
}, 60_000);

afterAll(async () => {
  if (process.env['ACC_DEBUG'] && app) writeFileSync(join(tmpdir(), 'mq-acceptance-app.log'), app.output());
  await app?.stop();
  await slack?.close();
  await trunk?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('operations endpoints', () => {
  it('GET /healthz and /readyz answer 200', async () => {
    for (const path of ['/healthz', '/readyz']) {
      const r = await fetch(`http://127.0.0.1:${app.port}${path}`);
      expect(r.status, path).toBe(200);
    }
  });

  it('GET /metrics is Prometheus text with mergequeue_ metrics', async () => {
    const r = await fetch(`http://127.0.0.1:${app.port}/metrics`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type') ?? '').toMatch(/text\/plain/);
    const body = await r.text();
    expect(body).toMatch(/^# HELP mergequeue_/m);
    expect(body).toMatch(/^# TYPE mergequeue_commands_total counter/m);
  });
});

describe('request verification', () => {
  it('a bad signature gets 401 and reaches no Trunk call', async () => {
    const before = trunk.requests.length;
    const corr = newCorr(ADMIN);
    const r = await postSigned(app, slashBody('status', corr, slack, TEAM_ID, 'ada'), {
      signature: `v0=${'0'.repeat(64)}`,
    });
    expect(r.status).toBe(401);
    await sleep(800);
    expect(trunk.requests.length).toBe(before);
    expect(answersFor(slack, corr)).toEqual([]);
  });

  it('a timestamp older than 5 minutes gets 401 even when correctly signed', async () => {
    const before = trunk.requests.length;
    const corr = newCorr(ADMIN);
    const r = await postSigned(app, slashBody('status', corr, slack, TEAM_ID, 'ada'), {
      timestampSeconds: Math.floor(Date.now() / 1000) - 6 * 60,
    });
    expect(r.status).toBe(401);
    await sleep(500);
    expect(trunk.requests.length).toBe(before);
  });
});

describe('request verification, more', () => {
  // The README says "no older than five minutes"; Slack's own guide rejects |now - ts| > 5 min both ways.
  it('a correctly signed request stamped 6 minutes in the future gets 401 and changes nothing', async () => {
    const before = trunk.requests.length;
    const corr = newCorr(ADMIN);
    const r = await postSigned(app, slashBody('status', corr, slack, TEAM_ID, 'ada'), {
      timestampSeconds: Math.floor(Date.now() / 1000) + 6 * 60,
    });
    expect(r.status).toBe(401);
    await sleep(500);
    expect(trunk.requests.length).toBe(before);
  });

  it('a request without signature headers gets 401', async () => {
    const before = trunk.requests.length;
    const r = await fetch(`http://127.0.0.1:${app.port}/slack/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: slashBody('pause', newCorr(ADMIN), slack, TEAM_ID, 'ada'),
    });
    expect(r.status).toBe(401);
    await sleep(300);
    expect(trunk.requests.length).toBe(before);
  });

  it('a body signed with another secret gets 401', async () => {
    const corr = newCorr(ADMIN);
    const r = await postSigned(app, slashBody('pause', corr, slack, TEAM_ID, 'ada'), {
      signingSecret: 'not-the-secret',
    });
    expect(r.status).toBe(401);
  });
});

describe('read-only commands (Trunk answering in 2 s)', () => {
  const sent: Record<string, Sent> = {};
  const cmds = ['help', 'status', 'status acme/web:main', 'pr 12', `run ${RUN_ID}`, 'flaky', 'quarantined'];

  beforeAll(async () => {
    trunk.latencyMs = 2000;
    // Sent together, as a busy workspace would; each has its own channel and response_url.
    const results = await Promise.all(cmds.map((c) => command(c, MEMBER)));
    cmds.forEach((c, i) => {
      sent[c] = results[i]!;
    });
  });

  afterAll(() => {
    trunk.latencyMs = 0;
  });

  it.each(cmds)('`/mergequeue %s` is acked with 200 within 3 s', (c) => {
    expectAckedFast(sent[c]!, c);
  });

  it('help: usage with examples', async () => {
    const s = sent['help']!;
    const a = await waitForAnswer(slack, s.corr, s.ack, (t) => /status/.test(t) && /pause/.test(t));
    const text = a.map((x) => x.text).join('\n');
    for (const word of [
      'status',
      'pause',
      'drain',
      'resume',
      'concurrency',
      'pr',
      'run',
      'flaky',
      'quarantined',
    ]) {
      expect(text, `help mentions ${word}`).toMatch(new RegExp(`\\b${word}\\b`));
    }
    expect(text).toMatch(/\/mergequeue \w+/);
    expectClean(a, 'help');
  });

  it('status (default repo): state and enqueued PRs', async () => {
    const s = sent['status']!;
    const a = await waitForAnswer(slack, s.corr, s.ack, (t) => /4101/.test(t) && /4107/.test(t), 12_000);
    const text = a.map((x) => x.text).join('\n');
    expect(text).toMatch(/running/i);
    expect(text).toMatch(/acme\/web/);
    expect(text).toMatch(/Add login rate limiter|Fix checkout total rounding/);
    expectClean(a, 'status');
    const q = trunk.requests.find((r) => r.path === '/v1/getQueue' && r.at >= s.startedAt);
    expect(q?.body).toMatchObject({
      repo: { host: 'github.com', owner: 'acme', name: 'web' },
      targetBranch: 'main',
    });
    expect(q?.token).toBe(TRUNK_TOKEN);
  });

  it('status has buttons (pause/drain/resume or refresh)', async () => {
    const s = sent['status']!;
    const a = await waitForAnswer(slack, s.corr, s.ack, (t) => /4101/.test(t), 12_000);
    const buttons = a.flatMap((x) => buttonsIn(x.body));
    expect(buttons.map((b) => b.text).join(' | ')).toMatch(/pause|drain|refresh/i);
  });

  it('status acme/web:main: same queue by explicit target', async () => {
    const s = sent['status acme/web:main']!;
    const a = await waitForAnswer(slack, s.corr, s.ack, (t) => /4101/.test(t), 12_000);
    expectClean(a, 'status target');
  });

  it('pr 12: the PR and why it is not testing (base branch mismatch)', async () => {
    const s = sent['pr 12']!;
    const a = await waitForAnswer(slack, s.corr, s.ack, (t) => /Upgrade payment SDK/.test(t), 12_000);
    const text = a.map((x) => x.text).join('\n');
    expect(text).toMatch(/base|release-2/i);
    expectClean(a, 'pr');
    const q = trunk.requests.find((r) => r.path === '/v1/getSubmittedPullRequest' && r.at >= s.startedAt);
    expect(q?.body).toMatchObject({ pr: { number: 12 }, targetBranch: 'main' });
  });

  it('run <id>: status, checks and tested PRs', async () => {
    const s = sent[`run ${RUN_ID}`]!;
    const a = await waitForAnswer(slack, s.corr, s.ack, (t) => /4101/.test(t), 12_000);
    const text = a.map((x) => x.text).join('\n');
    expect(text).toMatch(/fail/i);
    expect(text).toMatch(/ci\/build|ci\/test/);
    expectClean(a, 'run');
  });

  it('flaky: tests failing in the last 24 h, not older ones', async () => {
    const s = sent['flaky']!;
    const a = await waitForAnswer(slack, s.corr, s.ack, (t) => /CheckoutSpec/.test(t), 12_000);
    const text = a.map((x) => x.text).join('\n');
    expect(text).toMatch(/LoginSpec/);
    expect(text).not.toMatch(/AncientSpec/);
    expectClean(a, 'flaky');
    const q = trunk.requests.find(
      (r) => r.path === '/v1/flaky-tests/list-failing-tests' && r.at >= s.startedAt,
    );
    expect(q?.body).toMatchObject({ org_url_slug: 'acme', repo: { owner: 'acme', name: 'web' } });
    const span = Date.parse(String(q?.body['end_time'])) - Date.parse(String(q?.body['start_time']));
    expect(Math.abs(span - 24 * 3600_000)).toBeLessThan(5 * 60_000);
  });

  it('quarantined: tests quarantined now', async () => {
    const s = sent['quarantined']!;
    const a = await waitForAnswer(slack, s.corr, s.ack, (t) => /SearchSpec/.test(t), 12_000);
    expectClean(a, 'quarantined');
  });
});

describe('bad input: a clear message saying what to type, and nothing changed', () => {
  it('unknown subcommand', async () => {
    const s = await command('frobnicate the queue', MEMBER);
    expectAckedFast(s, 'unknown');
    const a = await waitForAnswer(slack, s.corr, s.ack, (t) => t.trim().length > 0);
    const text = a.map((x) => x.text).join('\n');
    expect(text).toMatch(/frobnicate|unknown|not a command|don.t know|didn.t understand/i);
    expect(text).toMatch(GUIDANCE);
    expectClean(a, 'unknown');
  });

  it('malformed target', async () => {
    const before = trunk.requests.length;
    const s = await command('status acme/:main', MEMBER);
    expectAckedFast(s, 'malformed target');
    const a = await waitForAnswer(slack, s.corr, s.ack, (t) => t.trim().length > 0);
    const text = a.map((x) => x.text).join('\n');
    expect(text).toMatch(/owner\/repo|owner\/name|\[host\/\]/i);
    expectClean(a, 'malformed target');
    expect(trunk.requests.slice(before).filter((r) => r.path === '/v1/getQueue')).toEqual([]);
  });

  it('concurrency abc (admin) is refused with usage, no updateQueue', async () => {
    const r = await change('concurrency abc', ADMIN, 2500);
    expect(r.updates).toEqual([]);
    const text = r.answers.map((x) => x.text).join('\n');
    expect(text).toMatch(/concurrency/i);
    expect(text).toMatch(GUIDANCE);
    expectClean(r.answers, 'concurrency abc');
  });

  it('concurrency 0 (admin) is refused with the allowed range, no updateQueue', async () => {
    const r = await change('concurrency 0', ADMIN, 2500);
    expect(r.updates).toEqual([]);
    const text = r.answers.map((x) => x.text).join('\n');
    expect(text).toMatch(/\b1\b/); // says the least allowed value
    expect(text).toMatch(/concurrency/i);
    expectClean(r.answers, 'concurrency 0');
  });
});

describe('more bad input', () => {
  it.each([
    ['concurrency 4294967296', /4294967295/],
    ['concurrency 2.5', /whole|integer|number/i],
    ['concurrency', /how many|number|concurrency/i],
    ['pr abc', /number|#123|123/i],
    ['pr', /which PR|number|pr/i],
    ['run', /which|test ?run|id/i],
    ['pause nope/', /owner\/repo/],
  ])('`/mergequeue %s` is refused with usage and nothing is sent to Trunk', async (cmd, re) => {
    const s = await command(cmd, ADMIN);
    expectAckedFast(s, cmd);
    const a = await waitForAnswer(slack, s.corr, s.ack, (t) => t.trim().length > 0);
    await sleep(300);
    const text = a.map((x) => x.text).join('\n');
    expect(text).toMatch(re);
    expect(text).toMatch(GUIDANCE);
    expectClean(a, cmd);
    expect(trunk.requests.filter((r) => r.at >= s.startedAt && r.path !== '/v1/getQueue')).toEqual([]);
  });

  it('concurrency 4294967295 (the documented maximum) is accepted', async () => {
    const r = await change('concurrency 4294967295', ADMIN);
    expect(r.updates.map((u) => u.body['concurrency'])).toEqual([4294967295]);
    trunk.queue['concurrency'] = 2;
  });
});

describe('changing the queue', () => {
  it('a non-admin cannot pause: refused, no updateQueue', async () => {
    const r = await change('pause acme/web:main deploy freeze', MEMBER, 3000);
    expect(r.clicked, 'a non-admin should not even get a confirm button that works').toBe(false);
    expect(r.updates).toEqual([]);
    expect(trunk.queue['state']).toBe('running');
    const text = r.answers.map((x) => x.text).join('\n');
    expect(text).toMatch(/admin|permission|not allowed|operator|can.t|cannot|only/i);
    expectClean(r.answers, 'non-admin pause');
  });

  it('an admin pauses acme/web:main with a reason', async () => {
    const r = await change('pause acme/web:main deploy freeze', ADMIN);
    expect(r.updates.length, JSON.stringify(r.answers).slice(0, 2000)).toBe(1);
    expect(r.updates[0]!.body).toMatchObject({
      repo: { host: 'github.com', owner: 'acme', name: 'web' },
      targetBranch: 'main',
      state: 'paused',
    });
    expect(r.updates[0]!.token).toBe(TRUNK_TOKEN);
    const a = await waitForAnswer(slack, r.sent.corr, r.sent.ack, (t) => /paused/i.test(t));
    expectClean(a, 'pause');
  });

  it('an admin resumes (default repo)', async () => {
    const r = await change('resume', ADMIN);
    expect(r.updates.length, JSON.stringify(r.answers).slice(0, 2000)).toBe(1);
    expect(r.updates[0]!.body).toMatchObject({
      repo: { host: 'github.com', owner: 'acme', name: 'web' },
      targetBranch: 'main',
      state: 'running',
    });
    expectClean(r.answers, 'resume');
  });

  it('an admin sets concurrency 3', async () => {
    const r = await change('concurrency 3', ADMIN);
    expect(r.updates.length, JSON.stringify(r.answers).slice(0, 2000)).toBe(1);
    expect(r.updates[0]!.body).toMatchObject({ targetBranch: 'main', concurrency: 3 });
    expect(r.updates[0]!.body['state']).toBeUndefined();
    expectClean(r.answers, 'concurrency 3');
  });

  it('a non-admin cannot set concurrency', async () => {
    const r = await change('concurrency 4', MEMBER, 3000);
    expect(r.updates).toEqual([]);
    expect(trunk.queue['concurrency']).toBe(3);
  });
});

describe('buttons on the status message', () => {
  let msg: Answer;
  let corr: Corr;

  async function freshStatus(): Promise<void> {
    trunk.queue['state'] = 'running';
    trunk.queue['concurrency'] = 2;
    const s = await command('status', ADMIN);
    const a = await waitForAnswer(slack, s.corr, s.ack, (t) => /4101/.test(t), 12_000);
    msg = a.find((x) => buttonsIn(x.body).some((b) => /pause/i.test(b.text)))!;
    expect(msg, 'status message with a Pause button').toBeDefined();
    corr = s.corr;
  }

  async function click(label: RegExp, user = ADMIN): Promise<{ ack: Ack; t: number }> {
    const btn = buttonsIn(msg.body).find((b) => label.test(b.text) && !b.url);
    expect(btn, `button ${label}`).toBeDefined();
    const t = Date.now();
    const ack = await postSigned(
      app,
      clickBody(btn!, msg, { ...corr, user }, slack, TEAM_ID, user.toLowerCase()),
    );
    acks.push({ text: `click ${label}`, ack });
    expect(ack.status).toBe(200);
    expect(ack.ackMs).toBeLessThan(3000);
    return { ack, t };
  }

  const repliesSince = (t: number): string =>
    [
      ...slack.calls.filter((c) => c.at >= t && c.method.startsWith('chat.')).map((c) => c.body),
      ...slack.responses.filter((r) => r.at >= t).map((r) => r.body),
    ]
      .map((b) => visibleText(b).join('\n'))
      .join('\n');

  async function until(pred: () => boolean, ms = 6000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!pred() && Date.now() < deadline) await sleep(50);
  }

  /** Modals the app opened since `t` for clicks on this status message (views.open with a click's trigger_id). */
  const modalsSince = (t: number): SlackCall[] =>
    slack.calls.filter(
      (c) =>
        c.at >= t &&
        c.method === 'views.open' &&
        String(c.body['trigger_id'] ?? '').startsWith(`${corr.trigger}.click`),
    );

  /** Submits an opened modal as Slack does, with `reason` typed into its text field (null: left empty). */
  async function submitModal(opened: SlackCall, reason: string | null, user = ADMIN): Promise<Ack> {
    const view = opened.body['view'] as Json;
    const input = ((view['blocks'] as Json[] | undefined) ?? []).find((b) => b['type'] === 'input');
    const changes = input ? { [String(input['block_id'])]: reason } : {};
    const r = await postSigned(app, viewSubmissionBody(view, opened.viewId ?? '', user, TEAM_ID, changes));
    acks.push({ text: 'reason modal submit', ack: r });
    expect(r.status).toBe(200);
    expect(r.ackMs).toBeLessThan(3000);
    return r;
  }

  /** Clicks Pause or Drain and submits the reason modal it opens, as a person would. */
  async function clickThroughModal(label: RegExp, reason: string | null): Promise<{ t: number }> {
    const { t } = await click(label);
    await until(() => modalsSince(t).length > 0);
    const opened = modalsSince(t)[0];
    expect(opened, `a modal opened by ${label}`).toBeDefined();
    await submitModal(opened!, reason);
    return { t };
  }

  it('a non-admin click on Pause is refused and changes nothing', async () => {
    await freshStatus();
    const { t } = await click(/^pause$/i, MEMBER);
    await until(() => /can.t|cannot|only|admin|operator/i.test(repliesSince(t)));
    expect(updatesSince(t)).toEqual([]);
    expect(repliesSince(t)).toMatch(/can.t|cannot|only|admin|operator/i);
  });

  it('an admin click on Pause pauses once, even when double-clicked, and updates the message in place', async () => {
    await freshStatus();
    const [a, b] = await Promise.all([click(/^pause$/i), click(/^pause$/i)]);
    const t = Math.min(a.t, b.t);
    // Pause asks for a reason first: every modal the two clicks opened is submitted, as a hurried person would.
    await until(() => modalsSince(t).length > 0);
    await sleep(300); // room for the second click's modal
    expect(modalsSince(t).length, 'a reason modal').toBeGreaterThan(0);
    expect(updatesSince(t), 'nothing changed before the modal is submitted').toEqual([]);
    await Promise.all(modalsSince(t).map((m) => submitModal(m, 'deploy freeze')));
    await until(
      () => updatesSince(t).length > 0 && slack.calls.some((c) => c.at >= t && c.method === 'chat.update'),
    );
    await sleep(800); // room for a wrongly counted second click to show up
    expect(updatesSince(t).map((u) => u.body)).toEqual([
      { repo: { host: 'github.com', owner: 'acme', name: 'web' }, targetBranch: 'main', state: 'paused' },
    ]);
    const updated = slack.calls.filter(
      (c) => c.at >= t && c.method === 'chat.update' && c.body['ts'] === msg.ts,
    );
    expect(updated.length, 'chat.update of the status message').toBeGreaterThan(0);
    expect(visibleText(updated.at(-1)!.body).join('\n')).toMatch(/paused/i);
  });

  // README: status shows "state, settings and enqueued PRs" and "a click updates the message in place". After a
  // click the message in place should still list the enqueued PRs (the updateQueue answer has none, so
  // the app needs a getQueue to rebuild it).
  it('the status message updated after a click still lists the enqueued PRs', async () => {
    const last = slack.calls.filter((c) => c.method === 'chat.update' && c.body['ts'] === msg.ts).at(-1);
    expect(last, 'chat.update of the status message').toBeDefined();
    expect(visibleText(last!.body).join('\n')).toMatch(/4101/);
  });

  it('a stale Pause (queue already paused elsewhere) sends no updateQueue and says so', async () => {
    await freshStatus();
    trunk.queue['state'] = 'paused'; // changed in Trunk's UI meanwhile
    const { t } = await clickThroughModal(/^pause$/i, null);
    await until(() => /already paused/i.test(repliesSince(t)));
    expect(updatesSince(t)).toEqual([]);
    expect(repliesSince(t)).toMatch(/already paused|is paused/i);
  });

  it('a stale Concurrency + (changed elsewhere) is not applied on top of the new value', async () => {
    await freshStatus();
    trunk.queue['concurrency'] = 3;
    const { t } = await click(/\+/);
    await until(() => /\b3\b/.test(repliesSince(t)));
    expect(updatesSince(t)).toEqual([]);
    expect(repliesSince(t)).toMatch(/\b3\b/);
  });

  it('Concurrency + on a current message raises concurrency by one', async () => {
    await freshStatus();
    const { t } = await click(/\+/);
    await until(() => updatesSince(t).length > 0);
    expect(updatesSince(t).map((u) => u.body['concurrency'])).toEqual([3]);
  });

  it('Concurrency − at concurrency 1 sends nothing below 1 to Trunk', async () => {
    trunk.queue['state'] = 'running';
    trunk.queue['concurrency'] = 1;
    const s = await command('status', ADMIN);
    const a = await waitForAnswer(slack, s.corr, s.ack, (t) => /4101/.test(t), 12_000);
    const m = a.find((x) => buttonsIn(x.body).length > 0)!;
    const dec = buttonsIn(m.body).find((b) => /−|-/.test(b.text) && /concurrency/i.test(b.text));
    // Hiding the button at 1 is a fine answer (today's behaviour); if it is shown, a click must not go below 1.
    if (dec) {
      msg = m;
      corr = s.corr;
      const { t } = await click(/concurrency\s*[−-]/i);
      await until(() => repliesSince(t).length > 0);
      await sleep(500);
      expect(updatesSince(t).filter((u) => (u.body['concurrency'] as number) < 1)).toEqual([]);
      expect(trunk.queue['concurrency']).toBe(1);
    }
    trunk.queue['concurrency'] = 2;
  });

  // README: "Pause and Drain open a small form for an optional reason (announced and audited); Resume asks
  // a quick confirmation". The form is their confirmation: nothing changes until it is submitted.
  it('Pause and Drain open a modal asking for an optional reason, and change nothing until it is submitted', async () => {
    await freshStatus();
    const risky = buttonsIn(msg.body).filter((b) => /^(pause|drain)$/i.test(b.text));
    expect(risky.length).toBe(2);
    for (const b of risky) {
      const { t } = await click(new RegExp(`^${b.text}$`, 'i'));
      await until(() => modalsSince(t).length > 0, 3000);
      await sleep(500);
      const opened = modalsSince(t)[0];
      expect({
        button: b.text,
        changedWithoutConfirmation: updatesSince(t).length > 0,
        opened: opened !== undefined,
      }).toEqual({
        button: b.text,
        changedWithoutConfirmation: false,
        opened: true,
      });
      const view = opened!.body['view'] as Json;
      const inputs = ((view['blocks'] as Json[] | undefined) ?? []).filter((x) => x['type'] === 'input');
      expect(inputs.length, `${b.text}: one reason field`).toBe(1);
      expect(inputs[0]!['optional'], `${b.text}: the reason may be left empty`).toBe(true);
      expect(view['submit'], `${b.text}: a submit button`).toBeDefined();
      expect(trunk.queue['state']).toBe('running');
    }
  });

  it('Drain through its modal drains the queue and the reason given is shown', async () => {
    await freshStatus();
    const { t } = await clickThroughModal(/^drain$/i, 'release cut 4.2');
    await until(() => updatesSince(t).length > 0 && /release cut 4\.2/.test(repliesSince(t)));
    expect(updatesSince(t).map((u) => u.body['state'])).toEqual(['draining']);
    expect(repliesSince(t)).toMatch(/release cut 4\.2/);
    trunk.queue['state'] = 'running';
  });

  // Resume is the safe direction: a quick confirm dialog on the button, no modal.
  it('Resume on a paused queue asks with a confirm dialog, then resumes', async () => {
    trunk.queue['state'] = 'paused';
    const s = await command('status', ADMIN);
    const a = await waitForAnswer(slack, s.corr, s.ack, (x) => /4101/.test(x), 12_000);
    msg = a.find((x) => buttonsIn(x.body).some((b) => /^resume$/i.test(b.text)))!;
    expect(msg, 'status message with a Resume button').toBeDefined();
    corr = s.corr;
    expect(buttonsIn(msg.body).find((b) => /^resume$/i.test(b.text))?.hasConfirm).toBe(true);
    const { t } = await click(/^resume$/i);
    await until(() => updatesSince(t).length > 0);
    expect(updatesSince(t).map((u) => u.body['state'])).toEqual(['running']);
    expect(modalsSince(t)).toEqual([]);
  });
});

describe('upstream faults give a useful message, not a stack trace', () => {
  afterAll(() => trunk.failNext(0, 200, ''));

  async function faulted(cmd: string, pred: RegExp, timeoutMs = 20_000): Promise<string> {
    const s = await command(cmd, ADMIN);
    expectAckedFast(s, cmd);
    const a = await waitForAnswer(slack, s.corr, s.ack, (t) => pred.test(t), timeoutMs);
    expectClean(a, cmd);
    trunk.failNext(0, 200, '');
    return a.map((x) => x.text).join('\n');
  }

  it('Trunk 401: says the token was rejected and how to fix it', async () => {
    trunk.failNext(1, 401, 'Unauthorized', '/v1/getQueue');
    const text = await faulted('status', /token/i);
    expect(text).toMatch(/connect|TRUNK_API_TOKEN|admin/i);
  });

  it('Trunk 503 on every attempt: says Trunk is unavailable, try later', async () => {
    trunk.failNext(50, 503, 'Service Unavailable', '/v1/getQueue');
    const text = await faulted('status', /unavailable|not reachable|unreachable|try again|later|down/i);
    expect(text.length).toBeGreaterThan(10);
  });

  it('Trunk 400 on updateQueue: passes on what Trunk said', async () => {
    trunk.failNext(1, 400, 'concurrency must be at most 10 for this plan', '/v1/updateQueue');
    const text = await faulted('concurrency 7', /at most 10/);
    expect(text).toMatch(/refused|rejected|invalid|could not|couldn.t/i);
    trunk.queue['concurrency'] = 2;
  });

  it('unknown queue (404): says it was not found', async () => {
    const text = await faulted('status acme/nope:main', /not find|not found|no (merge )?queue|unknown/i);
    expect(text).toMatch(GUIDANCE);
  });

  it('Trunk 429 once (no Retry-After): retried, the user gets the queue', async () => {
    trunk.failNext(1, 429, 'Too Many Requests', '/v1/getQueue');
    const text = await faulted('status', /4101|limit|try again/i);
    expect(text).toMatch(/4101/);
  });

  it('Trunk 502 twice then fine: retried, the user gets the queue', async () => {
    trunk.failNext(2, 502, 'Bad Gateway', '/v1/getQueue');
    const text = await faulted('status', /4101|not reachable|try again/i);
    expect(text).toMatch(/4101/);
  });

  it('Trunk answering 200 with a non-JSON body: a useful message, no crash', async () => {
    trunk.failNext(5, 200, '<html><body>Gateway maintenance</body></html>', '/v1/getQueue');
    const text = await faulted('status', /trunk/i);
    expect(text).toMatch(/unexpected|could not read|invalid|malformed|not understand|try again|wrong/i);
    const h = await fetch(`http://127.0.0.1:${app.port}/healthz`);
    expect(h.status).toBe(200);
  });

  it('404 answers name what was not found (`pr 999` names PR #999 and the queue)', async () => {
    const s = await command('pr 999', MEMBER);
    expectAckedFast(s, 'pr 999');
    const a = await waitForAnswer(slack, s.corr, s.ack, (t) => /#999/.test(t));
    expectClean(a, 'pr 999');
    expect(a.map((x) => x.text).join('\n')).toMatch(/PR #999\b.*acme\/web:main/);
  });
});

describe('more commands', () => {
  let settingsView: Json | undefined;
  let settingsViewId = '';
  it('drain (admin) sets state draining', async () => {
    trunk.queue['state'] = 'running';
    const r = await change('drain release cut', ADMIN);
    expect(r.updates.map((u) => u.body['state'])).toEqual(['draining']);
    expect(r.answers.map((a) => a.text).join('\n')).toMatch(/drain/i);
    trunk.queue['state'] = 'running';
  });

  it('the reason given to pause is shown in the answer', async () => {
    const r = await change('pause acme/web:main hotfix in progress', ADMIN);
    expect(r.updates.length).toBe(1);
    const a = await waitForAnswer(slack, r.sent.corr, r.sent.ack, (t) => /hotfix in progress/.test(t));
    expect(a.length).toBeGreaterThan(0);
    trunk.queue['state'] = 'running';
  });

  it('settings (admin) opens a modal with the trigger_id, then fills it with the queue settings', async () => {
    const s = await command('settings', ADMIN);
    expectAckedFast(s, 'settings');
    const a = await waitForAnswer(
      slack,
      s.corr,
      s.ack,
      (_t, ans) => ans.some((x) => x.via === 'views.open'),
      12_000,
    );
    const opened = a.find((x) => x.via === 'views.open')!;
    const view = opened.body['view'] as Record<string, unknown>;
    settingsViewId = opened.viewId ?? '';
    expect(view['type']).toBe('modal');
    // The first view may be a "loading" placeholder, replaced by views.update (view_id from views.open).
    const deadline = Date.now() + 12_000;
    const hasFields = (v: unknown): boolean => /[Cc]oncurrency|[Bb]atch|[Tt]imeout/.test(JSON.stringify(v));
    let final: unknown = view;
    while (!hasFields(final) && Date.now() < deadline) {
      const upd = slack.calls.filter(
        (c) => c.at >= s.startedAt && c.method === 'views.update' && c.body['view_id'] === settingsViewId,
      );
      if (upd.length) final = upd.at(-1)!.body['view'];
      await sleep(60);
    }
    if (process.env['ACC_DEBUG']) console.log(JSON.stringify(final, null, 1));
    expect(hasFields(final), JSON.stringify(final).slice(0, 800)).toBe(true);
    settingsView = final as Json;
  });

  it('submitting the settings modal with 0 minutes is refused in the modal, nothing sent to Trunk', async () => {
    expect(settingsView, 'the settings modal').toBeDefined();
    const t = Date.now();
    const r = await postSigned(
      app,
      viewSubmissionBody(settingsView!, settingsViewId, ADMIN, TEAM_ID, { testingTimeoutMinutes: '0' }),
    );
    acks.push({ text: 'settings submit 0', ack: r });
    expect(r.status).toBe(200);
    expect(r.ackMs).toBeLessThan(3000);
    expect(r.text).toMatch(/"response_action":"errors"/);
    expect(r.text).toMatch(/testingTimeoutMinutes/);
    await sleep(800);
    expect(updatesSince(t)).toEqual([]);
  });

  it('submitting the settings modal sends only the changed field to Trunk', async () => {
    expect(settingsView, 'the settings modal').toBeDefined();
    const t = Date.now();
    const r = await postSigned(
      app,
      viewSubmissionBody(settingsView!, settingsViewId, ADMIN, TEAM_ID, { testingTimeoutMinutes: '90' }),
    );
    acks.push({ text: 'settings submit 90', ack: r });
    expect(r.status).toBe(200);
    expect(r.ackMs).toBeLessThan(3000);
    const deadline = Date.now() + 8000;
    while (updatesSince(t).length === 0 && Date.now() < deadline) await sleep(50);
    expect(updatesSince(t).map((u) => u.body)).toEqual([
      {
        repo: { host: 'github.com', owner: 'acme', name: 'web' },
        targetBranch: 'main',
        testingTimeoutMinutes: 90,
      },
    ]);
  });
});

describe('logs', () => {
  it("stdout carries JSON log lines (besides npm's own banner)", () => {
    const lines = app
      .stdout()
      .split('\n')
      .filter((l) => l.trim() && !l.startsWith('>'));
    expect(lines.length).toBeGreaterThan(0);
    const bad = lines.filter((l) => {
      try {
        JSON.parse(l);
        return false;
      } catch {
        return true;
      }
    });
    expect(bad.slice(0, 5)).toEqual([]);
  });
});

describe('targets and channel defaults', () => {
  it('`status :develop` asks Trunk for branch develop of the default repo, and says it was not found', async () => {
    const s = await command('status :develop', MEMBER);
    expectAckedFast(s, 'status :develop');
    const a = await waitForAnswer(slack, s.corr, s.ack, (t) =>
      /not find|not found|unknown|no queue|found no/i.test(t),
    );
    expectClean(a, 'status :develop');
    // The answer names the queue it looked up, not just "Not Found".
    expect(a.map((x) => x.text).join('\n')).toContain('acme/web:develop');
    const q = trunk.requests.filter((r) => r.path === '/v1/getQueue' && r.at >= s.startedAt);
    expect(q.map((r) => r.body)).toEqual([
      { repo: { host: 'github.com', owner: 'acme', name: 'web' }, targetBranch: 'develop' },
    ]);
  });

  it("`config channel` sets this channel's default queue, used by `status` there and nowhere else", async () => {
    const set = await command('config channel acme/web:develop', ADMIN);
    expectAckedFast(set, 'config channel');
    await waitForAnswer(slack, set.corr, set.ack, (t) => /acme\/web:develop/.test(t));
    // Same channel, another user, no target.
    const corr = { ...newCorr(MEMBER), channel: set.corr.channel };
    const t = Date.now();
    const ack = await postSigned(app, slashBody('status', corr, slack, TEAM_ID, 'max'));
    expect(ack.status).toBe(200);
    await waitForAnswer(slack, corr, ack, (x) => x.trim().length > 0);
    const branches = trunk.requests
      .filter((r) => r.path === '/v1/getQueue' && r.at >= t)
      .map((r) => r.body['targetBranch']);
    expect(branches).toEqual(['develop']);
    // Elsewhere the workspace default (DEFAULT_REPO acme/web:main) still applies.
    const other = await command('status', MEMBER);
    await waitForAnswer(slack, other.corr, other.ack, (x) => /4101/.test(x), 12_000);
  });
});

describe('digests', () => {
  let id = '';
  const channel = 'CDIGESTACC';

  // add/run act on this channel; list/remove are asked from a fresh channel so earlier posts are not mixed in.
  async function inChannel(text: string, ch = channel): Promise<{ answers: Answer[]; t: number }> {
    const corr = { ...newCorr(ADMIN), channel: ch };
    const t = Date.now();
    const ack = await postSigned(app, slashBody(text, corr, slack, TEAM_ID, 'ada'));
    acks.push({ text, ack });
    expect(ack.status).toBe(200);
    expect(ack.ackMs).toBeLessThan(3000);
    const r = await waitForAnswer(slack, corr, ack, (x) => x.trim().length > 0);
    await sleep(200);
    return { answers: answersFor(slack, corr, ack).length ? answersFor(slack, corr, ack) : r, t };
  }

  it('digest add: confirms with an id, the schedule and the timezone', async () => {
    const { answers } = await inChannel('digest add failing acme/web 09:30 Europe/Berlin weekdays');
    const text = answers.map((a) => a.text).join('\n');
    expect(text).toMatch(/09:30/);
    expect(text).toMatch(/Europe\/Berlin/);
    id = text.match(/`([A-Za-z0-9_-]{3,})`/)?.[1] ?? '';
    expect(id, text).not.toBe('');
    // If it says when the first one is due (as <!date^unix^…>, so each reader sees local time), that
    // instant must be a weekday at 09:30 in Berlin, in the next few days.
    const due = text.match(/<!date\^(\d+)\^/)?.[1];
    if (due) {
      const at = new Date(Number(due) * 1000);
      const fmt = new Intl.DateTimeFormat('en-GB', {
        timeZone: 'Europe/Berlin',
        weekday: 'short',
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
      });
      const local = fmt.format(at);
      expect(local).toMatch(/^(Mon|Tue|Wed|Thu|Fri) 09:30$/);
      expect(at.getTime()).toBeGreaterThan(Date.now());
      expect(at.getTime() - Date.now()).toBeLessThan(4 * 24 * 3600_000);
    }
  });

  it('digest list shows it', async () => {
    const { answers } = await inChannel('digest list', 'CDIGLIST1');
    expect(answers.map((a) => a.text).join('\n')).toContain(id);
  });

  it('digest run posts the failing tests to the channel', async () => {
    const { t } = await inChannel(`digest run ${id}`);
    const deadline = Date.now() + 10_000;
    const posted = (): string =>
      slack.calls
        .filter((c) => c.at >= t && c.method === 'chat.postMessage' && c.body['channel'] === channel)
        .map((c) => visibleText(c.body).join('\n'))
        .join('\n');
    while (!/CheckoutSpec/.test(posted()) && Date.now() < deadline) await sleep(60);
    expect(posted()).toMatch(/CheckoutSpec computes totals/);
    expect(posted()).toMatch(/LoginSpec/);
    expect(posted()).not.toMatch(/AncientSpec/);
  });

  it('digest remove removes it', async () => {
    const { answers } = await inChannel(`digest remove ${id}`, 'CDIGRM1');
    expect(answers.map((a) => a.text).join('\n')).toMatch(/remov|delet/i);
    const list = await inChannel('digest list', 'CDIGLIST2');
    expect(list.answers.map((a) => a.text).join('\n')).not.toContain(`\`${id}\``);
  });

  it('a digest with nothing to report posts nothing in the channel, and says so to whoever ran it', async () => {
    const ch = 'CDIGEMPTY1';
    const added = await inChannel('digest add failing acme/quiet 08:00 UTC daily', ch);
    const emptyId = added.answers
      .map((a) => a.text)
      .join('\n')
      .match(/`([A-Za-z0-9_-]{3,})`/)?.[1];
    expect(emptyId).toBeDefined();
    const { answers, t } = await inChannel(`digest run ${emptyId}`, ch);
    await sleep(1500);
    const posted = slack.calls.filter(
      (c) => c.at >= t && c.method === 'chat.postMessage' && c.body['channel'] === ch,
    );
    expect(posted.map((c) => visibleText(c.body).join(' ').slice(0, 200))).toEqual([]);
    expect(answers.map((a) => a.text).join('\n')).toMatch(/nothing|no failing|no tests|skipp|empty/i);
    await inChannel(`digest remove ${emptyId}`, 'CDIGRM2');
  });

  it('digest add with a bad time or timezone says what to type', async () => {
    const { answers } = await inChannel('digest add failing acme/web 25:99 Mars/Olympus', 'CDIGBAD1');
    const text = answers.map((a) => a.text).join('\n');
    expect(text).toMatch(/25:99|Mars\/Olympus|time|timezone/i);
    expect(text).toMatch(GUIDANCE);
    const list = await inChannel('digest list', 'CDIGLIST3');
    expect(list.answers.map((a) => a.text).join('\n')).not.toMatch(/Mars/);
  });
});

describe('connect (store a Trunk token from Slack)', () => {
  // README: "The Trunk token can instead be entered in Slack with /mergequeue connect (then ENCRYPTION_KEY is
  // needed, because it is stored encrypted)". This app runs without ENCRYPTION_KEY, so a token cannot be
  // stored: the person is told why at once (naming ENCRYPTION_KEY), not handed a form that cannot work.
  // The modal itself (rejected token, slow Trunk) is exercised in oauth.test.ts, whose app has a key.
  it('without ENCRYPTION_KEY, connect says so and opens no form', async () => {
    const s = await command('connect', ADMIN);
    expectAckedFast(s, 'connect');
    const a = await waitForAnswer(slack, s.corr, s.ack, (t) => /ENCRYPTION_KEY/.test(t));
    expect(a.some((x) => x.via === 'views.open')).toBe(false);
  });
});

describe('operators', () => {
  it('an admin names a member operator; the member may then change concurrency; removal takes it back', async () => {
    const add = await command('config operators add <@UMEMBER001|max>', ADMIN);
    expectAckedFast(add, 'operators add');
    await waitForAnswer(slack, add.corr, add.ack, (t) => /UMEMBER001|max/.test(t));
    const r = await change('concurrency 5', MEMBER);
    expect(r.updates.map((u) => u.body['concurrency'])).toEqual([5]);
    const rm = await command('config operators remove <@UMEMBER001|max>', ADMIN);
    expectAckedFast(rm, 'operators remove');
    await waitForAnswer(slack, rm.corr, rm.ack, (t) => /UMEMBER001|max/.test(t));
    const again = await change('concurrency 4', MEMBER, 2500);
    expect(again.updates).toEqual([]);
  });

  it('a member cannot make themself an operator', async () => {
    const s = await command('config operators add <@UMEMBER001|max>', MEMBER);
    expectAckedFast(s, 'member operators add');
    const a = await waitForAnswer(slack, s.corr, s.ack, (t) => t.trim().length > 0);
    expect(a.map((x) => x.text).join('\n')).toMatch(/can.t|cannot|only|admin|not allowed/i);
    const r = await change('concurrency 4', MEMBER, 2500);
    expect(r.updates).toEqual([]);
  });
});

describe('the events endpoint', () => {
  it('answers url_verification with the challenge', async () => {
    const body = JSON.stringify({ token: 'legacy', challenge: 'chal-8812', type: 'url_verification' });
    const r = await postSigned(app, body, { contentType: 'application/json' });
    expect(r.status).toBe(200);
    expect(r.text).toContain('chal-8812');
  });

  it('answers Slack ssl_check with 200', async () => {
    const r = await postSigned(app, 'ssl_check=1&token=legacy');
    expect(r.status).toBe(200);
  });
});

// README: the app "answers every request within 3 seconds and does slow Trunk work after the answer",
// through the response_url (valid 30 min); Trunk's own clients wait 30 s. A Trunk answering in 4 s is slow
// but healthy: the user should get the real answer, not "Trunk did not answer in time".
describe('a slow (4 s) but healthy Trunk', () => {
  afterAll(() => {
    trunk.latencyMs = 0;
  });

  it('status still answers with the queue', async () => {
    trunk.latencyMs = 4000;
    const s = await command('status', MEMBER);
    expectAckedFast(s, 'status with slow Trunk');
    // Fails with every answer received if the queue never shows up.
    const a = await waitForAnswer(slack, s.corr, s.ack, (t) => /4101/.test(t), 9000);
    expectClean(a, 'status with slow Trunk');
  });

  // A change Trunk applies slowly: the app must not tell the user "nothing was changed" when Trunk did change it.
  it('pause with updateQueue taking 4 s reports the pause', async () => {
    trunk.latencyMs = 0;
    trunk.queue['state'] = 'running';
    trunk.latencyFor.set('/v1/updateQueue', 4000);
    try {
      const s = await command('pause acme/web:main slow trunk', ADMIN);
      expectAckedFast(s, 'pause with slow Trunk');
      const a = await waitForAnswer(slack, s.corr, s.ack, (t) => /paused/i.test(t), 9000).catch(
        (e: unknown) => String(e),
      );
      expect(trunk.queue['state']).toBe('paused'); // Trunk did apply it
      const text = typeof a === 'string' ? a : a.map((x) => x.text).join('\n');
      expect(text).not.toMatch(/nothing was changed/i);
      expect(text).toMatch(/paused/i);
    } finally {
      trunk.latencyFor.clear();
      trunk.queue['state'] = 'running';
    }
  });
});

/** Slack's documented limits: 50 blocks a message, section text 3000, header 150, button text 75, value 2000. */
function expectWithinSlackLimits(body: Json, label: string): void {
  const blocks = (body['blocks'] as Json[] | undefined) ?? [];
  expect(blocks.length, `${label}: blocks`).toBeLessThanOrEqual(50);
  for (const b of blocks) {
    const text = (b['text'] as Json | undefined)?.['text'];
    if (b['type'] === 'header') expect(String(text).length, `${label}: header`).toBeLessThanOrEqual(150);
    if (b['type'] === 'section' && typeof text === 'string') {
      expect(text.length, `${label}: section text`).toBeLessThanOrEqual(3000);
    }
    for (const f of (b['fields'] as Json[] | undefined) ?? []) {
      expect(String(f['text']).length, `${label}: field`).toBeLessThanOrEqual(2000);
    }
  }
  for (const btn of buttonsIn(body)) {
    expect(btn.text.length, `${label}: button text`).toBeLessThanOrEqual(75);
    expect((btn.value ?? '').length, `${label}: button value`).toBeLessThanOrEqual(2000);
  }
}

describe('big queues and long lists stay within Slack limits', () => {
  const extraPrs = 120;
  const extraTests = 250;

  beforeAll(() => {
    for (let i = 0; i < extraPrs; i++) {
      trunk.enqueued.push({
        ...trunk.enqueued[0],
        prNumber: 5000 + i,
        id: `pr-${5000 + i}`,
        prTitle:
          i === 0
            ? 'Ping <!channel> & <@UADMIN0001> *urgent* fix'
            : `Refactor module ${i} with a fairly long descriptive title to use up some space in the message`,
      });
    }
    const base = trunk.failing[0]!;
    for (let i = 0; i < extraTests; i++) {
      trunk.failing.push({
        ...base,
        id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
        name: `GeneratedSpec case ${i} does something`,
        status: { reason: 'flaky', timestamp: new Date(Date.now() - (i + 1) * 60_000).toISOString() },
      });
    }
  });

  afterAll(() => {
    trunk.enqueued.splice(2);
    trunk.failing.splice(3);
  });

  it('status with 122 enqueued PRs: within limits, PR titles escaped (no <!channel> ping)', async () => {
    const s = await command('status', MEMBER);
    expectAckedFast(s, 'big status');
    const a = await waitForAnswer(slack, s.corr, s.ack, (t) => /4101/.test(t), 12_000);
    for (const x of a) expectWithinSlackLimits(x.body, 'status');
    const all = a.map((x) => allStrings(x.body).join('\n')).join('\n');
    expect(all).not.toContain('<!channel>');
    expect(a.map((x) => x.text).join('\n')).toMatch(/122/); // says how many are enqueued
  });

  it('flaky with 252 failing tests: pages through Trunk by tokens, counts them all, within limits', async () => {
    const s = await command('flaky', MEMBER);
    expectAckedFast(s, 'big flaky');
    const a = await waitForAnswer(slack, s.corr, s.ack, (t) => /CheckoutSpec|GeneratedSpec/.test(t), 15_000);
    for (const x of a) expectWithinSlackLimits(x.body, 'flaky');
    const calls = trunk.requests.filter(
      (r) => r.path === '/v1/flaky-tests/list-failing-tests' && r.at >= s.startedAt,
    );
    expect(calls.every((c) => c.status === 200)).toBe(true);
    expect(calls.length).toBeGreaterThanOrEqual(3);
    expect(a.map((x) => x.text).join('\n')).toMatch(/252/);
  });
});

// Trunk as deployments really answer (the client parses tolerantly, README's src/trunk/ row): enums in any
// case (older deployments answer PAUSED), unknown values kept and shown, extra fields ignored,
// requiredStatuses may be null, integer settings may read 0.
describe('a Trunk with quirks', () => {
  let saved: Json;
  beforeAll(() => {
    saved = { ...trunk.queue };
    Object.assign(trunk.queue, {
      state: 'PAUSED',
      mode: 'PARALLEL',
      requiredStatuses: null,
      batchingMinSize: 0,
      pendingFailureDepth: 0,
      mergeMethod: 'fast_forward',
      brandNewField: { rollout: 'beta' },
    });
  });
  afterAll(() => {
    for (const k of Object.keys(trunk.queue)) delete trunk.queue[k];
    Object.assign(trunk.queue, saved);
  });

  it('status shows the queue (PAUSED read as paused, unknown merge method shown), no error', async () => {
    const s = await command('status', ADMIN);
    expectAckedFast(s, 'quirky status');
    const a = await waitForAnswer(
      slack,
      s.corr,
      s.ack,
      (t) => /4101/.test(t) || /wrong|error|unexpected/i.test(t),
      12_000,
    );
    const text = a.map((x) => x.text).join('\n');
    expect(text).toMatch(/4101/);
    expect(text).toMatch(/paused/i);
    expect(text).toMatch(/fast[_ ]forward/i);
    expectClean(a, 'quirky status');
    // Paused, so the message offers Resume; clicking it sends lowercase `running`.
    const m = a.find((x) => buttonsIn(x.body).some((b) => /resume/i.test(b.text)));
    expect(m, 'a Resume button on a PAUSED queue').toBeDefined();
    const btn = buttonsIn(m!.body).find((b) => /resume/i.test(b.text))!;
    const t = Date.now();
    const c = await postSigned(app, clickBody(btn, m!, s.corr, slack, TEAM_ID, 'ada'));
    expect(c.status).toBe(200);
    const deadline = Date.now() + 6000;
    while (updatesSince(t).length === 0 && Date.now() < deadline) await sleep(50);
    expect(updatesSince(t).map((u) => u.body['state'])).toEqual(['running']);
  });
});

describe('Slack faults', () => {
  afterAll(() => slack.channelErrors.clear());

  it('when the bot is not in the channel, the user still gets the answer (no silence)', async () => {
    slack.channelErrors.set('CPRIVATE01', 'not_in_channel');
    trunk.queue['state'] = 'running';
    const corr = { ...newCorr(ADMIN), channel: 'CPRIVATE01' };
    const t = Date.now();
    const ack = await postSigned(
      app,
      slashBody('pause acme/web:main incident 7', corr, slack, TEAM_ID, 'ada'),
    );
    acks.push({ text: 'pause in private channel', ack });
    expect(ack.status).toBe(200);
    const deadline = Date.now() + 8000;
    const delivered = (): string =>
      [
        ...slack.responses.filter((r) => r.id === corr.id).map((r) => r.body),
        ...slack.calls
          .filter((c) => c.at >= t && c.body['channel'] === 'CPRIVATE01' && !c.error)
          .map((c) => c.body),
      ]
        .map((b) => visibleText(b).join('\n'))
        .join('\n');
    while (!/paused/i.test(delivered()) && Date.now() < deadline) await sleep(60);
    expect(updatesSince(t).map((u) => u.body['state'])).toEqual(['paused']);
    expect(delivered()).toMatch(/paused/i);
    trunk.queue['state'] = 'running';
  });

  it('a 429 from chat.postMessage is waited out (Retry-After) and the message is posted', async () => {
    trunk.queue['state'] = 'running';
    slack.rateLimitNext('chat.postMessage', 1, 1);
    const r = await change('pause acme/web:main rate limited', ADMIN);
    expect(r.updates.length).toBe(1);
    const posts = (): typeof slack.calls =>
      slack.calls.filter((c) => c.at >= r.sent.startedAt && c.method === 'chat.postMessage');
    const deadline = Date.now() + 6000;
    while (!posts().some((c) => !c.status || c.status === 200) && Date.now() < deadline) await sleep(60);
    const statuses = posts().map((c) => c.status ?? 200);
    expect(statuses[0]).toBe(429);
    expect(statuses).toContain(200);
    const retried = posts().find((c) => (c.status ?? 200) === 200)!;
    expect(retried.at - posts()[0]!.at).toBeGreaterThanOrEqual(900); // honoured Retry-After: 1
    trunk.queue['state'] = 'running';
  });
});

describe('hygiene over the whole run', () => {
  it('every ack was 200 within 3 s', () => {
    const slow = acks.filter((a) => a.ack.status !== 200 || a.ack.ackMs >= 3000);
    expect(slow.map((a) => `${a.text}: ${a.ack.status} in ${Math.round(a.ack.ackMs)} ms`)).toEqual([]);
  });

  it('no Slack-bound text carries a stack trace or a secret', () => {
    // A Web API call's `token` parameter is authentication (Bolt's auth.test sends it so), not message text.
    const bodies = [
      ...slack.calls.map(({ body: { token: _auth, ...rest } }) => rest),
      ...slack.responses.map((r) => r.body),
    ];
    const all = [...bodies.map((b) => allStrings(b).join('\n')), ...acks.map((a) => a.ack.text)].join('\n');
    expect(all).not.toMatch(STACK_FRAME);
    expect(all).not.toMatch(ERROR_DUMP);
    for (const s of SECRETS) expect(all).not.toContain(s);
  });

  it('no response_url is used more than 5 times', () => {
    const uses = new Map<string, number>();
    for (const r of slack.responses) uses.set(r.id, (uses.get(r.id) ?? 0) + 1);
    expect([...uses].filter(([, n]) => n > 5)).toEqual([]);
  });

  it('Slack Web API calls use the bot token', () => {
    const other = slack.calls.filter(
      (c) => c.method !== 'auth.test' && c.authorization !== `Bearer ${BOT_TOKEN}`,
    );
    expect(other.map((c) => `${c.method}: ${c.authorization}`)).toEqual([]);
  });

  it('no secret appears in stdout/stderr', () => {
    const out = app.output();
    for (const s of SECRETS) expect(out).not.toContain(s);
  });

  it('metrics count the commands handled', async () => {
    const body = await (await fetch(`http://127.0.0.1:${app.port}/metrics`)).text();
    expect(body).toMatch(/^mergequeue_commands_total\{[^}]*\} [1-9]/m);
    expect(body).toMatch(/^mergequeue_trunk_calls_total\{[^}]*\} [1-9]/m);
    // README "Operating it" lists these.
    for (const name of [
      'commands_total',
      'interactions_total',
      'trunk_calls_total',
      'trunk_call_duration_seconds',
      'digests_total',
      'slack_api_errors_total',
      'slack_rate_limit_waits_total',
      'unhandled_rejections_total',
      'requests_in_flight',
    ]) {
      expect(body, name).toMatch(new RegExp(`^# TYPE mergequeue_${name} `, 'm'));
    }
    expect(body).toMatch(/^mergequeue_unhandled_rejections_total 0$/m);
    expect(body).toMatch(/^(mergequeue_)?(process_|nodejs_)\w+/m);
  });
});
