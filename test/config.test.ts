import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';
import { configuredSecrets } from '../src/observability/secret-values.ts';

const KEY = Buffer.alloc(32, 7).toString('base64');

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig', () => {
  it('starts in sandbox mode with no Slack variables, with documented defaults', () => {
    const c = loadConfig({});
    expect(c.slack.mode).toBe('sandbox');
    expect(c.port).toBe(3000);
    expect(c.logLevel).toBe('info');
    expect(c.slack.apiUrl).toBe('https://slack.com/api/');
    expect(c.trunk.apiUrl).toBe('https://api.trunk.io');
    expect(c.database).toEqual({ kind: 'sqlite', path: 'data/mergequeue.db' });
    expect(c.encryptionKeys).toEqual([]);
  });

  it('reads the watch settings, with defaults 20 s, 12 h, 45 min and 4 h', () => {
    expect(loadConfig({}).watch).toEqual({
      intervalSeconds: 20,
      liveStatusHours: 12,
      stuckMinutes: 45,
      pausedReminderHours: 4,
    });
    expect(
      loadConfig({
        WATCH_INTERVAL_SECONDS: '5',
        LIVE_STATUS_HOURS: '2',
        STUCK_MINUTES: '30',
        PAUSED_REMINDER_HOURS: '1',
      }).watch,
    ).toEqual({ intervalSeconds: 5, liveStatusHours: 2, stuckMinutes: 30, pausedReminderHours: 1 });
  });

  it('refuses watch settings out of range or not whole numbers, naming each', () => {
    const found = problems({
      WATCH_INTERVAL_SECONDS: '4',
      LIVE_STATUS_HOURS: 'twelve',
      STUCK_MINUTES: '0',
      PAUSED_REMINDER_HOURS: '1.5',
    });
    expect(found).toEqual([
      'WATCH_INTERVAL_SECONDS: must be from 5 to 3600',
      'LIVE_STATUS_HOURS: must be a number of hours, for example 12',
      'STUCK_MINUTES: must be from 1 to 10080',
      'PAUSED_REMINDER_HOURS: must be a number of hours, for example 4',
    ]);
  });

  it('reads single-workspace HTTP mode', () => {
    const c = loadConfig({
      SLACK_SIGNING_SECRET: 'sig',
      SLACK_BOT_TOKEN: 'xoxb-1',
      SLACK_API_URL: 'http://127.0.0.1:9/api',
      TRUNK_API_URL: 'http://127.0.0.1:8/',
      TRUNK_API_TOKEN: 'tok',
      TRUNK_ORG_SLUG: 'acme',
      DEFAULT_REPO: 'acme/web:main',
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test',
      ENCRYPTION_KEY: KEY,
      PORT: '0',
      LOG_LEVEL: 'DEBUG',
    });
    expect(c.slack).toMatchObject({ mode: 'single', transport: 'http', apiUrl: 'http://127.0.0.1:9/api/' });
    expect(c.trunk).toMatchObject({ apiUrl: 'http://127.0.0.1:8', token: 'tok', orgSlug: 'acme' });
    expect(c.defaultTarget).toEqual({
      repo: { host: 'github.com', owner: 'acme', name: 'web' },
      branch: 'main',
    });
    expect(c.database).toEqual({ kind: 'postgres', url: 'postgres://postgres@127.0.0.1:5432/test' });
    expect(c.encryptionKeys[0]?.length).toBe(32);
    expect(c.port).toBe(0);
    expect(c.logLevel).toBe('debug');
  });

  it('reads OAuth over Socket Mode and several rotation keys', () => {
    const old = Buffer.alloc(32, 1).toString('base64');
    const c = loadConfig({
      SLACK_APP_TOKEN: 'xapp-1',
      SLACK_CLIENT_ID: 'id',
      SLACK_CLIENT_SECRET: 'secret',
      SLACK_STATE_SECRET: 'state',
      ENCRYPTION_KEY: `${KEY},${old}`,
    });
    expect(c.slack).toMatchObject({ mode: 'oauth', transport: 'socket' });
    expect(c.encryptionKeys).toHaveLength(2);
  });

  it('names every bad variable in one message and never echoes a value', () => {
    const env = {
      SLACK_BOT_TOKEN: 'not-a-token-SECRETVALUE',
      SLACK_APP_TOKEN: 'also-wrong-SECRETVALUE',
      PORT: 'eighty',
      LOG_LEVEL: 'loud',
      SLACK_API_URL: 'ftp://x',
      TRUNK_API_URL: 'nope',
      TRUNK_ORG_SLUG: 'has space',
      SHUTDOWN_TIMEOUT_MS: 'soon',
      DATABASE_CONNECT_TIMEOUT_MS: 'fast',
      DATABASE_QUERY_TIMEOUT_MS: '5',
    };
    let message = '';
    try {
      loadConfig(env);
    } catch (err) {
      message = (err as Error).message;
    }
    for (const name of Object.keys(env)) expect(message).toContain(name);
    expect(message).not.toContain('SECRETVALUE');
  });

  it('requires the variables each mode needs', () => {
    expect(problems({ SLACK_BOT_TOKEN: 'xoxb-1' })).toEqual([
      expect.stringContaining('SLACK_SIGNING_SECRET'),
    ]);
    expect(problems({ SLACK_SIGNING_SECRET: 's' })).toEqual([expect.stringContaining('SLACK_BOT_TOKEN')]);
    const oauth = problems({ SLACK_SIGNING_SECRET: 's', SLACK_CLIENT_ID: 'id' });
    expect(oauth.join('\n')).toContain('SLACK_CLIENT_SECRET');
    expect(oauth.join('\n')).toContain('SLACK_STATE_SECRET');
    expect(oauth.join('\n')).toContain('ENCRYPTION_KEY');
    expect(
      problems({ SLACK_SIGNING_SECRET: 's', SLACK_BOT_TOKEN: 'xoxb-1', SLACK_CLIENT_ID: 'x' })[0],
    ).toContain('not both');
  });

  it('rejects malformed values of the remaining variables', () => {
    const p = problems({
      DEFAULT_REPO: 'just-a-word',
      DATABASE_URL: 'mysql://x',
      ENCRYPTION_KEY: Buffer.alloc(16).toString('base64'),
    }).join('\n');
    expect(p).toContain('DEFAULT_REPO');
    expect(p).toContain('DATABASE_URL');
    expect(p).toMatch(/ENCRYPTION_KEY: decodes to 16 bytes/);
    expect(problems({ ENCRYPTION_KEY: '!!!' })[0]).toContain('not base64');
    expect(problems({ PORT: '70000' })[0]).toContain('PORT');
  });

  it('reads the Trunk request budget, 10 a second by default, and refuses values Trunk would not allow', () => {
    expect(loadConfig({}).trunk.maxRps).toBe(10);
    expect(loadConfig({ TRUNK_MAX_RPS: ' 25 ' }).trunk.maxRps).toBe(25);
    expect(loadConfig({ TRUNK_MAX_RPS: '100' }).trunk.maxRps).toBe(100);
    for (const bad of ['0', '101', '2.5', 'fast', '-3'])
      expect(problems({ TRUNK_MAX_RPS: bad }), bad).toEqual([
        expect.stringMatching(/^TRUNK_MAX_RPS: must be .*from 1 to 100/),
      ]);
  });

  it('accepts a sqlite: database path', () => {
    expect(
      loadConfig({ DATABASE_URL: 'sqlite:/tmp/x.db', SLACK_SIGNING_SECRET: 's', SLACK_BOT_TOKEN: 'xoxb-1' })
        .database,
    ).toEqual({
      kind: 'sqlite',
      path: '/tmp/x.db',
    });
  });
});

describe('TRUNK_API_KEY', () => {
  it('reads a v2 key, and refuses a value that is not one without echoing it', () => {
    const base = {
      SLACK_SIGNING_SECRET: 'sig',
      SLACK_BOT_TOKEN: 'xoxb-1',
      TRUNK_API_TOKEN: 'tok',
      TRUNK_ORG_SLUG: 'acme',
    };
    expect(loadConfig({ ...base, TRUNK_API_KEY: 'trunk_v2_abc' }).trunk.v2Key).toBe('trunk_v2_abc');
    let message = '';
    try {
      loadConfig({ ...base, TRUNK_API_KEY: 'v1-token-pasted-here' });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toContain('TRUNK_API_KEY: must be a Trunk v2 API key starting with "trunk_v2_"');
    expect(message).not.toContain('v1-token-pasted-here');
  });

  it('is a secret the logger removes', () => {
    const c = loadConfig({
      SLACK_SIGNING_SECRET: 'sig',
      SLACK_BOT_TOKEN: 'xoxb-1',
      TRUNK_API_KEY: 'trunk_v2_secretvalue',
    });
    expect(configuredSecrets(c)).toContain('trunk_v2_secretvalue');
  });
});
