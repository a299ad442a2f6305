/** Plain data of the digest domain, shared by its modules. */
import type { RepoRef } from '../core/target.ts';
import type { Repo } from '../trunk/types.ts';
import type { DaysRule } from './schedule.ts';

/** `health`: how one queue did (the queue history's figures), not its tests. */
export type DigestKind = 'failing' | 'quarantined' | 'health';

export interface Subscription {
  id: string;
  workspaceId: string;
  channelId: string;
  kind: DigestKind;
  repo: Repo;
  /** A health digest's queue branch (the tests' digests are about a repository, and leave it out). */
  branch?: string;
  minuteOfDay: number;
  tz: string;
  days: DaysRule;
  skipEmpty: boolean;
  topN: number;
  /** Only tests whose code owners include this one (`@acme/payments`, `@alice`, `payments`): a team digest. */
  owner?: string;
  createdBy: string;
  createdAt: number;
  /** The next occurrence nobody has dealt with yet (UTC ms). */
  nextDueAt: number;
}

/** What the next digest compares with: kept small whatever the repository's size. */
export interface Baseline {
  /** Bloom filter (base64) of the test ids seen by the last scheduled digest. */
  bloom: string;
  count: number;
  /** The tests that digest listed, to name the ones that recovered. */
  shown: Array<{ id: string; name: string; url?: string }>;
}

/**
 * One block of a message, as the Slack side's renderer built it (src/slack/blocks/digest.ts). The digest
 * never looks inside: it stores the block and posts it as it is, so it needs no Block Kit types.
 */
export interface MessageBlock {
  type: string;
}

/** A message as posted: the digest keeps them in the run record so a takeover posts the same. */
export interface DigestMessage {
  text: string;
  blocks: MessageBlock[];
}

import type { WorkspaceTrunk } from '../trunk/api.ts';

export type { WorkspaceTrunk };

export interface RunOutcome {
  /** retrying: Slack failed in passing; the claim is left to be taken over after a backoff. */
  outcome: 'posted' | 'skipped_empty' | 'skipped_late' | 'failed' | 'lost_claim' | 'retrying';
  detail?: string;
  messages?: number;
}

/**
 * What a person asks of the digests. The `/mergequeue digest` grammar (src/slack/grammars/digest.ts)
 * produces these; the digest's operations (manage.ts) take them.
 */
export type DigestRequest =
  | {
      op: 'add';
      kind: DigestKind;
      repo?: RepoRef;
      /** A health digest's branch, when typed with its repository (`acme/web:main`). */
      branch?: string;
      minuteOfDay?: number;
      tz?: string;
      days?: DaysRule;
      /** A team digest: only tests this code owner owns. */
      owner?: string;
    }
  | { op: 'list' }
  | { op: 'remove' | 'run'; id: string }
  | { op: 'set'; id: string; option: 'skip-empty'; value: boolean }
  | { op: 'set'; id: string; option: 'top'; value: number }
  | { op: 'set'; id: string; option: 'time'; value: number }
  | { op: 'set'; id: string; option: 'tz'; value: string }
  | { op: 'set'; id: string; option: 'days'; value: DaysRule }
  | { op: 'owners'; owner?: string; mentions?: string[] };
