/** Names of the Trunk v2 operations the app calls, for logs, metrics labels and error text. */
export const TRUNK_V2_OPERATIONS = [
  'v2.findRepository',
  'v2.listMergeQueues',
  'v2.resolvePullRequests',
  'v2.getPullRequest',
  'v2.queueEntryHistory',
  'v2.queueEntryHistoryBatch',
  'v2.mergeQueueOrder',
  'v2.queueEntryEstimate',
  'v2.getVerificationRun',
  'v2.getTest',
  'v2.setQuarantineOverride',
  'v2.linkTicket',
] as const;

export type TrunkV2Operation = (typeof TRUNK_V2_OPERATIONS)[number];

/**
 * Trunk limits `GET /v2/pull-requests…` to 5 requests a second per API key, in a bucket of its own besides the
 * organization's 100: the budget needs to know which reads draw on it.
 */
export const PULL_REQUEST_READS: ReadonlySet<TrunkV2Operation> = new Set<TrunkV2Operation>([
  'v2.resolvePullRequests',
  'v2.getPullRequest',
  'v2.queueEntryHistory',
  'v2.queueEntryEstimate',
]);
