/** TRUNK_WEBHOOK_SECRET: read as a comma-separated list of `whsec_…` secrets, refused otherwise, kept out of logs. */
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { configuredSecrets } from '../../src/observability/secret-values.ts';

describe('TRUNK_WEBHOOK_SECRET', () => {
  it('reads several secrets (rotation) and counts them as secrets', () => {
    const c = loadConfig({ TRUNK_WEBHOOK_SECRET: 'whsec_aaa, whsec_bbb' });
    expect(c.trunk.webhookSecrets).toEqual(['whsec_aaa', 'whsec_bbb']);
    expect(configuredSecrets(c)).toEqual(expect.arrayContaining(['whsec_aaa', 'whsec_bbb']));
    expect(loadConfig({}).trunk.webhookSecrets).toBeUndefined();
  });

  it('refuses a value that is not a signing secret, naming the variable', () => {
    let err: unknown;
    try {
      loadConfig({ TRUNK_WEBHOOK_SECRET: 'hunter2' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect(String((err as ConfigError).message)).toContain('TRUNK_WEBHOOK_SECRET');
    expect(String((err as ConfigError).message)).not.toContain('hunter2');
  });
});
