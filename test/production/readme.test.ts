/** The README's configuration table must list every variable the app reads, and the two commands come first. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { ROOT } from '../helpers/processes.ts';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const configSource = readFileSync(join(ROOT, 'src/config.ts'), 'utf8');

/** The keys of envSchema in src/config.ts. */
function envVariables(): string[] {
  const body = /const envSchema = z\.object\(\{([\s\S]*?)\n\}\);/.exec(configSource)?.[1] ?? '';
  return [...body.matchAll(/^ {2}([A-Z][A-Z0-9_]+):/gm)].map((m) => m[1]!);
}

function configTable(): Map<string, string[]> {
  const section = readme.slice(readme.indexOf('## Configuration'));
  const rows = new Map<string, string[]>();
  for (const line of section.split('\n')) {
    const m = /^\| `([A-Z][A-Z0-9_]+)` \|(.*)\|\s*$/.exec(line);
    if (m)
      rows.set(
        m[1]!,
        m[2]!.split('|').map((c) => c.trim()),
      );
  }
  return rows;
}

describe('README', () => {
  it('documents every environment variable of src/config.ts, with meaning and default', () => {
    const vars = envVariables();
    expect(vars.length).toBeGreaterThanOrEqual(19);
    const table = configTable();
    for (const v of vars) {
      expect(table.has(v), `${v} missing from the configuration table`).toBe(true);
      const [meaning, dflt] = table.get(v)!;
      expect(meaning!.length, `${v} has no meaning`).toBeGreaterThan(10);
      expect(dflt, `${v} has no default column`).toBeTruthy();
    }
    for (const v of table.keys()) expect(vars, `${v} is documented but not read`).toContain(v);
  });

  it('states the defaults the code applies', () => {
    const c = loadConfig({});
    const table = configTable();
    expect(table.get('PORT')?.[1]).toBe(`\`${c.port}\``);
    expect(table.get('LOG_LEVEL')?.[1]).toBe(`\`${c.logLevel}\``);
    expect(table.get('SHUTDOWN_TIMEOUT_MS')?.[1]).toBe(`\`${c.shutdownTimeoutMs}\``);
    expect(table.get('DIGEST_GRACE_HOURS')?.[1]).toBe(`\`${c.digest.graceHours}\``);
    expect(table.get('SLACK_API_URL')?.[1]).toBe(`\`${c.slack.apiUrl}\``);
    expect(table.get('TRUNK_API_URL')?.[1]).toBe(`\`${c.trunk.apiUrl}\``);
    expect(table.get('TRUNK_APP_URL')?.[1]).toBe(`\`${c.trunk.appUrl}\``);
    expect(c.database).toEqual({ kind: 'sqlite', path: 'data/mergequeue.db' });
    expect(table.get('DATABASE_URL')?.[1]).toBe('`sqlite:data/mergequeue.db`');
  });

  it('keeps the two commands at the top, and names commands and files that exist', () => {
    const run = readme.indexOf('npm install && npm start');
    const test = readme.indexOf('npm install && npm test');
    expect(run).toBeGreaterThan(0);
    expect(test).toBeGreaterThan(run);
    expect(run).toBeLessThan(readme.indexOf('## Deploying'));
    const cli = /npx node (src\/cli\/[\w-]+\.ts)/.exec(readme)?.[1];
    expect(cli).toBe('src/cli/rotate-keys.ts');
    expect(() => readFileSync(join(ROOT, cli!))).not.toThrow();
    for (const f of ['Dockerfile', 'manifest.yml'])
      expect(() => readFileSync(join(ROOT, f)), f).not.toThrow();
  });
});
