import { Writable } from 'node:stream';
import { LogLevel } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { startTrunkFake } from '../../dev/fakes/trunk/index.ts';
import { boltLogger } from '../../src/observability/bolt-logger.ts';
import { createLogger, requestLogger, scrubSecrets } from '../../src/observability/log.ts';
import { runWithRequestContext } from '../../src/observability/request-context.ts';
import { startHarness } from '../helpers/app-harness.ts';
import { logLines } from '../helpers/processes.ts';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, cb) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      cb();
    },
  });
  return { stream, lines, json: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) };
}

const SECRETS = {
  trunk: 'trk_live_Zq81bc7d9e0f',
  bot: 'xoxb-1111-2222-abcdefABCDEF',
  user: 'xoxp-3333-4444-qwerty',
  app: 'xapp-1-A0001-555-deadbeef',
  signing: 'b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6',
  client: 'cs_9f8e7d6c5b4a',
  password: 'hunter2-pg-password',
  bearer: 'eyJhbGciOiJIUzI1NiJ9.payload.sig',
};

describe('structured logs', () => {
  it('redacts secrets in fields, nested headers, error text and free text', () => {
    const out = capture();
    const log = createLogger('debug', out.stream);
    log.info({ token: SECRETS.trunk, repo: 'acme/web' }, 'stored trunk credentials');
    log.info(
      { headers: { 'x-api-token': SECRETS.trunk, 'content-type': 'application/json' } },
      'trunk request',
    );
    log.info({ req: { headers: { authorization: `Bearer ${SECRETS.bearer}`, host: 'api.trunk.io' } } }, 'in');
    log.info({ request: { init: { headers: { authorization: `Bearer ${SECRETS.bearer}` } } } }, 'deep');
    log.info({ config: { slack: { botToken: SECRETS.bot, signingSecret: SECRETS.signing } } }, 'config');
    log.info({ installation: { bot: { token: SECRETS.bot }, user: { token: SECRETS.user } } }, 'install');
    log.info({ clientSecret: SECRETS.client, db: { password: SECRETS.password } }, 'oauth');
    log.error({ err: new Error(`auth.test failed for ${SECRETS.bot}`) }, 'slack call failed');
    log.warn(`socket mode with ${SECRETS.app} and Authorization: Bearer ${SECRETS.bearer}`);
    log.info({ headers: { 'x-slack-signature': `v0=${'a'.repeat(64)}` } }, `signature v0=${'b'.repeat(64)}`);

    const text = out.lines.join('\n');
    for (const [name, secret] of Object.entries(SECRETS))
      expect(text, `${name} leaked`).not.toContain(secret);
    expect(text).not.toContain('a'.repeat(64));
    expect(text).not.toContain('b'.repeat(64));
    // What is not secret stays, so the lines are still useful (and this test can fail).
    const rows = out.json();
    expect(rows).toHaveLength(10);
    expect(rows[0]).toMatchObject({
      level: 'info',
      repo: 'acme/web',
      token: '[redacted]',
      msg: 'stored trunk credentials',
    });
    expect(rows[1]).toMatchObject({
      headers: { 'x-api-token': '[redacted]', 'content-type': 'application/json' },
    });
    expect(rows[2]).toMatchObject({
      req: { headers: { authorization: '[redacted]', host: 'api.trunk.io' } },
    });
    expect(rows[7]?.['err']).toMatchObject({ message: 'auth.test failed for [redacted]' });
    expect(rows[8]?.['msg']).toBe('socket mode with [redacted] and Authorization: Bearer [redacted]');
    for (const r of rows) expect(r['service']).toBe('mergequeue-slack');
  });

  it('removes configured secret values from every line, in any field and encoding', () => {
    const out = capture();
    const appToken = 'xapp-1-A0001-555-deadbeef';
    const key = Buffer.alloc(32, 0xfb).toString('base64'); // has "+" and "/"
    const values = [SECRETS.signing, SECRETS.client, SECRETS.trunk, appToken, key];
    const log = createLogger('trace', out.stream, {}, { secrets: values });
    log.debug({ detail: { note: `signing ${SECRETS.signing}` } }, 'nested field');
    log.trace(`form body client_secret=${encodeURIComponent(SECRETS.client)}&x=1`);
    log.info({ keyAsUrl: encodeURIComponent(key), trunk: SECRETS.trunk }, 'keys');
    log.warn(`socket ${appToken}`);
    log.info('https://example/cb?code=abc123def456&state=s1 and {"refresh_token":"r-1234567"}');
    const text = out.lines.join('\n');
    for (const v of [...values, encodeURIComponent(key), 'abc123def456', 'r-1234567'])
      expect(text, v).not.toContain(v);
    expect(out.json()).toHaveLength(5);
    expect(text).toContain('nested field');
  });

  it('scrubs token shapes but leaves ordinary text alone', () => {
    expect(scrubSecrets('token xoxb-12-ab and xoxe.xoxp-1-x')).toBe('token [redacted] and xoxe.[redacted]');
    expect(scrubSecrets('queue acme/web:main paused by <@U123>')).toBe(
      'queue acme/web:main paused by <@U123>',
    );
  });

  it('tags every line written during a request with its id, once', () => {
    const out = capture();
    const log = createLogger('info', out.stream);
    log.info('before');
    runWithRequestContext({ reqId: 'req-abc' }, () => {
      log.info('inside');
      requestLogger(log, 'req-abc').info('child');
    });
    const rows = out.json();
    expect(rows[0]?.['reqId']).toBeUndefined();
    expect(rows[1]?.['reqId']).toBe('req-abc');
    expect(rows[2]?.['reqId']).toBe('req-abc');
    // Bound once, not twice: the raw line has a single reqId key.
    expect(out.lines[2]?.match(/"reqId"/g)).toHaveLength(1);
  });

  it("routes Bolt's logger into pino JSON, redacted, with the request id", () => {
    const out = capture();
    const log = createLogger('info', out.stream);
    const bolt = boltLogger(log);
    bolt.setName('bolt-app');
    runWithRequestContext({ reqId: 'r1' }, () => {
      bolt.info('An API call failed:', { token: SECRETS.bot, method: 'chat.postMessage' });
      bolt.error(new Error(`invalid_auth for ${SECRETS.bot}`));
    });
    bolt.debug('not written at info level');
    bolt.warn('plain warning', 42);
    const rows = out.json();
    expect(rows).toHaveLength(3);
    expect(rows[0]).toMatchObject({ level: 'info', component: 'bolt-app', reqId: 'r1' });
    expect(rows[0]?.['msg']).toContain('chat.postMessage');
    expect(rows[1]).toMatchObject({ level: 'error', err: { message: 'invalid_auth for [redacted]' } });
    expect(rows[2]).toMatchObject({ level: 'warn', msg: 'plain warning 42' });
    expect(out.lines.join('\n')).not.toContain(SECRETS.bot);
    expect(bolt.getLevel()).toBe(LogLevel.INFO);
  });
});

describe('logs of the running process', () => {
  it('are JSON lines, carry a request id while handling a request, and never contain a secret', async () => {
    const trunkToken = 'trk-secret-9f8e7d6c5b4a';
    const trunk = await startTrunkFake({ tokens: [trunkToken] });
    trunk.addQueue('acme/web', 'main');
    const botToken = 'xoxb-999-888-logsecretbot';
    const h = await startHarness({
      process: true,
      trunk,
      env: { LOG_LEVEL: 'debug', TRUNK_API_TOKEN: trunkToken, SLACK_BOT_TOKEN: botToken },
    });
    try {
      // One command that works, one whose Trunk call fails, one rejected by Slack's API.
      await h.sendCommand('status');
      await h.slack.waitFor(() => h.slack.callsTo('chat.postMessage')[0]);
      trunk.failNext(1, { status: 401, body: 'bad token' }, 'getQueue');
      const failed = await h.sendCommand('status');
      await h.reply(failed.responseUrl);
      const forged = await h.sendCommand('status', { signingSecret: 'wrong-secret' });
      expect(forged.status).toBe(401);
      await expect.poll(() => h.output().includes('Failed to parse and verify the request data')).toBe(true);
    } finally {
      await h.close();
      await trunk.close();
    }
    const out = h.output();
    const lines = out.split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThan(5);
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
    for (const secret of [trunkToken, botToken, h.signingSecret, h.env['ENCRYPTION_KEY']!])
      expect(out).not.toContain(secret);
    const rows = logLines(out);
    // Bolt's own lines arrive through the adapter, as JSON.
    expect(rows.some((r) => r['component'] === 'bolt')).toBe(true);
    const withReq = rows.filter((r) => typeof r['reqId'] === 'string');
    expect(new Set(withReq.map((r) => r['reqId'])).size).toBeGreaterThanOrEqual(2);
  }, 30_000);
});
