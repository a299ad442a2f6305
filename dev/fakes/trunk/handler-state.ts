/**
 * What the operations read and write, and what they answer: shared by handlers.ts and pull-requests.ts,
 * which call each other's operations, so the types live apart from both.
 */
import type { FailingList, PageTokens, RowSource } from './flaky.ts';
import type { WireQuarantinedTest } from './generate.ts';
import type { QueueRecord, QueueStore } from './state.ts';

export type Outcome = { status: 200; json: Record<string, unknown> } | { status: 400 | 404; text: string };

export interface FlakyRepo {
  failing?: FailingList;
  quarantined?: RowSource<WireQuarantinedTest>;
}

export interface HandlerState {
  queues: QueueStore;
  flaky: Map<string, FlakyRepo>;
  tokens: PageTokens;
  /** When set, other org_url_slug values get 404. */
  orgSlug?: string;
  /** The fake's clock, for the times PR changes are stamped with; default Date.now. */
  now?: () => number;
  /** Quirk: hand out the current page's token as the next one (a buggy server the client must survive). */
  loopingPageTokens?: () => boolean;
  /** A PR changed state through the API (submit, cancel, restart): the fake's webhooks announce it. */
  prTransition?: (record: QueueRecord, prNumber: number, kind: 'submitted' | 'cancelled' | 'testing') => void;
}
