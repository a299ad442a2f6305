/**
 * Which pasted links unfurl, read from the URL alone: the app's own queue links (exactly as trunkQueueUrl
 * builds them), webhook detail links, v2 PR links, GitHub PR links; anything else is not one of ours.
 */
import { describe, expect, it } from 'vitest';
import { trunkQueueUrl } from '../../src/slack/blocks/format.ts';
import { parseUnfurlLink, unfurlKey } from '../../src/unfurl/links.ts';

const APP = 'https://app.trunk.io';
const repo = (owner: string, name: string) => ({ host: 'github.com', owner, name });

describe('parseUnfurlLink', () => {
  it("reads the app's own Open-in-Trunk queue links, round trip, branches with slashes included", () => {
    for (const branch of ['main', 'release/2026.11', 'feat-x']) {
      const ref = { repo: repo('acme', 'web'), branch };
      const url = trunkQueueUrl(APP, 'acme-org', ref);
      expect(parseUnfurlLink(url, APP)).toEqual({
        kind: 'queue',
        from: 'trunk',
        org: 'acme-org',
        repo: ref.repo,
        branch,
      });
    }
  });

  it('reads webhook detail links and v2 PR links', () => {
    expect(parseUnfurlLink(`${APP}/gh/acme/web/merge/release/1.2/42`, APP)).toEqual({
      kind: 'pr',
      from: 'trunk',
      repo: repo('acme', 'web'),
      branch: 'release/1.2',
      number: 42,
    });
    expect(parseUnfurlLink(`${APP}/acme-org/pull/7?repo=acme/web`, APP)).toEqual({
      kind: 'pr',
      from: 'trunk',
      org: 'acme-org',
      repo: repo('acme', 'web'),
      number: 7,
    });
    expect(parseUnfurlLink(`${APP}/acme-org/pull/7?repo=github.com/acme/web&branch=dev`, APP)).toMatchObject({
      branch: 'dev',
      number: 7,
    });
  });

  it('reads links as Slack sends them in link_shared, `&` escaped as `&amp;`', () => {
    expect(parseUnfurlLink(`${APP}/acme-org/pull/7?repo=acme/web&amp;branch=release/2`, APP)).toMatchObject({
      repo: repo('acme', 'web'),
      branch: 'release/2',
      number: 7,
    });
    expect(parseUnfurlLink(`${APP}/acme-org/merge-queue/acme/web?tab=prs&amp;branch=dev`, APP)).toMatchObject(
      {
        kind: 'queue',
        branch: 'dev',
      },
    );
  });

  it('reads a link in message markup (`<url|label>`) by its URL', () => {
    expect(parseUnfurlLink('<https://github.com/acme/web/pull/12|#12>', APP)).toMatchObject({ number: 12 });
    expect(parseUnfurlLink(`<${APP}/acme-org/pull/7?repo=acme/web&amp;branch=dev>`, APP)).toMatchObject({
      branch: 'dev',
      number: 7,
    });
  });

  it('reads GitHub PR links and their tabs', () => {
    for (const url of [
      'https://github.com/acme/web/pull/12',
      'https://github.com/acme/web/pull/12/files',
      'https://www.github.com/acme/web/pull/12#issuecomment-1',
    ])
      expect(parseUnfurlLink(url, APP)).toEqual({
        kind: 'pr',
        from: 'github',
        repo: repo('acme', 'web'),
        number: 12,
      });
  });

  it('follows TRUNK_APP_URL: another host is not a Trunk link', () => {
    const self = 'https://trunk.internal.example';
    expect(parseUnfurlLink(`${self}/acme/merge-queue/acme/web?branch=main`, self)?.kind).toBe('queue');
    expect(parseUnfurlLink(`${APP}/acme/merge-queue/acme/web?branch=main`, self)).toBeUndefined();
  });

  it('leaves everything else alone', () => {
    for (const url of [
      'https://github.com/acme/web',
      'https://github.com/acme/web/issues/3',
      'https://github.com/acme/web/pull/0',
      'https://github.com/acme/web/pull/abc',
      'https://gitlab.com/acme/web/pull/3',
      `${APP}/acme/merge-queue/acme/web`,
      `${APP}/acme/merge-queue/acme/web?branch=bad..name`,
      `${APP}/acme/pull/3`,
      `${APP}/acme/pull/3?repo=only-owner`,
      `${APP}/gh/acme/web/merge/main/x`,
      `${APP}/acme/flaky-tests/acme/web`,
      `${APP}/%E0%A4%A/merge-queue/acme/web?branch=main`,
      'javascript:alert(1)',
      'not a url',
      `https://github.com/acme/web/pull/1?${'x'.repeat(3000)}`,
    ])
      expect(parseUnfurlLink(url, APP), url).toBeUndefined();
  });

  it('names the same PR the same whichever link it came from', () => {
    const a = parseUnfurlLink('https://github.com/Acme/Web/pull/5', APP)!;
    const b = parseUnfurlLink(`${APP}/gh/acme/web/merge/main/5`, APP)!;
    expect(unfurlKey(a, 'main')).toBe(unfurlKey(b, 'main'));
    expect(unfurlKey(a, 'main')).not.toBe(unfurlKey(a, 'dev'));
  });
});
