/**
 * Queue targets as people type them: `[host/]owner/repo[:branch]` or `:branch`.
 * Pure parsing, shared by configuration (DEFAULT_REPO), commands and channel defaults.
 */

export const DEFAULT_HOST = 'github.com';
export const DEFAULT_BRANCH = 'main';

export interface RepoRef {
  host: string;
  owner: string;
  name: string;
}

/** What a person typed: either part may be missing and is filled from defaults later. */
export interface TargetSpec {
  repo?: RepoRef;
  branch?: string;
}

/** A fully resolved queue address. */
export interface QueueRef {
  repo: RepoRef;
  branch: string;
}

export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: string };

const HOST_RE =
  /^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+(?::\d{1,5})?$/;
const SEGMENT_RE = /^[A-Za-z0-9_.-]{1,100}$/;

/** Git ref-name rules, the parts that matter for a typed branch name. */
export function branchError(branch: string): string | undefined {
  if (branch.length === 0) return 'the branch name is empty';
  if (branch.length > 255) return 'the branch name is longer than 255 characters';
  // biome-ignore lint/suspicious/noControlCharactersInRegex: git forbids control characters in ref names
  if (/[\s~^:?*[\\\x00-\x1f\x7f]/.test(branch))
    return `the branch name "${branch}" has a character git does not allow`;
  if (branch.startsWith('-') || branch.startsWith('/') || branch.endsWith('/') || branch.endsWith('.'))
    return `the branch name "${branch}" cannot start with "-" or "/", or end with "/" or "."`;
  if (branch.includes('..') || branch.includes('//') || branch.includes('@{') || branch.endsWith('.lock'))
    return `the branch name "${branch}" is not a valid git branch name`;
  return undefined;
}

const EXAMPLE = 'Write it as `owner/repo`, `owner/repo:branch`, `gitlab.com/owner/repo:branch` or `:branch`.';

/** Parses `[host/]owner/repo[:branch]` or `:branch`. Never throws. */
export function parseTarget(input: string): ParseResult<TargetSpec> {
  const text = input.trim();
  if (text.length === 0) return { ok: false, error: `The target is empty. ${EXAMPLE}` };
  if (text.length > 400) return { ok: false, error: `The target is too long. ${EXAMPLE}` };
  const colon = text.indexOf(':', hostEnd(text));
  const repoPart = colon === -1 ? text : text.slice(0, colon);
  const branchPart = colon === -1 ? undefined : text.slice(colon + 1);

  let branch: string | undefined;
  if (branchPart !== undefined) {
    const err = branchError(branchPart);
    if (err) return { ok: false, error: `"${text}" is not a valid target: ${err}. ${EXAMPLE}` };
    branch = branchPart;
  }
  if (repoPart === '') {
    if (branch === undefined) return { ok: false, error: `"${text}" is not a valid target. ${EXAMPLE}` };
    return { ok: true, value: { branch } };
  }
  const parts = repoPart.split('/');
  let host = DEFAULT_HOST;
  let owner: string | undefined;
  let name: string | undefined;
  if (parts.length === 2) {
    [owner, name] = parts;
  } else if (parts.length === 3) {
    host = parts[0]!.toLowerCase();
    [, owner, name] = parts;
    if (!HOST_RE.test(host))
      return {
        ok: false,
        error: `"${parts[0]}" in "${text}" is not a host name like github.com. ${EXAMPLE}`,
      };
  } else {
    return { ok: false, error: `"${text}" is not a valid target. ${EXAMPLE}` };
  }
  if (!owner || !name || !SEGMENT_RE.test(owner) || !SEGMENT_RE.test(name) || owner === '.' || name === '.')
    return {
      ok: false,
      error: `"${text}" is not a valid target: owner and repository may use letters, digits, "-", "_" and ".". ${EXAMPLE}`,
    };
  const value: TargetSpec = { repo: { host, owner, name } };
  if (branch !== undefined) value.branch = branch;
  return { ok: true, value };
}

/** Where the host part may end, so that `host:port/owner/repo` is not read as a branch separator. */
function hostEnd(text: string): number {
  const firstSlash = text.indexOf('/');
  const firstColon = text.indexOf(':');
  if (firstColon === -1 || firstSlash === -1 || firstColon > firstSlash) return 0;
  // `example.com:8443/owner/repo`: a colon followed by digits and a slash belongs to the host.
  return /^[^/]*:\d{1,5}\//.test(text) ? firstSlash : 0;
}

/** Fills the missing parts of a typed target from defaults (channel first, then workspace). */
export function resolveTarget(
  typed: TargetSpec | undefined,
  ...defaults: Array<TargetSpec | undefined>
): QueueRef | undefined {
  const repo = typed?.repo ?? defaults.find((d) => d?.repo)?.repo;
  if (!repo) return undefined;
  let branch = typed?.branch;
  if (branch === undefined) {
    // A default's branch applies only to the same repository.
    const same = defaults.find((d) => d?.repo && sameRepo(d.repo, repo) && d.branch);
    branch = same?.branch ?? DEFAULT_BRANCH;
  }
  return { repo, branch };
}

export function sameRepo(a: RepoRef, b: RepoRef): boolean {
  return (
    a.host.toLowerCase() === b.host.toLowerCase() &&
    a.owner.toLowerCase() === b.owner.toLowerCase() &&
    a.name.toLowerCase() === b.name.toLowerCase()
  );
}

/** `acme/web:main`, with the host only when it is not github.com. */
export function formatQueueRef(ref: QueueRef): string {
  return `${formatRepo(ref.repo)}:${ref.branch}`;
}

export function formatRepo(repo: RepoRef): string {
  return repo.host === DEFAULT_HOST
    ? `${repo.owner}/${repo.name}`
    : `${repo.host}/${repo.owner}/${repo.name}`;
}

export function formatTargetSpec(spec: TargetSpec): string {
  return `${spec.repo ? formatRepo(spec.repo) : ''}${spec.branch !== undefined ? `:${spec.branch}` : ''}`;
}
