/**
 * Which workspace a request is for, decided once, before Bolt authorizes it or any listener runs. A slash
 * command typed in a Slack Connect channel by someone of another organization carries *their* `team_id`
 * (and `enterprise_id`), as Slack documents for shared channels; taking that team for our own workspace
 * would let their admins act on our queues with our Trunk token.
 *
 * - Single-workspace mode (SLACK_BOT_TOKEN): our workspace is the one the bot token belongs to, asked of
 *   Slack once (`auth.test`) and kept. A request naming another team or enterprise is refused.
 * - OAuth: a team or enterprise acts only through its own installation (and so its own Trunk connection);
 *   one with no installation is refused instead of Bolt's silent 200.
 *
 * A refusal changes nothing and says why: in the slash command's ack (ephemeral), through a click's
 * response_url, or as a modal for a form; it is audited like every other refusal (the `audit` port). Events API
 * deliveries name the installation, not a person: in OAuth mode they go on to Bolt; in single-workspace
 * mode one for another workspace is acknowledged and dropped.
 */
import type { AckFn, ReceiverEvent } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { Counter, type Registry } from 'prom-client';
import { answerWithin } from '../core/deadline.ts';
import type { Logger } from '../observability/log.ts';
import { installationKey } from './installation-store.ts';
import type { AuditLine, InstallationRecords } from './ports.ts';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);

/** Who a request says it comes from, read the way Bolt reads it to pick an installation. */
export interface RequestParty {
  kind: 'command' | 'interaction' | 'event';
  /** The payload type (`block_actions`, `view_submission`, …), the command, or the event type. */
  type: string;
  teamId?: string;
  enterpriseId?: string;
  isEnterpriseInstall: boolean;
  userId?: string;
  responseUrl?: string;
  /** What the person asked for, for the audit: a subcommand, an action_id or a callback_id. */
  action: string;
}

/** The team and enterprise a signed body names, or undefined for bodies that name none (url_verification). */
export function requestParty(body: unknown): RequestParty | undefined {
  if (!isObj(body)) return undefined;
  if (typeof body['command'] === 'string') {
    const word = String(body['text'] ?? '')
      .trim()
      .split(/\s+/)[0]
      ?.toLowerCase();
    return withOptional({
      kind: 'command',
      type: body['command'],
      teamId: str(body['team_id']),
      enterpriseId: str(body['enterprise_id']),
      isEnterpriseInstall: body['is_enterprise_install'] === true || body['is_enterprise_install'] === 'true',
      userId: str(body['user_id']),
      responseUrl: str(body['response_url']),
      action: (word || 'help').slice(0, 40),
    });
  }
  const type = str(body['type']);
  if (!type) return undefined;
  if (type === 'event_callback') {
    const auth = Array.isArray(body['authorizations']) ? body['authorizations'][0] : undefined;
    const event = isObj(body['event']) ? body['event'] : {};
    const a = isObj(auth) ? auth : undefined;
    return withOptional({
      kind: 'event',
      type: str(event['type']) ?? 'event',
      teamId: str(a?.['team_id']) ?? str(body['team_id']),
      enterpriseId: str(a?.['enterprise_id']) ?? str(body['enterprise_id']),
      isEnterpriseInstall: a?.['is_enterprise_install'] === true || body['is_enterprise_install'] === true,
      userId: typeof event['user'] === 'string' ? event['user'] : undefined,
      action: str(event['type']) ?? 'event',
    });
  }
  const user = isObj(body['user']) ? body['user'] : undefined;
  if (!user) return undefined;
  const team = isObj(body['team']) ? body['team'] : undefined;
  const enterprise = isObj(body['enterprise']) ? body['enterprise'] : undefined;
  const view = isObj(body['view']) ? body['view'] : undefined;
  const actions = Array.isArray(body['actions']) ? body['actions'] : [];
  const first = isObj(actions[0]) ? actions[0] : undefined;
  return withOptional({
    kind: 'interaction',
    type,
    // A modal opened through a Slack Connect channel names the workspace that installed the app.
    teamId: str(view?.['app_installed_team_id']) ?? str(team?.['id']) ?? str(user['team_id']),
    enterpriseId: str(enterprise?.['id']) ?? str(team?.['enterprise_id']),
    isEnterpriseInstall: body['is_enterprise_install'] === true,
    userId: str(user['id']),
    responseUrl: str(body['response_url']),
    action: (
      str(first?.['action_id']) ??
      str(view?.['callback_id']) ??
      str(body['callback_id']) ??
      type
    ).slice(0, 80),
  });
}

type Loose<T> = { [K in keyof T]: T[K] | undefined };
/** The party without its undefined fields (exactOptionalPropertyTypes). */
function withOptional(o: Loose<RequestParty>): RequestParty {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as unknown as RequestParty;
}

/** The workspace a bot token belongs to, as `auth.test` says. */
export interface OwnWorkspace {
  teamId?: string;
  enterpriseId?: string;
  /** An org-wide (Enterprise Grid) token: every workspace of the enterprise is ours. */
  orgWide: boolean;
}

export type Verdict =
  | { ours: true; workspaceId: string }
  | {
      ours: false;
      why: 'another-organization' | 'same-enterprise' | 'not-installed' | 'unverified';
      /** Where the refusal is audited: our workspace, or the one the request named (OAuth). */
      auditWorkspaceId: string;
    };

/** Whether a request naming `party`'s team and enterprise is for `own` (single-workspace mode). Pure. */
export function judgeSingle(party: RequestParty, own: OwnWorkspace): Verdict {
  const ownId = own.orgWide ? (own.enterpriseId ?? own.teamId ?? '') : (own.teamId ?? '');
  if (own.orgWide) {
    if (party.enterpriseId === own.enterpriseId || (!party.enterpriseId && party.teamId === own.enterpriseId))
      return { ours: true, workspaceId: ownId };
    return { ours: false, why: 'another-organization', auditWorkspaceId: ownId };
  }
  const enterpriseOk = !party.enterpriseId || party.enterpriseId === own.enterpriseId;
  if (party.teamId === own.teamId && enterpriseOk) return { ours: true, workspaceId: ownId };
  const sameEnterprise = Boolean(own.enterpriseId) && party.enterpriseId === own.enterpriseId;
  return {
    ours: false,
    why: sameEnterprise ? 'same-enterprise' : 'another-organization',
    auditWorkspaceId: ownId,
  };
}

/** What the person reads (ephemeral), and the audit's `because`. */
export const REFUSALS: Record<Exclude<Verdict, { ours: true }>['why'], string> = {
  'another-organization':
    'mergequeue here belongs to another organization’s workspace: people of another organization (in a shared channel) cannot use it, whatever their own organization calls them. Nothing was changed.',
  'same-enterprise':
    'you belong to this Enterprise Grid organization but not to the workspace mergequeue is installed in, and only that workspace’s own members can use it. Nothing was changed.',
  'not-installed':
    'mergequeue is not installed in your workspace, so it acts on nothing for you here (a shared channel does not lend you another organization’s installation). Nothing was changed; an admin of your workspace can install it.',
  unverified:
    'mergequeue could not confirm with Slack which workspace it belongs to, so it acts on nothing right now. Nothing was changed; try again in a minute.',
};

/** The request must be answered within Slack's 3 s: waiting for auth.test is bounded by this. */
const IDENTITY_BUDGET_MS = 1500;

/**
 * Our own workspace in single-workspace mode: `auth.test` with the configured bot token, asked at start
 * and kept. A failed answer is not kept: the next request asks again (and is refused meanwhile).
 */
export function ownWorkspaceOf(client: () => WebClient, logger: Pick<Logger, 'warn'>) {
  let known: Promise<OwnWorkspace> | undefined;
  const ask = (): Promise<OwnWorkspace> => {
    if (known) return known;
    const p = client()
      .auth.test()
      .then((who) => {
        const r = who as typeof who & { is_enterprise_install?: boolean };
        const own: OwnWorkspace = { orgWide: r.is_enterprise_install === true };
        if (r.team_id) own.teamId = r.team_id;
        if (r.enterprise_id) own.enterpriseId = r.enterprise_id;
        if (!own.teamId && !own.enterpriseId) throw new Error('auth.test named no team or enterprise');
        return own;
      });
    known = p;
    p.catch((err: unknown) => {
      if (known === p) known = undefined;
      logger.warn({ err }, 'auth.test failed: requests are refused until Slack says whose the bot token is');
    });
    return p;
  };
  return {
    /** Starts the question (at start-up); errors are logged, not thrown. */
    warm: () => void ask().catch(() => undefined),
    get: ask,
  };
}

export interface RequestWorkspaceOptions {
  mode: 'single' | 'oauth';
  /** Single-workspace mode: whose the bot token is (ownWorkspaceOf). */
  own?: () => Promise<OwnWorkspace>;
  /** OAuth: the stored installations (Bolt's installation store), asked whether a team or enterprise has one. */
  installations: Pick<InstallationRecords, 'load'>;
  /**
   * Writes a refusal to the audit log; the composition root hands in the store's retrying audit write
   * (store/audit-retrying.ts). A failure it throws is logged.
   */
  audit: (entry: AuditLine) => Promise<void>;
  logger: Logger;
  now: () => number;
  /** Where a refusal may be posted: Slack's own hooks host, or the configured Slack API's (the fake). */
  slackApiUrl: string;
  /** Counts refusals in `mergequeue_foreign_requests_refused_total{why}`. */
  registry?: Registry;
}

const counters = new WeakMap<Registry, Counter<'why'>>();
function refusedCounter(registry: Registry | undefined): Counter<'why'> | undefined {
  if (!registry) return undefined;
  let c = counters.get(registry);
  if (!c) {
    c = new Counter({
      name: 'mergequeue_foreign_requests_refused_total',
      help: 'Slack requests refused because they named a team or enterprise that is not ours',
      labelNames: ['why'],
      registers: [registry],
    });
    counters.set(registry, c);
  }
  return c;
}

/**
 * Puts the decision in front of Bolt (every receiver calls app.processEvent): a request for a workspace
 * that is not ours is answered and dropped before authorize, middleware or any listener.
 */
export function guardRequestWorkspace(
  app: { processEvent(event: ReceiverEvent): Promise<void> },
  opts: RequestWorkspaceOptions,
): void {
  const process = app.processEvent.bind(app);
  const refused = refusedCounter(opts.registry);
  app.processEvent = async (event) => {
    const party = requestParty(event.body);
    if (!party) return process(event);
    // OAuth events name the installation that receives them (uninstall, revocation): Bolt's concern.
    if (party.kind === 'event' && opts.mode === 'oauth') return process(event);
    const verdict = await judge(party, opts);
    if (verdict.ours) return process(event);
    refused?.inc({ why: verdict.why });
    await refuse(event.ack, party, verdict, opts);
  };
}

/** What each answered `own()` promise said. */
const ownKnown = new WeakMap<Promise<OwnWorkspace>, OwnWorkspace>();

async function judge(party: RequestParty, opts: RequestWorkspaceOptions): Promise<Verdict> {
  if (opts.mode === 'single') {
    try {
      const asked = opts.own!();
      // The answer is kept (ownWorkspaceOf hands out the same promise): no budget timer once it is known.
      let own = ownKnown.get(asked);
      if (!own) {
        own = await withBudget(asked, IDENTITY_BUDGET_MS);
        ownKnown.set(asked, own);
      }
      return judgeSingle(party, own);
    } catch {
      return {
        ours: false,
        why: 'unverified',
        auditWorkspaceId: party.enterpriseId ?? party.teamId ?? '',
      };
    }
  }
  let key: string;
  try {
    key = installationKey(party);
  } catch {
    return { ours: false, why: 'not-installed', auditWorkspaceId: party.enterpriseId ?? '' };
  }
  try {
    if (await opts.installations.load(key)) return { ours: true, workspaceId: key };
  } catch (err) {
    // The store is not answering: Bolt's own lookup fails the same way and says so in its log.
    opts.logger.error({ err }, 'could not read the installation of a request; leaving it to Bolt');
    return { ours: true, workspaceId: key };
  }
  return { ours: false, why: 'not-installed', auditWorkspaceId: key };
}

async function refuse(
  ack: AckFn<unknown>,
  party: RequestParty,
  verdict: Exclude<Verdict, { ours: true }>,
  opts: RequestWorkspaceOptions,
): Promise<void> {
  const text = `:no_entry: ${capitalise(REFUSALS[verdict.why])}`;
  const detail = {
    because: REFUSALS[verdict.why],
    requestTeam: party.teamId ?? null,
    requestEnterprise: party.enterpriseId ?? null,
    via: party.kind === 'command' ? 'command' : party.type,
  };
  opts.logger.warn(
    { why: verdict.why, kind: party.kind, type: party.type, ...detail, because: undefined },
    'a request for a workspace that is not ours was refused before any listener',
  );
  if (party.kind === 'command') await ack({ response_type: 'ephemeral', text });
  else if (party.type === 'view_submission')
    await ack({
      response_action: 'update',
      view: {
        type: 'modal',
        title: { type: 'plain_text', text: 'mergequeue' },
        close: { type: 'plain_text', text: 'Close' },
        blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }],
      },
    });
  else await ack();

  if (party.kind === 'event') return;
  if (party.responseUrl && party.kind === 'interaction')
    await postRefusal(party.responseUrl, text, opts).catch((err: unknown) =>
      opts.logger.warn({ err }, 'could not tell the person their request was refused'),
    );
  if (!party.userId || !verdict.auditWorkspaceId) return;
  await opts
    .audit({
      workspaceId: verdict.auditWorkspaceId,
      userId: party.userId,
      action: party.action,
      target: '',
      outcome: 'refused',
      detail,
      at: opts.now(),
    })
    .catch((err: unknown) => opts.logger.error({ err }, 'audit of a refused request lost'));
}

/** An ephemeral reply beside the clicked message; only to Slack's hooks host or the configured API's. */
async function postRefusal(url: string, text: string, opts: RequestWorkspaceOptions): Promise<void> {
  const target = new URL(url);
  const api = new URL(opts.slackApiUrl);
  const slackHost = target.protocol === 'https:' && target.hostname === 'hooks.slack.com';
  if (!slackHost && target.origin !== api.origin) return;
  const res = await fetch(target, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ response_type: 'ephemeral', replace_original: false, text }),
    signal: AbortSignal.timeout(5_000),
  });
  if (!res.ok) throw new Error(`response_url answered ${res.status}`);
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function withBudget<T>(p: Promise<T>, ms: number): Promise<T> {
  return answerWithin(p, ms, () => new Error(`no answer within ${ms} ms`));
}
