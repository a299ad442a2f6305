/**
 * Realistic flaky-test rows from a seed. Row i depends only on (seed, repo, i), so a page can be built
 * lazily without materialising the whole list, and lazy and materialised lists are identical.
 */
import type { FailingTest, QuarantinedTest, Repo } from '../../../src/trunk/types.ts';
import { createRng, hashString, intBetween, mixSeed, pick, type Rng, uuidFrom } from './rng.ts';

/** A failing test as the service sends it: the OpenAPI also has `status.value`. */
export type WireFailingTest = FailingTest & { status: FailingTest['status'] & { value?: string } };
/** A quarantined test as the service sends it: the OpenAPI also has `status` and `quarantine_setting`. */
export type WireQuarantinedTest = QuarantinedTest & { status?: string; quarantine_setting?: string };

export interface GenerateOptions {
  seed: number;
  /** Rows are built on demand per page instead of being held in memory. */
  lazy?: boolean;
  /** Window for `status.timestamp` (failing) or `quarantined_at` (quarantined). Default: the 24 h (failing) or 30 days (quarantined) before now. */
  start?: Date | string | number;
  end?: Date | string | number;
  /** Organisation slug used in html_url; default the repo owner. */
  orgSlug?: string;
  /** Share of failing tests with a ticket, 0..1; default 0.25. */
  ticketRate?: number;
  /** Share of failing tests already quarantined, 0..1; default 0.3. */
  quarantinedRate?: number;
}

const TEAMS: Record<string, readonly string[]> = {
  payments: ['refunds', 'ledger', 'payouts', 'card_tokens', 'disputes'],
  checkout: ['cart', 'pricing', 'promotions', 'tax', 'shipping_quotes'],
  search: ['indexer', 'ranking', 'autocomplete', 'facets', 'synonyms'],
  identity: ['sessions', 'oauth', 'mfa', 'password_reset', 'sso'],
  notifications: ['email', 'push', 'webhooks', 'digests', 'templates'],
  billing: ['invoices', 'subscriptions', 'usage', 'dunning', 'credits'],
  platform: ['rate_limiter', 'feature_flags', 'migrations', 'queue_worker', 'cache'],
  mobile: ['offline_sync', 'deep_links', 'onboarding', 'media_upload', 'settings'],
};
const TEAM_NAMES = Object.keys(TEAMS);

const BEHAVIOURS = [
  'handles a partial refund',
  'retries when the gateway times out',
  'rejects an expired token',
  'renders totals with currency rounding',
  'reconciles after a restart',
  'keeps ordering under concurrent writes',
  'returns cached results within ttl',
  'paginates past the last page',
  'survives a dropped connection',
  'applies the discount once',
  'sends the message at local time',
  'deduplicates double submissions',
  'rolls back on validation failure',
  'streams large exports',
  'migrates legacy rows',
  'falls back when the flag service is down',
  'limits requests per tenant',
  'uploads in resumable chunks',
  'refreshes the session before expiry',
  'reports progress to the caller',
];

const FAILURES = [
  'AssertionError: expected 200, got 503',
  'TimeoutError: waited 5000ms for selector [data-test=submit]',
  'Error: socket hang up (ECONNRESET)',
  'expected [ 1, 2, 3 ] to deeply equal [ 1, 3, 2 ]',
  'NullPointerException at LedgerService.reconcile(LedgerService.java:142)',
  'context deadline exceeded',
  'psycopg.errors.DeadlockDetected: deadlock detected',
  'Snapshot mismatch: 1 line changed',
  'OOMKilled: container exceeded 2Gi',
  'port 5432 already in use',
];

const REASONS = [
  'Failed {f} of {r} runs in the last 7 days',
  'Passed on retry {f} times this week',
  'Failure rate crossed the flaky threshold',
  'Started failing on main after a merge',
  'Inconsistent results on the same commit',
];

/** Variants per language (TypeScript, Python, Go, Java); most tests have none. */
const VARIANTS: readonly (readonly string[])[] = [
  ['', '', '', 'node-24', 'chromium', 'webkit'],
  ['', '', '', 'py3.12', 'py3.13'],
  ['', '', '', 'linux-amd64', 'race'],
  ['', '', '', 'jdk21', 'jdk17'],
];

function pascal(snake: string): string {
  return snake
    .split(/[_\s]+/)
    .map((w) => (w[0] ?? '').toUpperCase() + w.slice(1))
    .join('');
}

function toMs(value: Date | string | number): number {
  return value instanceof Date ? value.getTime() : typeof value === 'number' ? value : Date.parse(value);
}

export interface Identity {
  name: string;
  parent: string;
  classname: string;
  file: string;
  variant: string;
  codeowners: string[];
  team: string;
}

const COMBOS = TEAM_NAMES.length * 5 * BEHAVIOURS.length * 4;
// Name fragments are computed once: generation builds tens of thousands of rows.
const PASCAL = new Map<string, string>();
for (const text of [...Object.values(TEAMS).flat(), ...BEHAVIOURS]) PASCAL.set(text, pascal(text));
const SNAKE = new Map(BEHAVIOURS.map((b) => [b, b.replace(/\s+/g, '_')]));
const JAVA_METHOD = new Map(
  BEHAVIOURS.map((b) => [b, (PASCAL.get(b) as string).replace(/^./, (ch) => ch.toLowerCase())]),
);

/** Name, file, suite and owners of test i, in the style of its language's test runner. */
function identity(rng: Rng, repo: Repo, i: number, seed: number): Identity {
  // The first COMBOS rows walk a seed-shifted permutation of (team, module, behaviour, language), so
  // names are unique; later rows are parametrised cases, as in big real suites.
  let c = ((((i % COMBOS) + (seed % COMBOS)) % COMBOS) * 1031) % COMBOS;
  const team = TEAM_NAMES[c % TEAM_NAMES.length] as string;
  c = Math.floor(c / TEAM_NAMES.length);
  const module = (TEAMS[team] as readonly string[])[c % 5] as string;
  c = Math.floor(c / 5);
  const behaviour = BEHAVIOURS[c % BEHAVIOURS.length] as string;
  const lang = Math.floor(c / BEHAVIOURS.length) % 4;
  const Module = PASCAL.get(module) as string;
  const suffix = i < COMBOS ? '' : String(i);
  const owners = [`@${repo.owner}/${team}`];
  const extra = rng();
  if (extra < 0.15) owners.push(`@${repo.owner}/platform-reviewers`);
  else if (extra < 0.2) owners.length = 0;
  const variant = pick(rng, VARIANTS[lang] as readonly string[]);
  switch (lang) {
    case 0: {
      const file = `packages/${team}/src/${module}/${Module}.test.ts`;
      return {
        name: suffix ? `${behaviour} (case ${suffix})` : behaviour,
        parent: `${Module} > ${pick(rng, ['happy path', 'errors', 'edge cases'])}`,
        classname: `${team}.${module}`,
        file,
        variant,
        codeowners: owners,
        team,
      };
    }
    case 1: {
      const snake = SNAKE.get(behaviour) as string;
      return {
        name: suffix ? `test_${snake}[case-${suffix}]` : `test_${snake}`,
        parent: `Test${Module}`,
        classname: `services.${team}.tests.test_${module}.Test${Module}`,
        file: `services/${team}/tests/test_${module}.py`,
        variant,
        codeowners: owners,
        team,
      };
    }
    case 2: {
      const pkg = `github.com/${repo.owner}/${repo.name}/internal/${team}/${module}`;
      return {
        name: `Test${Module}/${SNAKE.get(behaviour)}${suffix ? `#${suffix}` : ''}`,
        parent: pkg,
        classname: pkg,
        file: `internal/${team}/${module}/${module}_test.go`,
        variant,
        codeowners: owners,
        team,
      };
    }
    default: {
      const cls = `com.${javaPackage(repo.owner)}.${team}.${Module}Test`;
      return {
        name: `${JAVA_METHOD.get(behaviour)}()${suffix ? `[${suffix}]` : ''}`,
        parent: cls,
        classname: cls,
        file: `src/test/java/${cls.replace(/\./g, '/')}.java`,
        variant,
        codeowners: owners,
        team,
      };
    }
  }
}

const javaPackages = new Map<string, string>();
function javaPackage(owner: string): string {
  let pkg = javaPackages.get(owner);
  if (pkg === undefined) {
    pkg = owner.toLowerCase().replace(/[^a-z0-9]/g, '') || 'example';
    javaPackages.set(owner, pkg);
  }
  return pkg;
}

interface Context {
  repo: Repo;
  seed: number;
  start: number;
  end: number;
  org: string;
  ticketRate: number;
  quarantinedRate: number;
}

export function context(repo: Repo, opts: GenerateOptions, now: number, defaultSpanMs: number): Context {
  const end = opts.end !== undefined ? toMs(opts.end) : now;
  const start = opts.start !== undefined ? toMs(opts.start) : end - defaultSpanMs;
  if (!(start < end)) throw new Error('generate: start must be before end');
  return {
    repo,
    seed: (opts.seed ^ hashString(`${repo.host}/${repo.owner}/${repo.name}`.toLowerCase())) >>> 0,
    start,
    end,
    org: opts.orgSlug ?? repo.owner.toLowerCase(),
    ticketRate: opts.ticketRate ?? 0.25,
    quarantinedRate: opts.quarantinedRate ?? 0.3,
  };
}

/** The first draw of row i is its timestamp, so filtering by window needs no full row. */
export function generatedTime(ctx: Context, i: number): number {
  const rng = createRng(mixSeed(ctx.seed, i));
  return ctx.start + Math.floor(rng() * (ctx.end - ctx.start));
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;

export function generateFailingTest(ctx: Context, i: number): WireFailingTest {
  const rng = createRng(mixSeed(ctx.seed, i));
  const ts = ctx.start + Math.floor(rng() * (ctx.end - ctx.start));
  const id = uuidFrom(rng);
  const who = identity(rng, ctx.repo, i, ctx.seed);
  const rate7d = round3(Math.min(1, 0.005 + rng() * rng() * 0.6));
  const rate24h = round3(Math.min(1, Math.max(0, rate7d + (rng() - 0.5) * 0.2)));
  const runs = intBetween(rng, 40, 400);
  const failed = Math.max(1, Math.round(runs * rate7d));
  const failures = [];
  const nFailures = intBetween(rng, 1, 3);
  const firstFailure = intBetween(rng, 0, FAILURES.length - 1);
  for (let k = 0; k < nFailures; k++) {
    failures.push({
      summary: FAILURES[(firstFailure + k * 3) % FAILURES.length] as string,
      occurrence_count: Math.max(1, Math.round(failed / (k + 1.5))),
      last_occurrence: new Date(ts - Math.floor(rng() * 3_600_000 * k)).toISOString(),
    });
  }
  const quarantined = rng() < ctx.quarantinedRate;
  const broken = rng() < 0.1;
  const test: WireFailingTest = {
    id,
    repository: { html_url: `https://${ctx.repo.host}/${ctx.repo.owner}/${ctx.repo.name}` },
    html_url: `https://app.trunk.io/${ctx.org}/flaky-tests/test/${id}?repo=${ctx.repo.owner}/${ctx.repo.name}`,
    name: who.name,
    variant: who.variant,
    status: {
      value: broken ? 'broken' : 'flaky',
      reason: pick(rng, REASONS).replace('{f}', String(failed)).replace('{r}', String(runs)),
      timestamp: new Date(ts).toISOString(),
    },
    most_common_failures: failures,
    failure_rate_last_7d: rate7d,
    failure_rate_last_24h: rate24h,
    codeowners: who.codeowners,
    pull_requests_impacted_last_7d: Math.round(failed * (0.2 + rng() * 0.6)),
    quarantined,
    file_path: who.file,
    parent: who.parent,
    classname: who.classname,
  };
  if (rng() < ctx.ticketRate) {
    const key = `${who.team.slice(0, 3).toUpperCase()}-${intBetween(rng, 100, 4999)}`;
    test.ticket = {
      html_url:
        rng() < 0.5
          ? `https://linear.app/${ctx.org}/issue/${key}`
          : `https://${ctx.org}.atlassian.net/browse/${key}`,
    };
  }
  return test;
}

export function generateQuarantinedTest(ctx: Context, i: number): WireQuarantinedTest {
  const rng = createRng(mixSeed(ctx.seed ^ 0x51ed270b, i));
  const at = ctx.start + Math.floor(rng() * (ctx.end - ctx.start));
  const updated = at + Math.floor(rng() * (ctx.end - at));
  const who = identity(rng, ctx.repo, i, ctx.seed);
  return {
    name: who.name,
    parent: who.parent,
    file: who.file,
    classname: who.classname,
    status: rng() < 0.15 ? 'BROKEN' : 'FLAKY',
    codeowners: who.codeowners,
    quarantine_setting: rng() < 0.2 ? 'ALWAYS_QUARANTINE' : 'AUTO_QUARANTINE',
    quarantined_at: new Date(at).toISOString(),
    status_last_updated_at: new Date(updated).toISOString(),
    test_case_id: uuidFrom(rng),
    variant: who.variant,
  };
}

let made = 0;
const DEFAULT_REPO: Repo = { host: 'github.com', owner: 'acme', name: 'web' };

/** A complete failing test with realistic values, overridden by `partial` (status is merged). */
export function makeFailingTest(
  partial: Partial<WireFailingTest> = {},
  repo: Repo = DEFAULT_REPO,
): WireFailingTest {
  const base = generateFailingTest(context(repo, { seed: 7 }, Date.UTC(2026, 0, 15, 12), 86_400_000), made++);
  const { status, ...rest } = partial;
  const out: WireFailingTest = { ...base, ...stripUndefined(rest), status: { ...base.status, ...status } };
  if ('ticket' in partial && partial.ticket === undefined) delete out.ticket;
  return out;
}

/** A complete quarantined test with realistic values, overridden by `partial`. */
export function makeQuarantinedTest(
  partial: Partial<WireQuarantinedTest> = {},
  repo: Repo = DEFAULT_REPO,
): WireQuarantinedTest {
  const base = generateQuarantinedTest(
    context(repo, { seed: 11 }, Date.UTC(2026, 0, 15, 12), 30 * 86_400_000),
    made++,
  );
  return { ...base, ...stripUndefined(partial) };
}

function stripUndefined<T extends object>(partial: T): T {
  const out = {} as T;
  for (const [k, v] of Object.entries(partial)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}
