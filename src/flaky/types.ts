/** Plain data of the flaky-test feeds: a channel's test watch, a test as a status message shows it. */

/** A channel hears about tests of `repo` (any when undefined) owned by `owner` (any when undefined). */
export interface TestWatch {
  id: string;
  workspaceId: string;
  channelId: string;
  /** `owner/repo` as typed (the match ignores case); undefined: every repository. */
  repo?: string;
  /** A code owner as Trunk reports it (`@acme/payments`) or a bare team name; undefined: every owner. */
  owner?: string;
  createdBy: string;
  createdAt: number;
}

/** A test, as Trunk's webhook describes it (every field but the id may be missing). */
export interface TestCaseInfo {
  id: string;
  name?: string;
  classname?: string;
  filePath?: string;
  /** The test's page in Trunk's web app. */
  htmlUrl?: string;
  codeowners: string[];
  quarantined?: boolean;
  variant?: string;
}

/** What a status message about one test shows; kept per (channel, test) so a button can redraw it. */
export interface TestCard {
  test: TestCaseInfo;
  /** `owner/repo` from the payload's repository.html_url, when it names one. */
  repo?: string;
  /** As Trunk sent them (compare upper-cased): HEALTHY, FLAKY, BROKEN, or a value this app does not know. */
  previousStatus?: string;
  newStatus: string;
  /** Failure rate over 7 days (0..1), when a v2 key could read it. */
  failureRate?: number;
  /** Lower-cased code owner → Slack mentions (`digest owners`), for the owners this test has. */
  mentions: Record<string, string[]>;
  /** The workspace had a v2 key when the message was posted: the Quarantine buttons are shown. */
  v2: boolean;
  /** The last override made from Slack, announced on the message. */
  override?: { mode: QuarantineMode; by: string; at: number };
  /** The ticket linked from Slack. */
  ticket?: { key: string; url?: string; by: string };
  /** When the status changed (epoch ms). */
  at: number;
}

export type QuarantineMode = 'alwaysQuarantine' | 'clear';

/** The message a channel got last about a test. */
export interface FeedMessage {
  workspaceId: string;
  channelId: string;
  testId: string;
  ts: string;
  /** When the status it shows changed (an older delivery is not posted over it). */
  statusAt: number;
  /** Counts overrides made from Slack: a double click on the same state counts once. */
  overrideSeq: number;
  card: TestCard;
}

/** Upper-cased for comparison; severity BROKEN > FLAKY > HEALTHY. */
export function statusKey(status: string | undefined): string {
  return (status ?? '').trim().toUpperCase();
}

/** The status change means the test is unhealthy now, or healthy again. */
export function isRecovery(card: Pick<TestCard, 'newStatus'>): boolean {
  return statusKey(card.newStatus) === 'HEALTHY';
}
