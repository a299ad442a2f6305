/**
 * Parsers of the v2 answers the app reads, written from Trunk's v2 OpenAPI subset
 * (`shared/spec/trunk-openapi-v2-subset.json`). Tolerant by design: states, reasons, conclusions and codes
 * are open vocabularies (Trunk adds members within v2), so they are read as strings and shown as sent;
 * fields we do not use are ignored; only what a message needs is required.
 */
import { z } from 'zod';

const str = z.string();
const optStr = z
  .string()
  .nullish()
  .transform((v) => v ?? undefined);
/** An absent or null flag reads false. */
const flag = z
  .boolean()
  .nullish()
  .transform((v) => v ?? false);
const optInt = z
  .number()
  .int()
  .nullish()
  .transform((v) => v ?? undefined);
const list = <T extends z.ZodType>(item: T) =>
  z
    .array(item)
    .nullish()
    .transform((v) => v ?? []);

/** Every list answer: `{ data, nextCursor, hasMore }`. */
export const page = <T extends z.ZodType>(item: T) =>
  z.object({
    data: z.array(item),
    nextCursor: optStr,
    hasMore: flag,
  });

export const repositorySchema = z.object({
  id: str,
  path: optStr,
  url: optStr,
  defaultBranch: optStr,
});

export const mergeQueueSchema = z.object({
  id: str,
  repositoryId: str,
  targetBranch: str,
  state: str,
  mode: optStr,
  repositoryUrl: optStr,
  htmlUrl: optStr,
});

export const queueEntrySchema = z.object({
  id: str,
  mergeQueueId: str,
  state: str,
  stateChangedAt: optStr,
  priorityValue: z
    .number()
    .nullish()
    .transform((v) => v ?? undefined),
  priorityName: optStr,
  createdAt: optStr,
});

export const pullRequestSchema = z.object({
  id: str,
  repositoryId: str,
  number: z.number().int(),
  title: z
    .string()
    .nullish()
    .transform((v) => v ?? ''),
  author: optStr,
  url: optStr,
  htmlUrl: optStr,
  state: optStr,
  isCurrentlySubmittedToQueue: flag,
  queueEntry: queueEntrySchema.nullish().transform((v) => v ?? undefined),
});

const prRef = z.object({
  id: optStr,
  pullRequestId: optStr,
  number: optInt,
  title: optStr,
  url: optStr,
});

export const failureCausingCheckSchema = z.object({
  name: str,
  url: optStr,
  conclusion: optStr,
});

const conflictCulpritSchema = z.object({
  kind: optStr,
  sha: optStr,
  pullRequestId: optStr,
  number: optInt,
  url: optStr,
});

export const transitionSchema = z.object({
  pullRequestId: str,
  state: str,
  changedAt: str,
  reason: optStr,
  verificationRunId: optStr,
  actor: z
    .object({ gitHubLogin: optStr, trunkUserId: optStr })
    .nullish()
    .transform((v) => v ?? undefined),
  prerequisitePullRequestId: optStr,
  pending: z
    .object({
      prerequisitePullRequests: list(prRef),
      // What the entry was submitted with (a re-submission repeats it); optional keys, null as absent.
      priorityValue: z.number().int().nullish(),
      allowBatching: z.boolean().nullish(),
    })
    .nullish()
    .transform((v) => v ?? undefined),
  notReady: z
    .object({ priorityValue: z.number().int().nullish(), allowBatching: z.boolean().nullish() })
    .nullish(),
  testsPassed: z
    .object({ waitingFor: list(prRef), otherTestedPullRequests: list(prRef) })
    .nullish()
    .transform((v) => v ?? undefined),
  pendingFailure: z
    .object({
      eventualFailureReason: optStr,
      waitingFor: list(prRef),
      failureCausingChecks: list(failureCausingCheckSchema),
    })
    .nullish()
    .transform((v) => v ?? undefined),
  failed: z
    .object({
      apiFailureMessage: optStr,
      failureCausingChecks: list(failureCausingCheckSchema),
      conflictCulprit: conflictCulpritSchema.nullish().transform((v) => v ?? undefined),
    })
    .nullish()
    .transform((v) => v ?? undefined),
});

export const historyBatchItemSchema = z.object({
  pullRequestId: str,
  transitions: z.array(transitionSchema),
});

const queuedPrSchema = z.object({
  id: str,
  number: z.number().int(),
  title: z
    .string()
    .nullish()
    .transform((v) => v ?? ''),
  url: optStr,
});

export const orderSchema = z.object({
  queueState: optStr,
  batches: list(
    z.object({
      verificationRunId: optStr,
      state: optStr,
      isBisection: flag,
      pullRequests: list(queuedPrSchema),
    }),
  ),
  pending: list(
    z.object({
      pullRequest: queuedPrSchema,
      schedulability: optStr,
      directlyAhead: list(queuedPrSchema),
      heldBy: list(queuedPrSchema),
    }),
  ),
  awaitingAdmission: list(queuedPrSchema),
  awaitingAdmissionTotal: optInt,
});

/** The estimate schema is incomplete in Trunk's docs (cut after `kind`): everything past `status` is optional. */
export const estimateSchema = z.object({
  status: str,
  computedAt: optStr,
  kind: optStr,
  estimatedAt: optStr,
  reason: optStr,
});

export const verificationRunSchema = z.object({
  id: str,
  status: str,
  isBisection: flag,
  requiredStatuses: list(str),
  checks: list(z.object({ name: str, status: optStr, conclusion: optStr, url: optStr })),
  testedPullRequests: list(z.object({ number: z.number().int().nullish(), id: optStr })),
});

/** The error envelope of JSON 4xx/5xx answers; many edge answers (401, 429, 5xx) come without it. */
export const errorEnvelopeSchema = z.object({
  error: z.object({
    code: str,
    message: z
      .string()
      .nullish()
      .transform((v) => v ?? ''),
  }),
});

/** GET /v2/tests/{id} (newer docs, partial): what a status message needs; the rest is ignored. */
export const testSchema = z.object({
  id: str,
  name: optStr,
  url: optStr,
  status: optStr,
  quarantineState: optStr,
  metrics: z
    .object({
      failureRate: z
        .number()
        .nullish()
        .transform((v) => v ?? undefined),
      runCount: optInt,
      failureCount: optInt,
    })
    .nullish()
    .transform((v) => v ?? undefined),
});

/** 201 of POST /v2/tests/{id}/ticket. */
export const ticketSchema = z.object({
  id: optStr,
  provider: optStr,
  key: str,
  url: optStr,
  title: optStr,
  status: optStr,
});

export type Repository = z.infer<typeof repositorySchema>;
export type MergeQueue = z.infer<typeof mergeQueueSchema>;
export type PullRequest = z.infer<typeof pullRequestSchema>;
export type QueueEntry = z.infer<typeof queueEntrySchema>;
export type Transition = z.infer<typeof transitionSchema>;
export type FailureCausingCheck = z.infer<typeof failureCausingCheckSchema>;
export type MergeQueueOrder = z.infer<typeof orderSchema>;
export type QueuedPullRequest = MergeQueueOrder['awaitingAdmission'][number];
export type Estimate = z.infer<typeof estimateSchema>;
export type VerificationRun = z.infer<typeof verificationRunSchema>;
export type TestV2 = z.infer<typeof testSchema>;
export type TicketV2 = z.infer<typeof ticketSchema>;
