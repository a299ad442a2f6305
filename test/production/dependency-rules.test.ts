/**
 * The import rules (.dependency-cruiser.cjs) name the repository modules by path, since a rule cannot see
 * which file defines a `*Repository` class: this keeps that list complete, so that a new repository is out
 * of listeners' and renderers' reach without anyone remembering to add it. A repository class imported
 * through a domain's index.ts is not seen by the rules, so slack/ is also checked not to build one (or to
 * reach `store.db`): the composition root builds them and hands them in. Likewise a domain could write audit
 * rows through a `Pick<Store, 'appendAudit'>` handed to it, past the rule domains-write-no-audit: the audit
 * and click claims are the services', so no domain names either.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/processes.ts';

interface Rule {
  name: string;
  to: { path?: string | string[] };
}

const config = createRequire(import.meta.url)(join(ROOT, '.dependency-cruiser.cjs')) as { forbidden: Rule[] };

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** src/ files (repository-relative) whose text matches `re`, but for `except`. */
function filesMatching(re: RegExp, except: RegExp): string[] {
  return sourceFiles(join(ROOT, 'src'))
    .map((file) => relative(ROOT, file).split('\\').join('/'))
    .filter((path) => !except.test(path) && re.test(readFileSync(join(ROOT, path), 'utf8')));
}

describe('background work', () => {
  it('builds periodic loops only in workers/ (domains expose a pass; rule periodic-loops-are-built-only-in-workers)', () => {
    expect(filesMatching(/\bnew PeriodicPasses\b/, /^src\/(workers\/|core\/periodic-passes\.ts$)/)).toEqual(
      [],
    );
    expect(config.forbidden.map((r) => r.name)).toContain('periodic-loops-are-built-only-in-workers');
  });

  it('races a timer only in core/deadline.ts: every wait with a deadline goes through it', () => {
    expect(filesMatching(/\bPromise\.race\(/, /^src\/core\/deadline\.ts$/)).toEqual([]);
  });

  it('leaves workers/ no timer of its own: a worker waits through its loop or core/deadline.ts', () => {
    expect(filesMatching(/\b(setTimeout|setInterval)\(/, /^(?!src\/workers\/)/)).toEqual([]);
  });
});

describe('the import rules', () => {
  it('keep every module that defines a repository out of listeners and renderers', () => {
    const rule = config.forbidden.find((r) => r.name === 'listeners-and-renderers-never-reach-the-store');
    const refused = [rule?.to.path ?? []].flat().map((p) => new RegExp(p));
    const repositories = sourceFiles(join(ROOT, 'src'))
      .filter((file) => /\bclass \w+Repository\b/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(ROOT, file).split('\\').join('/'));
    expect(repositories.length).toBeGreaterThan(0);
    const unlisted = repositories.filter((path) => !refused.some((re) => re.test(path)));
    expect(unlisted).toEqual([]);
  });

  it('leave no repository for slack/ to build: a barrel (watch/index.ts) re-exports them past the rules', () => {
    const building = sourceFiles(join(ROOT, 'src', 'slack'))
      .filter((file) => /\bnew \w+Repository\(|\.db\b/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(ROOT, file).split('\\').join('/'));
    expect(building).toEqual([]);
  });

  it('leave the audit and the click claims to the services: no domain writes audit rows or claims', () => {
    const rule = config.forbidden.find((r) => r.name === 'domains-write-no-audit');
    expect(rule?.to.path).toBeDefined();
    const notADomain = /^src\/(core|trunk|store|services|slack|workers|observability|http|cli)\//;
    const writing = sourceFiles(join(ROOT, 'src'))
      .map((file) => relative(ROOT, file).split('\\').join('/'))
      .filter((path) => path.includes('/', 4) && !notADomain.test(path))
      .filter((path) =>
        /\b(appendAudit|auditBy|claimOnce|releaseClaim)\b/.test(readFileSync(join(ROOT, path), 'utf8')),
      );
    expect(writing).toEqual([]);
  });
});
