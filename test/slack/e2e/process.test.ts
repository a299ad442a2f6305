/**
 * `node src/main.ts` as its own process: starts from the environment, logs one line with its URL,
 * serves Slack and the operational routes, stops cleanly on SIGTERM; bad configuration is one message
 * and exit 1, without a stack trace.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANNEL, type Harness, startHarness, USERS } from '../../helpers/app-harness.ts';
import { textOf } from '../../helpers/block-kit-reading.ts';
import { ROOT, stopChild } from '../../helpers/processes.ts';

describe('the app as a process', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ process: true });
    h.trunk.addQueue('acme/web', 'main', { state: 'running', concurrency: 2 });
  });
  afterAll(async () => h?.close());

  it('logs one line with the URL and answers /healthz', async () => {
    const lines = h
      .output()
      .split('\n')
      .filter((l) => l.includes('"url"'));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ msg: 'mergequeue listening', mode: 'single' });
    const res = await fetch(`${h.url}/healthz`);
    expect(res.status).toBe(200);
  });

  it('handles a signed command end to end', async () => {
    await h.sendCommand('pause acme/web:main release', { user: USERS.admin });
    const msg = await h.slack.waitFor(() => h.slack.channelMessages(CHANNEL)[0]);
    expect(textOf(msg)).toContain('release');
    expect(h.trunk.queue('acme/web', 'main')!.state).toBe('paused');
  });

  it('never logs a secret', () => {
    const out = h.output();
    for (const secret of [
      h.env['SLACK_BOT_TOKEN']!,
      h.env['TRUNK_API_TOKEN']!,
      h.env['SLACK_SIGNING_SECRET']!,
    ])
      expect(out).not.toContain(secret);
  });

  it('exits 0 on SIGTERM', async () => {
    const code = await stopChild(h.child!);
    expect(code).toBe(0);
  });
});

describe('bad configuration', () => {
  it('prints one message naming each variable, exits 1, no stack trace', () => {
    const r = spawnSync(process.execPath, [join(ROOT, 'src/main.ts')], {
      env: {
        PATH: process.env['PATH'] ?? '',
        SLACK_APP_TOKEN: 'xoxb-secret-value-1',
        PORT: 'eighty',
        LOG_LEVEL: 'loud',
      },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('SLACK_APP_TOKEN');
    expect(r.stderr).toContain('LOG_LEVEL');
    expect(r.stderr).toContain('PORT');
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(r.stderr).not.toContain('xoxb-secret-value-1');
    expect(r.stdout).toBe('');
  });
});
