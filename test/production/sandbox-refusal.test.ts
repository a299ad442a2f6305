/**
 * The sandbox starts only on a machine with no production settings: an image (NODE_ENV=production) or a
 * deployment that lost its Slack variables refuses to start, naming the Slack variables, instead of
 * quietly serving fake Slack and fake Trunk in place of the real app.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/processes.ts';

/** `node src/main.ts` with only `env` (plus PATH); resolves with its exit code and output. */
function run(env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  const child = spawn(process.execPath, ['src/main.ts'], {
    cwd: ROOT,
    env: { PATH: process.env['PATH'] ?? '', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    out += c.toString();
  });
  return new Promise((resolve) => {
    // A sandbox that did start would keep running: stop it and report what it printed.
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

const PRODUCTION_SETTINGS: Record<string, Record<string, string>> = {
  'NODE_ENV=production (as the image sets it)': { NODE_ENV: 'production' },
  DATABASE_URL: { DATABASE_URL: 'postgres://mq@db.internal.example:5432/mergequeue' },
  TRUNK_API_TOKEN: { TRUNK_API_TOKEN: 'trk-live-token-abc' },
  ENCRYPTION_KEY: { ENCRYPTION_KEY: randomBytes(32).toString('base64') },
};

describe('no Slack variables but production settings', () => {
  for (const [name, env] of Object.entries(PRODUCTION_SETTINGS))
    it(`${name}: start-up refuses, names the Slack variables, serves nothing`, async () => {
      const { code, out } = await run(env);
      expect(code, out).not.toBe(0);
      expect(code, out).not.toBeNull();
      expect(out).toContain('SLACK_SIGNING_SECRET');
      expect(out).toContain('SLACK_BOT_TOKEN');
      expect(out).toContain(name.split(' ')[0]!);
      expect(out).not.toMatch(/sandbox listening|open http/i);
      // The values themselves are never echoed.
      for (const v of Object.values(env)) if (v !== 'production') expect(out).not.toContain(v);
      expect(out).not.toMatch(/\n\s+at .+:\d+:\d+/);
    }, 20_000);
});
