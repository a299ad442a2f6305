/**
 * Which pasted links the app unfurls, read from their URL alone (pure: no Trunk, no Slack, no store).
 *
 * On the host of TRUNK_APP_URL:
 * - the app's own queue links, exactly as slack/blocks/format.ts's trunkQueueUrl builds them:
 *   `/<org>/merge-queue/<owner>/<repo>?branch=<branch>`;
 * - webhook detail links `/gh/<owner>/<repo>/merge/<branch>/<n>` (the branch may hold slashes);
 * - v2 PR links `/<org>/pull/<n>?repo=<owner>/<repo>` (optionally `&branch=`).
 * On github.com: PR links `https://github.com/<owner>/<repo>/pull/<n>` (and its tabs: `/files`, `/checks`…).
 *
 * Anything else is not a link the app unfurls (undefined), never an error: people paste all sorts.
 */
import { branchError, DEFAULT_HOST, type RepoRef } from '../core/target.ts';

export type UnfurlLink =
  | {
      kind: 'queue';
      from: 'trunk';
      /** The Trunk organization slug the URL names. */
      org: string;
      repo: RepoRef;
      branch: string;
    }
  | {
      kind: 'pr';
      from: 'trunk' | 'github';
      /** Named by v2 PR links only. */
      org?: string;
      repo: RepoRef;
      /** Named by queue-specific links (webhook details, `?branch=`); otherwise the workspace's queue of the repo. */
      branch?: string;
      number: number;
    };

const SEGMENT = /^[A-Za-z0-9_.-]{1,100}$/;
const NUMBER = /^[1-9]\d{0,9}$/;
const GITHUB_HOSTS = new Set(['github.com', 'www.github.com']);
/** Slack sends links as typed; a URL longer than this is not one of ours. */
const MAX_URL = 2_000;

/**
 * Slack escapes `&`, `<` and `>` in the URLs of link_shared as it does in message text
 * (`?repo=acme/web&amp;branch=main`); read as typed, `&amp;branch` would be a parameter named `amp;branch`.
 * Should a URL come in message markup (`<url|label>`), only the URL is read. Only the reading is unescaped:
 * chat.unfurl is keyed by the URL exactly as Slack sent it.
 */
function unescapeSlack(url: string): string {
  const bare = url.replace(/^<([^|>]*)(?:\|[^>]*)?>$/, '$1');
  return bare.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
}

/** The links of `url` the app may unfurl; `trunkAppUrl` is TRUNK_APP_URL. */
export function parseUnfurlLink(url: string, trunkAppUrl: string): UnfurlLink | undefined {
  if (typeof url !== 'string' || url.length > MAX_URL) return undefined;
  let u: URL;
  let base: URL;
  try {
    u = new URL(unescapeSlack(url));
    base = new URL(trunkAppUrl);
  } catch {
    return undefined;
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') return undefined;
  const host = u.host.toLowerCase();
  if (host === base.host.toLowerCase()) {
    const prefix = base.pathname.replace(/\/+$/, '');
    if (!u.pathname.startsWith(`${prefix}/`)) return undefined;
    return trunkLink(segments(u.pathname.slice(prefix.length)), u.searchParams);
  }
  if (GITHUB_HOSTS.has(host)) return githubLink(segments(u.pathname));
  return undefined;
}

/** The URL's path segments, percent-decoded; undefined when one cannot be decoded. */
function segments(path: string): string[] | undefined {
  try {
    return path
      .split('/')
      .filter((s) => s !== '')
      .map((s) => decodeURIComponent(s));
  } catch {
    return undefined;
  }
}

function repoOf(owner: string | undefined, name: string | undefined): RepoRef | undefined {
  if (!owner || !name || !SEGMENT.test(owner) || !SEGMENT.test(name)) return undefined;
  return { host: DEFAULT_HOST, owner, name };
}

function branchOf(text: string | null | undefined): string | undefined {
  if (text === null || text === undefined) return undefined;
  return branchError(text) ? undefined : text;
}

function trunkLink(parts: string[] | undefined, query: URLSearchParams): UnfurlLink | undefined {
  if (!parts || parts.length < 3) return undefined;
  // /gh/<owner>/<repo>/merge/<branch…>/<n>
  if (parts[0] === 'gh' && parts[3] === 'merge' && parts.length >= 6) {
    const repo = repoOf(parts[1], parts[2]);
    const n = parts.at(-1)!;
    const branch = branchOf(parts.slice(4, -1).join('/'));
    if (!repo || !branch || !NUMBER.test(n)) return undefined;
    return { kind: 'pr', from: 'trunk', repo, branch, number: Number(n) };
  }
  const [org, what, ...rest] = parts;
  if (!org || !SEGMENT.test(org)) return undefined;
  // /<org>/merge-queue/<owner>/<repo>?branch=<branch>
  if (what === 'merge-queue' && rest.length === 2) {
    const repo = repoOf(rest[0], rest[1]);
    const branch = branchOf(query.get('branch'));
    if (!repo || !branch) return undefined;
    return { kind: 'queue', from: 'trunk', org, repo, branch };
  }
  // /<org>/pull/<n>?repo=<owner>/<repo>[&branch=<branch>]
  if (what === 'pull' && rest.length === 1 && NUMBER.test(rest[0]!)) {
    const named = (query.get('repo') ?? '').replace(/^github\.com\//i, '').split('/');
    const repo = named.length === 2 ? repoOf(named[0], named[1]) : undefined;
    if (!repo) return undefined;
    const branch = branchOf(query.get('branch'));
    return {
      kind: 'pr',
      from: 'trunk',
      org,
      repo,
      ...(branch ? { branch } : {}),
      number: Number(rest[0]),
    };
  }
  return undefined;
}

function githubLink(parts: string[] | undefined): UnfurlLink | undefined {
  // /<owner>/<repo>/pull/<n>[/files|/commits|/checks…]
  if (!parts || parts.length < 4 || parts[2] !== 'pull' || !NUMBER.test(parts[3]!)) return undefined;
  const repo = repoOf(parts[0], parts[1]);
  if (!repo) return undefined;
  return { kind: 'pr', from: 'github', repo, number: Number(parts[3]) };
}

/** A key naming what the link shows, so the same PR or queue pasted twice (or in two forms) is read once. */
export function unfurlKey(link: UnfurlLink, branch: string): string {
  const repo = `${link.repo.host}/${link.repo.owner}/${link.repo.name}:${branch}`.toLowerCase();
  return link.kind === 'queue' ? `queue ${repo}` : `pr ${repo}#${link.number}`;
}
