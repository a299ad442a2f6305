/**
 * The words of `tests watch [owner <team>] [owner/repo]`, `tests unwatch [owner/repo]` and `tests list`: which
 * channels hear about flaky tests. Pure and total like grammar.ts, which wraps these answers with the usage
 * line. (`flaky` and `quarantined` are their own commands.) Also what the ticket form takes.
 */
import { formatRepo, parseTarget } from '../../core/target.ts';
import { readTicketRef } from '../../flaky/tickets.ts';
import { parseOwnerFilter } from './digest.ts';
import type { Parsed } from './watch.ts';

export type TestsCommand =
  | { kind: 'list' }
  | { kind: 'watch'; owner?: string; repo?: string }
  | { kind: 'unwatch'; repo?: string };

const clip = (s: string) => (s.length > 40 ? `${s.slice(0, 40)}…` : s);

/** `owner/repo` (or `host/owner/repo`), without a branch. */
function repoWord(word: string): Parsed<string> {
  const t = parseTarget(word);
  if (!t.ok) return { ok: false, error: t.error };
  if (!t.value.repo) return { ok: false, error: 'Name a repository like `acme/web`, not a branch.' };
  if (t.value.branch !== undefined)
    return { ok: false, error: 'Test feeds are per repository: leave out the `:branch` part.' };
  return { ok: true, value: formatRepo(t.value.repo) };
}

export function parseTests(words: string[]): Parsed<TestsCommand> {
  const [sub, ...rest] = words;
  switch (sub?.toLowerCase()) {
    case undefined:
      return { ok: false, error: 'Say what to do with the flaky-test feeds: `watch`, `unwatch` or `list`.' };
    case 'list':
      if (rest.length > 0) return { ok: false, error: '`tests list` takes no arguments.' };
      return { ok: true, value: { kind: 'list' } };
    case 'watch': {
      const value: TestsCommand = { kind: 'watch' };
      for (let i = 0; i < rest.length; i++) {
        const w = rest[i]!;
        if (w.toLowerCase() === 'owner') {
          const owner = parseOwnerFilter(rest[++i], value.owner, {
            what: 'test feed',
            example: '`/mergequeue tests watch owner @acme/payments acme/web`',
          });
          if (typeof owner !== 'string') return { ok: false, error: owner.error };
          value.owner = owner;
          continue;
        }
        if (value.repo !== undefined)
          return {
            ok: false,
            error: `\`tests watch\` takes one repository; \`${clip(w)}\` is one word too many.`,
          };
        if (!w.includes('/'))
          return {
            ok: false,
            error: `\`${clip(w)}\` is neither a repository (\`owner/repo\`) nor \`owner <team>\`, for example \`/mergequeue tests watch owner @acme/payments acme/web\`.`,
          };
        const repo = repoWord(w);
        if (!repo.ok) return repo;
        value.repo = repo.value;
      }
      return { ok: true, value };
    }
    case 'unwatch': {
      if (rest.length === 0) return { ok: true, value: { kind: 'unwatch' } };
      if (rest.length > 1) return { ok: false, error: '`tests unwatch` takes at most one repository.' };
      const repo = repoWord(rest[0]!);
      return repo.ok ? { ok: true, value: { kind: 'unwatch', repo: repo.value } } : repo;
    }
    default:
      return {
        ok: false,
        error: `\`${clip(sub ?? '')}\` is not something \`tests\` does: \`watch\`, \`unwatch\` or \`list\`. (\`/mergequeue flaky\` lists failing tests.)`,
      };
  }
}

/** What the ticket form takes: a key (`PAY-123`) or a link; the error says what to type instead. */
export const readTicketInput = readTicketRef;
