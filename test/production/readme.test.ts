/** The README's configuration table must list every variable the app reads, and the two commands come first. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { createMetrics } from '../../src/observability/metrics.ts';
import { ROOT } from '../helpers/processes.ts';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const configSource = readFileSync(join(ROOT, 'src/config.ts'), 'utf8');

/** The metric names the README's Metrics bullet lists (written there without the `mergequeue_` prefix). */
function documentedMetrics(): Set<string> {
  const start = readme.indexOf('- **Metrics**');
  const end = readme.indexOf('\n- **', start + 1);
  const bullet = readme.slice(start, end);
  const names = [...bullet.matchAll(/`([a-z][a-z0-9_]+)(\{[^`]*\})?`/g)].map((m) => m[1]!);
  // Label values are backticked too (`interactive`, `channel`); metric names all have an underscore.
  return new Set(names.filter((n) => n.includes('_') && n !== 'mergequeue_').map((n) => `mergequeue_${n}`));
}

/**
 * Every metric the app defines: those the registry holds from the start, and those a module registers on
 * first use (the replay guard's counter), found by their `name:` in src/.
 */
async function definedMetrics(): Promise<Set<string>> {
  const registered = (await createMetrics({ defaultMetrics: false }).registry.getMetricsAsJSON()).map(
    (m) => m.name,
  );
  const lazy: string[] = [];
  for (const file of readdirSync(join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })) {
    if (!file.endsWith('.ts')) continue;
    const text = readFileSync(join(ROOT, 'src', file), 'utf8');
    for (const m of text.matchAll(/name: '(mergequeue_[a-z0-9_]+)'/g)) lazy.push(m[1]!);
  }
  return new Set([...registered, ...lazy]);
}

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

  it('lists every metric the app defines, and only those', async () => {
    const defined = await definedMetrics();
    const documented = documentedMetrics();
    expect(defined.size).toBeGreaterThanOrEqual(15);
    for (const name of defined)
      expect(documented, `${name} missing from the README's Metrics list`).toContain(name);
    for (const name of documented)
      expect(defined, `${name} is in the README but the app defines no such metric`).toContain(name);
  });
});
