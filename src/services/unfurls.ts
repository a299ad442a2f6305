/**
 * Link unfurls (`link_shared` → `chat.unfurl`): which pasted links the app may unfurl for this person in this
 * channel, and what Trunk says of each — a PR's state with its place in line (v2's dispatch order where the
 * workspace has a v2 key, v1's queue otherwise) or the reason it failed, a queue's state, concurrency and depth.
 *
 * What unfurls:
 * - Trunk links (on TRUNK_APP_URL's host) of the workspace's own Trunk organization: its token reaches them.
 *   A v2 PR link's or queue link's org slug must be the workspace's; a webhook detail link names no org and is
 *   asked of the workspace's Trunk, which knows it or answers 404.
 * - GitHub PR links, where `/mergequeue config unfurl github on` was set, of a repository the workspace is
 *   *connected* to: one of its queues (the workspace default or DEFAULT_REPO, a channel default, a watch, a live
 *   status message — services/home.ts's list) has that repository, through a source the channel can see.
 *   An unfurl's reader is the channel, not the person who pasted the link (DESIGN's visibility rule, issue
 *   26): a source counts when it is the workspace's (no channel), a public channel, or the very channel the
 *   link was pasted in — and the person who pasted it can see it too. So a repository known only as a
 *   private channel's default unfurls in that channel, never in a public one, whoever pastes it.
 *
 * Unfurls to nothing (the answer `none`, no message anywhere): a composer preview (Slack does not say which
 * channel the message is for, so it could be one shared with another organization; the link unfurls by the
 * channel's rules once the message is posted), a channel shared with another organization, a private
 * conversation the app was not invited to (Slack still sends link_shared; the app does not read Trunk for a
 * place it was kept out of), a workspace without Trunk credentials, a repository it is not connected to, a PR
 * or queue Trunk does not know (404), and Trunk faults (logged).
 *
 * Costs: reads go through the workspace's cached Trunk client (TrunkAccess.readsFor: the organization's budget,
 * the process's read cache) and v2's reader for a viewer, and one unfurl's reading is shared for a few seconds
 * by every identical link: a PR pasted in ten channels at once is read once.
 */
import { DEFAULT_BRANCH, type QueueRef, sameRepo } from '../core/target.ts';
import type { PrStory } from '../queue/story.ts';
import type { EtaAnswer } from '../queue/story-reader.ts';
import { isTrunkError } from '../trunk/errors.ts';
import { READ_CACHE_TTL_MS } from '../trunk/read-cache.ts';
import type { Queue, SubmittedPullRequest } from '../trunk/types.ts';
import type { PullRequest } from '../trunk/v2/schemas.ts';
import { parseUnfurlLink, type UnfurlLink, unfurlKey } from '../unfurl/links.ts';
import { listWorkspaceQueues } from '../watch/index.ts';
import type { Actor } from './actor.ts';
import type { ServiceDeps, WorkspaceTrunk } from './ports.ts';

/** What the Slack side says of the channel a link was pasted in (conversations.info). */
export interface ChannelFacts {
  /** Undefined when Slack would not say: nothing unfurls then. */
  about(channelId: string): Promise<{ shared: boolean; private: boolean } | undefined>;
}

export interface UnfurlRequest {
  /** The channel the link was posted in; undefined for a composer preview (Slack names no channel then). */
  channelId: string | undefined;
  /** link_shared's `is_bot_user_member`. */
  botIsMember: boolean;
  urls: readonly string[];
}

/** What Trunk says of a PR. */
export type PrReading =
  /** v2, in the queue: its place in the dispatch order and what it waits behind. */
  | { source: 'v2'; at: 'in_queue'; eta: Extract<EtaAnswer, { kind: 'eta' }> }
  /** v2, out of the queue: how it left (the story `why` tells). */
  | { source: 'v2'; at: 'left'; pr: PullRequest; story: PrStory }
  /** v1: its state, and its place among the queue's PRs while it is in the queue. */
  | { source: 'v1'; pr: SubmittedPullRequest; position: number | undefined; depth: number | undefined };

export type UnfurlView =
  | { url: string; kind: 'pr'; ref: QueueRef; number: number; reading: PrReading; readAt: number }
  | { url: string; kind: 'queue'; ref: QueueRef; queue: Queue; readAt: number };

export type UnfurlAnswer =
  | { answer: 'unfurls'; unfurls: UnfurlView[]; orgSlug: string }
  | {
      answer: 'none';
      why:
        | 'no_links'
        | 'composer_preview'
        | 'shared_channel'
        | 'private_channel'
        | 'channel_unknown'
        | 'not_own_person'
        | 'not_connected'
        | 'nothing_known';
    };

const DEFAULT_TRUNK_APP_URL = 'https://app.trunk.io';

/** Slack sends the links of one message; more than this many are not all unfurled. */
export const MAX_UNFURLS = 10;

type Reading =
  | { kind: 'pr'; reading: PrReading; readAt: number }
  | { kind: 'queue'; queue: Queue; readAt: number }
  | undefined;

export class UnfurlService {
  readonly #deps: ServiceDeps;
  /** One reading per workspace and link target, shared while in flight and for READ_CACHE_TTL_MS after. */
  readonly #readings = new Map<string, { value: Promise<Reading>; expires: number }>();

  constructor(deps: ServiceDeps) {
    this.#deps = deps;
  }

  /** Whether GitHub PR links unfurl in the actor's workspace. */
  githubOn(actor: Actor): Promise<boolean> {
    return this.#deps.store.getUnfurlGithub(actor.workspace.id);
  }

  /** `/mergequeue config unfurl github on|off`: operators only, audited either way. */
  async setGithub(
    actor: Actor,
    on: boolean,
  ): Promise<{ answer: 'refused'; because: string } | { answer: 'set'; on: boolean; changed: boolean }> {
    const decision = await actor.operator();
    if (!decision.allowed) {
      await actor.audit('config.unfurl', 'github', 'refused', { because: decision.because, on });
      return { answer: 'refused', because: decision.because };
    }
    const was = await this.#deps.store.getUnfurlGithub(actor.workspace.id);
    if (was !== on) await this.#deps.store.setUnfurlGithub(actor.workspace.id, on, actor.userId);
    await actor.audit('config.unfurl', 'github', was === on ? 'noop' : 'ok', { on });
    return { answer: 'set', on, changed: was !== on };
  }

  /** The unfurls of the links the actor posted, or none. */
  async unfurl(actor: Actor, req: UnfurlRequest, channels: ChannelFacts): Promise<UnfurlAnswer> {
    const links = this.#parse(req.urls);
    if (links.length === 0) return { answer: 'none', why: 'no_links' };
    // A composer preview names no channel, and it goes with the message wherever it is posted, a channel
    // shared with another organization included: nothing (the posted message's link_shared unfurls it).
    const channelId = req.channelId;
    if (channelId === undefined) return { answer: 'none', why: 'composer_preview' };
    const refused = await this.#whereRefused(actor, channelId, req.botIsMember, channels);
    if (refused) return { answer: 'none', why: refused };
    const workspaceId = actor.workspace.id;
    const trunk = await this.#deps.trunk.readsFor(workspaceId);
    if (!trunk) return { answer: 'none', why: 'not_connected' };

    // The workspace's queues (and who can see them) matter only for a GitHub link, or a PR link naming no branch.
    const wantsGithub = links.some(({ link }) => link.from === 'github');
    const wantsQueues = links.some(({ link }) => link.kind === 'pr' && link.branch === undefined);
    const [githubOn, queues] = await Promise.all([
      wantsGithub ? this.githubOn(actor) : Promise.resolve(false),
      wantsQueues ? this.#visibleQueues(actor, channelId, channels) : Promise.resolve([]),
    ]);
    const unfurls: UnfurlView[] = [];
    await Promise.all(
      links.map(async ({ url, link }) => {
        const ref = placeOf(link, trunk.orgSlug, githubOn, queues);
        if (!ref) return;
        let reading: Reading;
        try {
          reading = await this.#read(workspaceId, trunk, link, ref);
        } catch (err) {
          // A Trunk fault: logged; the channel sees the link without an unfurl (and the next paste asks again).
          this.#deps.logger.warn(
            { err, workspace: workspaceId, link: unfurlKey(link, ref.branch) },
            'could not read Trunk for a link unfurl; nothing unfurled',
          );
          return;
        }
        if (!reading) return;
        unfurls.push(
          reading.kind === 'queue'
            ? { url, kind: 'queue', ref, queue: reading.queue, readAt: reading.readAt }
            : {
                url,
                kind: 'pr',
                ref,
                number: link.kind === 'pr' ? link.number : 0,
                reading: reading.reading,
                readAt: reading.readAt,
              },
        );
      }),
    );
    if (unfurls.length === 0) return { answer: 'none', why: 'nothing_known' };
    // In the order the message had them.
    const order = links.map((l) => l.url);
    unfurls.sort((a, b) => order.indexOf(a.url) - order.indexOf(b.url));
    return { answer: 'unfurls', unfurls, orgSlug: trunk.orgSlug };
  }

  #parse(urls: readonly string[]): Array<{ url: string; link: UnfurlLink }> {
    const out: Array<{ url: string; link: UnfurlLink }> = [];
    const appUrl = this.#deps.defaults().trunkAppUrl ?? DEFAULT_TRUNK_APP_URL;
    for (const url of new Set(urls)) {
      const link = parseUnfurlLink(url, appUrl);
      if (link) out.push({ url, link });
      if (out.length >= MAX_UNFURLS) break;
    }
    return out;
  }

  /** Why nothing may unfurl here, or undefined when links may. */
  async #whereRefused(
    actor: Actor,
    channelId: string,
    botIsMember: boolean,
    channels: ChannelFacts,
  ): Promise<Exclude<UnfurlAnswer, { answer: 'unfurls' }>['why'] | undefined> {
    const facts = await channels.about(channelId).catch(() => undefined);
    if (!facts) return botIsMember ? 'channel_unknown' : 'private_channel';
    if (facts.shared) return 'shared_channel';
    if (facts.private && !botIsMember) return 'private_channel';
    const standing = await actor.standing();
    if (standing.unreadable || !standing.known) return 'not_own_person';
    return undefined;
  }

  /**
   * The workspace's queues, each through a source the channel `pastedIn` can see (the workspace's own, a public
   * channel, or `pastedIn` itself) and the actor too.
   */
  async #visibleQueues(actor: Actor, pastedIn: string, channels: ChannelFacts): Promise<QueueRef[]> {
    const defaults = this.#deps.defaults();
    const all = await listWorkspaceQueues(
      this.#deps.store.db,
      actor.workspace.id,
      actor.now(),
      defaults.defaultTarget ? { defaultTarget: defaults.defaultTarget } : {},
    );
    const publics = new Map<string, Promise<boolean>>();
    const isPublic = (channel: string) => {
      let hit = publics.get(channel);
      if (!hit) {
        hit = channels.about(channel).then(
          (f) => f !== undefined && !f.private,
          () => false,
        );
        publics.set(channel, hit);
      }
      return hit;
    };
    const channelSees = async (channel: string) => channel === pastedIn || (await isPublic(channel));
    const seen = await Promise.all(
      all.map(async (q) => {
        for (const v of q.via)
          if (!v.channel || ((await channelSees(v.channel)) && (await actor.canSee(v.channel)))) return true;
        return false;
      }),
    );
    return all.filter((_, i) => seen[i]).map((q) => q.target);
  }

  #read(workspaceId: string, trunk: WorkspaceTrunk, link: UnfurlLink, ref: QueueRef): Promise<Reading> {
    const key = `${workspaceId}\n${trunk.orgSlug}\n${unfurlKey(link, ref.branch)}`;
    const now = Date.now();
    const kept = this.#readings.get(key);
    if (kept && kept.expires > now) return kept.value;
    const value = this.#readNow(workspaceId, trunk, link, ref);
    if (this.#readings.size > 1_000)
      for (const [k, v] of this.#readings) if (v.expires <= now) this.#readings.delete(k);
    const entry = { value, expires: Number.POSITIVE_INFINITY };
    this.#readings.set(key, entry);
    void value.then(
      () => {
        entry.expires = Date.now() + READ_CACHE_TTL_MS;
      },
      () => this.#readings.delete(key),
    );
    return value;
  }

  async #readNow(
    workspaceId: string,
    trunk: WorkspaceTrunk,
    link: UnfurlLink,
    ref: QueueRef,
  ): Promise<Reading> {
    const address = { repo: ref.repo, targetBranch: ref.branch };
    try {
      if (link.kind === 'queue') {
        const queue = await trunk.api.getQueue(address);
        return { kind: 'queue', queue, readAt: Date.now() };
      }
      const v2 = await this.#deps.trunk.v2For(workspaceId, 'view');
      if (v2) {
        const eta = await v2.reader.eta(address, link.number);
        if (eta.kind === 'unknown') return undefined;
        if (eta.kind === 'eta')
          return { kind: 'pr', reading: { source: 'v2', at: 'in_queue', eta }, readAt: Date.now() };
        const story = await v2.reader.story(address, link.number);
        if (story.kind === 'unknown') return undefined;
        return {
          kind: 'pr',
          reading: { source: 'v2', at: 'left', pr: story.pr, story: story.story },
          readAt: Date.now(),
        };
      }
      const pr = await trunk.api.getSubmittedPullRequest({ ...address, pr: { number: link.number } });
      let position: number | undefined;
      let depth: number | undefined;
      if (pr.isCurrentlySubmittedToQueue) {
        const queue = await trunk.api.getQueue(address);
        const enqueued = queue.enqueuedPullRequests ?? [];
        depth = enqueued.length;
        const i = enqueued.findIndex((p) => p.prNumber === link.number);
        position = i === -1 ? undefined : i + 1;
      }
      return { kind: 'pr', reading: { source: 'v1', pr, position, depth }, readAt: Date.now() };
    } catch (err) {
      // 404: Trunk knows no such PR or queue — nothing to show (kept like a reading). Anything else is a fault,
      // never kept: the caller logs it.
      if (isTrunkError(err) && err.kind === 'not_found') return undefined;
      throw err;
    }
  }
}

/** The queue a link means for this workspace, or undefined when it is not one the workspace may unfurl. */
function placeOf(
  link: UnfurlLink,
  orgSlug: string,
  githubOn: boolean,
  queues: readonly QueueRef[],
): QueueRef | undefined {
  const followed = queues.find((q) => sameRepo(q.repo, link.repo));
  if (link.from === 'github') {
    if (!githubOn || !followed) return undefined;
    return { repo: link.repo, branch: followed.branch };
  }
  if ('org' in link && link.org !== undefined && link.org.toLowerCase() !== orgSlug.toLowerCase())
    return undefined;
  if (link.kind === 'queue') return { repo: link.repo, branch: link.branch };
  return { repo: link.repo, branch: link.branch ?? followed?.branch ?? DEFAULT_BRANCH };
}
