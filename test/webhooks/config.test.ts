/** TRUNK_WEBHOOK_SECRET: the single workspace's signing secrets, checked at start-up without echoing them. */
import { describe, expect, it } from 'vitest';
import { newWebhookSecret } from '../../dev/fakes/trunk/index.ts';
import { type ConfigError, loadConfig } from '../../src/config.ts';

const single = { SLACK_SIGNING_SECRET: 's', SLACK_BOT_TOKEN: 'xoxb-1' };

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (err) {
    return (err as ConfigError).problems;
  }
}

describe('TRUNK_WEBHOOK_SECRET', () => {
  it('reads a comma-separated list of whsec_ secrets', () => {
    const [a, b] = [newWebhookSecret(), newWebhookSecret()];
    expect(loadConfig({ ...single, TRUNK_WEBHOOK_SECRET: ` ${a}, ${b} ` }).trunk.webhookSecrets).toEqual([
      a,
      b,
    ]);
    expect(loadConfig(single).trunk.webhookSecrets).toBeUndefined();
  });

  it('stops start-up naming the variable and the bad entry, never the value', () => {
    const p = problems({ ...single, TRUNK_WEBHOOK_SECRET: `${newWebhookSecret()},whsec_***notbase64` });
    expect(p).toHaveLength(1);
    expect(p[0]).toMatch(/^TRUNK_WEBHOOK_SECRET: .*whsec_….*number 2/);
    expect(p[0]).not.toContain('notbase64');
    expect(problems({ ...single, TRUNK_WEBHOOK_SECRET: 'plain-secret' })[0]).toMatch(/TRUNK_WEBHOOK_SECRET/);
  });

  it('is for single-workspace mode only', () => {
    const p = problems({
      SLACK_SIGNING_SECRET: 's',
      SLACK_CLIENT_ID: 'c',
      SLACK_CLIENT_SECRET: 'cs',
      SLACK_STATE_SECRET: 'st',
      ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
      TRUNK_WEBHOOK_SECRET: newWebhookSecret(),
    });
    expect(p.join('\n')).toMatch(/TRUNK_WEBHOOK_SECRET: .*connect/);
  });
});
