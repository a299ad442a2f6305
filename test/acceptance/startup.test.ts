// Acceptance: what a newcomer gets from `npm start` with no Slack settings, with bad settings, and on SIGTERM.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  freePort,
  type NpmApp,
  newcomerEnv,
  nodePidInGroup,
  npmStart,
  sleep,
  waitForHealthy,
} from '../helpers/processes.ts';
import { postSigned } from '../helpers/slack-requests.ts';
import { answersFor, newCorr, STACK_FRAME, slashBody } from './answers.ts';
import { startFakeSlack, startFakeTrunk, TEAM_ID } from './fakes.ts';

const dir = mkdtempSync(join(tmpdir(), 'mq-acceptance-start-'));
const started: NpmApp[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((p) => p.stop()));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function start(env: Record<string, string>, port: number): NpmApp {
  const p = npmStart(newcomerEnv({ DATABASE_URL: `sqlite:${join(dir, `${port}.sqlite`)}`, ...env }), port);
  started.push(p);
  return p;
}

/** The app's own words: npm's banner ("> pkg start", "npm error …" lifecycle lines) left out. */
function appOutput(p: NpmApp): string {
  return p
    .output()
    .split('\n')
    .filter((l) => !/^(> |npm (warn|error|ERR!)|\s*$)/.test(l))
    .join('\n');
}

async function exitsWithin(p: NpmApp, ms: number): Promise<number | string | undefined> {
  await Promise.race([p.exited, sleep(ms)]);
  return p.exitCode();
}

describe('start-up configuration errors', () => {
  it('an invalid PORT stops start-up: non-zero exit, one message naming PORT, no stack trace', async () => {
    const p = start(
      { SLACK_SIGNING_SECRET: 'sig-secret-abcdef', SLACK_BOT_TOKEN: 'xoxb-1-2-valid', PORT: 'not-a-port' },
      0,
    );
    const code = await exitsWithin(p, 20_000);
    expect(code, `exit code; output:\n${p.output()}`).not.toBeUndefined();
    expect(code).not.toBe(0);
    const out = appOutput(p);
    expect(out).toMatch(/PORT/);
    expect(out).not.toMatch(STACK_FRAME);
    expect(out).not.toContain('sig-secret-abcdef');
  });

  it('SLACK_BOT_TOKEN=bad stops start-up naming the variable, without printing the value or a stack trace', async () => {
    const port = await freePort();
    const p = start(
      {
        SLACK_SIGNING_SECRET: 'sig-secret-abcdef',
        SLACK_BOT_TOKEN: 'bad-token-value-zz9',
        PORT: String(port),
      },
      port,
    );
    const code = await exitsWithin(p, 20_000);
    expect(code, `exit code; output:\n${p.output()}`).not.toBeUndefined();
    expect(code).not.toBe(0);
    const out = appOutput(p);
    expect(out).toMatch(/SLACK_BOT_TOKEN/);
    expect(out).toMatch(/xoxb-/); // says what a bot token looks like
    expect(out).not.toMatch(STACK_FRAME);
    expect(out).not.toContain('bad-token-value-zz9');
  });

  it('two bad variables are both named in one message', async () => {
    const p = start(
      { SLACK_SIGNING_SECRET: 'sig-secret-abcdef', SLACK_BOT_TOKEN: 'nope', PORT: '99999999' },
      0,
    );
    const code = await exitsWithin(p, 20_000);
    expect(code).not.toBeUndefined();
    expect(code).not.toBe(0);
    const out = appOutput(p);
    expect(out).toMatch(/PORT/);
    expect(out).toMatch(/SLACK_BOT_TOKEN/);
    expect(out).not.toMatch(STACK_FRAME);
  });

  it('HTTP mode without SLACK_SIGNING_SECRET stops start-up naming it', async () => {
    const port = await freePort();
    const p = start({ SLACK_BOT_TOKEN: 'xoxb-1-2-valid', PORT: String(port) }, port);
    const code = await exitsWithin(p, 20_000);
    expect(code, `exit code; output:\n${p.output()}`).not.toBeUndefined();
    expect(code).not.toBe(0);
    const out = appOutput(p);
    expect(out).toMatch(/SLACK_SIGNING_SECRET/);
    expect(out).not.toMatch(STACK_FRAME);
  });
});

describe('many-workspace (OAuth) mode', () => {
  const oauth = {
    SLACK_SIGNING_SECRET: 'sig-secret-abcdef',
    SLACK_CLIENT_ID: '1234567890.0987654321',
    SLACK_CLIENT_SECRET: 'client-secret-qwerty-77',
    SLACK_STATE_SECRET: 'state-secret-long-random-string-123',
  };

  it('without ENCRYPTION_KEY start-up stops naming ENCRYPTION_KEY', async () => {
    const port = await freePort();
    const p = start({ ...oauth, PORT: String(port) }, port);
    const code = await exitsWithin(p, 20_000);
    expect(code, `exit code; output:\n${p.output()}`).not.toBeUndefined();
    expect(code).not.toBe(0);
    const out = appOutput(p);
    expect(out).toMatch(/ENCRYPTION_KEY/);
    expect(out).not.toMatch(STACK_FRAME);
    expect(out).not.toContain('client-secret-qwerty-77');
  });

  it('an ENCRYPTION_KEY that is not base64 of 32 bytes stops start-up naming it', async () => {
    const port = await freePort();
    const p = start({ ...oauth, ENCRYPTION_KEY: 'c2hvcnQ=', PORT: String(port) }, port);
    const code = await exitsWithin(p, 20_000);
    expect(code, `exit code; output:\n${p.output()}`).not.toBeUndefined();
    expect(code).not.toBe(0);
    const out = appOutput(p);
    expect(out).toMatch(/ENCRYPTION_KEY/);
    expect(out).not.toContain('c2hvcnQ=');
    expect(out).not.toMatch(STACK_FRAME);
  });

  it("GET /slack/install leads to Slack's authorize page with the client id", async () => {
    const port = await freePort();
    const p = start(
      { ...oauth, ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'), PORT: String(port) },
      port,
    );
    await waitForHealthy(p);
    const r = await fetch(`http://127.0.0.1:${port}/slack/install`, { redirect: 'manual' });
    expect([200, 302]).toContain(r.status);
    const where = r.status === 302 ? (r.headers.get('location') ?? '') : await r.text();
    expect(where).toMatch(/slack\.com\/oauth\/v2\/authorize/);
    expect(where).toContain('1234567890.0987654321');
    expect(where).toMatch(/scope=[^"&]*commands/);
    expect(p.output()).not.toContain('client-secret-qwerty-77');
  });
});

describe('Socket Mode', () => {
  it('with SLACK_APP_TOKEN it opens a Socket Mode connection with that token and still serves health on PORT', async () => {
    const slack = await startFakeSlack(); // answers apps.connections.open with an error: the app must retry, not die
    try {
      const port = await freePort();
      const p = start(
        {
          SLACK_APP_TOKEN: 'xapp-1-A0ACC-1-socketmodetoken',
          SLACK_BOT_TOKEN: 'xoxb-1-2-socket',
          SLACK_API_URL: slack.apiUrl,
          TRUNK_API_TOKEN: 'tok',
          TRUNK_ORG_SLUG: 'acme',
          PORT: String(port),
        },
        port,
      );
      await waitForHealthy(p);
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(200);
      const deadline = Date.now() + 8000;
      while (!slack.calls.some((c) => c.method === 'apps.connections.open') && Date.now() < deadline)
        await sleep(100);
      const open = slack.calls.find((c) => c.method === 'apps.connections.open');
      expect(open?.authorization).toBe('Bearer xapp-1-A0ACC-1-socketmodetoken');
      expect(p.exitCode()).toBeUndefined();
      expect(p.output()).not.toContain('xapp-1-A0ACC-1-socketmodetoken');
    } finally {
      await slack.close();
    }
  });
});

describe('no Slack variables at all: the local sandbox', () => {
  it('starts, stays up, serves health and a page, and tells the newcomer where to look', async () => {
    const port = await freePort();
    // No DATABASE_URL either: that is a production setting, which keeps the sandbox from starting.
    const p = npmStart(newcomerEnv({ PORT: String(port) }), port);
    started.push(p);
    await waitForHealthy(p);
    await sleep(300);
    const out = appOutput(p);
    expect(out).toMatch(/sandbox/i);
    // The newcomer is told which address to open; it must be this port and serve a page.
    const url = out
      .match(/https?:\/\/(?:127\.0\.0\.1|localhost):(\d+)\/[^\s"]*/)?.[0]
      ?.replace(/[".,)]+$/, '');
    expect(url, out).toBeDefined();
    expect(url).toContain(`:${port}`);
    const page = await fetch(url!);
    expect(page.status, url).toBe(200);
    expect(page.headers.get('content-type') ?? '').toMatch(/html/);
    expect(await page.text()).toMatch(/mergequeue|sandbox/i);
    // The documented variables are named, so the newcomer knows how to leave the sandbox.
    expect(out).toMatch(/SLACK_SIGNING_SECRET/);
    expect(out).toMatch(/SLACK_BOT_TOKEN/);
    expect(out).not.toMatch(STACK_FRAME);
  });
});

describe('shutdown', () => {
  it('SIGTERM: exits 0, /readyz was fine before', async () => {
    const slack = await startFakeSlack();
    const port = await freePort();
    const p = start(
      {
        SLACK_SIGNING_SECRET: 'sig-secret-abcdef',
        SLACK_BOT_TOKEN: 'xoxb-1-2-valid',
        SLACK_API_URL: slack.apiUrl,
        TRUNK_API_TOKEN: 'tok',
        TRUNK_ORG_SLUG: 'acme',
        PORT: String(port),
      },
      port,
    );
    await waitForHealthy(p);
    expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
    // As an orchestrator would: signal the app's node process (npm passes its exit code on).
    const node = nodePidInGroup(p.child.pid!);
    expect(node, 'node process under npm').toBeDefined();
    process.kill(node!, 'SIGTERM');
    const code = await exitsWithin(p, 15_000);
    expect(code, p.output()).toBe(0);
    expect(p.output()).toMatch(/shut/i);
    expect(appOutput(p)).not.toMatch(STACK_FRAME);
    await slack.close();
  });

  // README "Shutdown": on SIGTERM new Slack requests get 503, /readyz turns 503, work in flight (a command's
  // Trunk call and its reply) is finished, then exit 0.
  it('SIGTERM with a command in flight: finishes its reply, refuses new requests with 503, exits 0', async () => {
    const slack = await startFakeSlack();
    const trunk = await startFakeTrunk({ token: 'trunk-tok-shutdown-1', orgSlug: 'acme' });
    slack.users.set('UADM1', { id: 'UADM1', name: 'ada', is_admin: true, is_owner: false, tz: 'UTC' });
    try {
      const port = await freePort();
      const secret = 'sig-secret-shutdown';
      const p = start(
        {
          SLACK_SIGNING_SECRET: secret,
          SLACK_BOT_TOKEN: 'xoxb-1-2-shutdown',
          SLACK_API_URL: slack.apiUrl,
          TRUNK_API_URL: trunk.url,
          TRUNK_API_TOKEN: 'trunk-tok-shutdown-1',
          TRUNK_ORG_SLUG: 'acme',
          DEFAULT_REPO: 'acme/web:main',
          PORT: String(port),
        },
        port,
      );
      await waitForHealthy(p);
      trunk.latencyMs = 1500; // below the app's own Trunk deadline, so only shutdown is tested
      const corr = newCorr('UADM1');
      const ack = await postSigned(p, slashBody('status', corr, slack, TEAM_ID, 'ada'));
      expect(ack.status).toBe(200);
      await sleep(400); // the Trunk call is now in flight
      const node = nodePidInGroup(p.child.pid!);
      expect(node).toBeDefined();
      process.kill(node!, 'SIGTERM');
      await sleep(300);
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.status,
        () => 'closed',
      );
      const late = await postSigned(p, slashBody('help', newCorr('UADM1'), slack, TEAM_ID, 'ada')).then(
        (r) => r.status,
        () => 'closed',
      );
      const code = await exitsWithin(p, 15_000);
      expect({ ready, late }).toEqual({ ready: 503, late: 503 });
      expect(code, p.output()).toBe(0);
      const answered = answersFor(slack, corr, ack)
        .map((a) => a.text)
        .join('\n');
      expect(answered, p.output().slice(-3000)).toMatch(/4101/);
    } finally {
      await slack.close();
      await trunk.close();
    }
  });
});
