import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatQueueRef, parseTarget, resolveTarget } from '../../src/core/target.ts';

const gh = (owner: string, name: string) => ({ host: 'github.com', owner, name });

describe('parseTarget', () => {
  it.each([
    ['acme/web', { repo: gh('acme', 'web') }],
    ['acme/web:main', { repo: gh('acme', 'web'), branch: 'main' }],
    ['acme/web:release/1.2', { repo: gh('acme', 'web'), branch: 'release/1.2' }],
    [':develop', { branch: 'develop' }],
    [
      'GitLab.com/acme/web:main',
      { repo: { host: 'gitlab.com', owner: 'acme', name: 'web' }, branch: 'main' },
    ],
    [
      'git.example.com:8443/acme/web:main',
      { repo: { host: 'git.example.com:8443', owner: 'acme', name: 'web' }, branch: 'main' },
    ],
    ['  acme/web.js  ', { repo: gh('acme', 'web.js') }],
  ])('reads %s', (input, expected) => {
    expect(parseTarget(input)).toEqual({ ok: true, value: expected });
  });

  it.each([
    ['', /empty/],
    ['web', /not a valid target/],
    ['a/b/c/d', /not a valid target/],
    ['acme/web:', /branch name is empty/],
    ['acme/web:bad branch', /git does not allow/],
    ['acme/web:feature..x', /not a valid git branch/],
    ['acme/we b', /not a valid target/],
    ['not_a_host/acme/web', /host name/],
    [':', /branch name is empty/],
  ])('rejects %j with a message that says what to type', (input, pattern) => {
    const r = parseTarget(input);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error).toMatch(pattern);
      expect(r.error).toContain('owner/repo');
    }
  });

  it('never throws, whatever it is given', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 500 }), (s) => {
        const r = parseTarget(s);
        expect(typeof r.ok).toBe('boolean');
      }),
      { numRuns: 3000 },
    );
  });
});

describe('resolveTarget', () => {
  const channel = { repo: gh('acme', 'web'), branch: 'develop' };
  const workspace = { repo: gh('acme', 'api') };

  it('takes the typed target first', () => {
    expect(resolveTarget({ repo: gh('x', 'y'), branch: 'b' }, channel, workspace)).toEqual({
      repo: gh('x', 'y'),
      branch: 'b',
    });
  });
  it('fills the repo from the channel, then the workspace', () => {
    expect(resolveTarget(undefined, channel, workspace)).toEqual({
      repo: gh('acme', 'web'),
      branch: 'develop',
    });
    expect(resolveTarget(undefined, undefined, workspace)).toEqual({
      repo: gh('acme', 'api'),
      branch: 'main',
    });
    expect(resolveTarget({ branch: 'hotfix' }, channel)).toEqual({
      repo: gh('acme', 'web'),
      branch: 'hotfix',
    });
  });
  it("uses a default's branch only for the same repository", () => {
    expect(resolveTarget({ repo: gh('acme', 'api') }, channel)).toEqual({
      repo: gh('acme', 'api'),
      branch: 'main',
    });
    expect(resolveTarget({ repo: gh('ACME', 'Web') }, channel)?.branch).toBe('develop');
  });
  it('gives nothing when no repository is known', () => {
    expect(resolveTarget({ branch: 'main' })).toBeUndefined();
    expect(resolveTarget(undefined)).toBeUndefined();
  });
  it('formats with the host only when it is not github.com', () => {
    expect(formatQueueRef({ repo: gh('acme', 'web'), branch: 'main' })).toBe('acme/web:main');
    expect(formatQueueRef({ repo: { host: 'gitlab.com', owner: 'a', name: 'b' }, branch: 'x' })).toBe(
      'gitlab.com/a/b:x',
    );
  });
});
