/**
 * Prometheus metrics (prom-client), one registry per app instance so tests can run several apps in one
 * process. Served at GET /metrics.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

export interface Metrics {
  readonly registry: Registry;
  /** Slash commands by subcommand and outcome (ok, refused, invalid, failed). */
  readonly commands: Counter<'name' | 'outcome'>;
  /** Button clicks and modal submissions by action id and outcome. */
  readonly interactions: Counter<'name' | 'outcome'>;
  /** Trunk calls by operation and HTTP status (or `network`, `timeout`). */
  readonly trunkCalls: Counter<'operation' | 'status'>;
  readonly trunkLatency: Histogram<'operation'>;
  /** Trunk requests by who made them (interactive, watch, digest) and operation. */
  readonly trunkCallsByCaller: Counter<'caller' | 'operation'>;
  /** Requests that waited for the per-organization Trunk budget, by caller. */
  readonly trunkBudgetWaits: Counter<'caller'>;
  /** Commands that went ahead over the Trunk budget after the longest wait allowed to a person. */
  readonly trunkBudgetOverdrafts: Counter;
  /** Digest occurrences by outcome: run, posted, skipped_empty, skipped_late, failed, retrying. */
  readonly digests: Counter<'outcome'>;
  /** Slack Web API errors by method and error code. */
  readonly slackApiErrors: Counter<'method' | 'error'>;
  /** Times we waited because Slack answered 429. */
  readonly slackRateLimitWaits: Counter<'method'>;
  /** Promise rejections nobody handled (each is a bug; the soak test expects 0). */
  readonly unhandledRejections: Counter;
  /** Audit entries lost after every retry (the change itself was applied and reported). */
  readonly auditFailures: Counter<'action'>;
  /** Slack requests whose handling (ack and the work after it) has not finished yet. */
  readonly inFlight: Gauge;
  /** Queues this replica holds the watch lease of (and so polls). */
  readonly watchedQueues: Gauge;
  /** getQueue polls of watched queues, by outcome (ok, failed). */
  readonly watchPolls: Counter<'outcome'>;
  /** Queue events delivered, by event kind and destination kind (channel, live, author). */
  readonly watchEvents: Counter<'kind' | 'destination'>;
  /** Slack outbox: writes refused for good, by Slack's error code (src/slack/outbox/final-errors.ts). */
  readonly outboxFinalErrors: Counter<'code'>;
  /** Slack outbox: writes still queued at shutdown and dropped, by kind (feed, live, digest…). */
  readonly outboxDropped: Counter<'kind'>;
  /** Trunk webhook deliveries by outcome (applied, duplicate, ignored, stale, rejected, too_large, failed). */
  readonly webhookDeliveries: Counter<'outcome'>;
  /** Tells the registry how to read the outbox's depth and oldest item at each scrape. */
  observeOutbox(probe: () => { depth: number; oldestAgeMs: number }): void;
}

export function createMetrics(opts: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (opts.defaultMetrics ?? true) collectDefaultMetrics({ register: registry, prefix: 'mergequeue_' });
  const registers = [registry];
  let outbox: (() => { depth: number; oldestAgeMs: number }) | undefined;
  new Gauge({
    name: 'mergequeue_outbox_depth',
    help: 'Slack writes the outbox holds (queued or being sent)',
    registers,
    collect() {
      this.set(outbox?.().depth ?? 0);
    },
  });
  new Gauge({
    name: 'mergequeue_outbox_oldest_age_seconds',
    help: 'Age of the oldest Slack write the outbox holds (0 when empty)',
    registers,
    collect() {
      this.set((outbox?.().oldestAgeMs ?? 0) / 1000);
    },
  });
  return {
    registry,
    commands: new Counter({
      name: 'mergequeue_commands_total',
      help: 'Slash commands handled, by subcommand and outcome',
      labelNames: ['name', 'outcome'] as const,
      registers,
    }),
    interactions: new Counter({
      name: 'mergequeue_interactions_total',
      help: 'Button clicks and modal submissions handled, by action and outcome',
      labelNames: ['name', 'outcome'] as const,
      registers,
    }),
    trunkCalls: new Counter({
      name: 'mergequeue_trunk_calls_total',
      help: 'Trunk API requests, by operation and HTTP status',
      labelNames: ['operation', 'status'] as const,
      registers,
    }),
    trunkLatency: new Histogram({
      name: 'mergequeue_trunk_call_duration_seconds',
      help: 'Trunk API request latency (each attempt)',
      labelNames: ['operation'] as const,
      buckets: [0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    }),
    trunkCallsByCaller: new Counter({
      name: 'mergequeue_trunk_calls_by_caller_total',
      help: 'Trunk API requests, by caller (interactive, watch, digest) and operation',
      labelNames: ['caller', 'operation'] as const,
      registers,
    }),
    trunkBudgetWaits: new Counter({
      name: 'mergequeue_trunk_budget_waits_total',
      help: 'Trunk requests that waited for the per-organization budget (TRUNK_MAX_RPS), by caller',
      labelNames: ['caller'] as const,
      registers,
    }),
    trunkBudgetOverdrafts: new Counter({
      name: 'mergequeue_trunk_budget_overdrafts_total',
      help: 'Commands sent over the Trunk budget rather than keep a person waiting longer',
      registers,
    }),
    digests: new Counter({
      name: 'mergequeue_digests_total',
      help: 'Digest occurrences, by outcome',
      labelNames: ['outcome'] as const,
      registers,
    }),
    slackApiErrors: new Counter({
      name: 'mergequeue_slack_api_errors_total',
      help: 'Slack Web API calls that failed, by method and error',
      labelNames: ['method', 'error'] as const,
      registers,
    }),
    slackRateLimitWaits: new Counter({
      name: 'mergequeue_slack_rate_limit_waits_total',
      help: 'Waits caused by Slack rate limiting (429), by method',
      labelNames: ['method'] as const,
      registers,
    }),
    unhandledRejections: new Counter({
      name: 'mergequeue_unhandled_rejections_total',
      help: 'Promise rejections that no code handled',
      registers,
    }),
    auditFailures: new Counter({
      name: 'mergequeue_audit_failures_total',
      help: 'Audit entries that could not be written after retries, by action',
      labelNames: ['action'] as const,
      registers,
    }),
    inFlight: new Gauge({
      name: 'mergequeue_requests_in_flight',
      help: 'Slack requests being handled (including work after the ack)',
      registers,
    }),
    watchedQueues: new Gauge({
      name: 'mergequeue_watched_queues',
      help: 'Queues this replica polls (holds the watch lease of)',
      registers,
    }),
    watchPolls: new Counter({
      name: 'mergequeue_watch_polls_total',
      help: 'Polls of watched queues, by outcome',
      labelNames: ['outcome'] as const,
      registers,
    }),
    watchEvents: new Counter({
      name: 'mergequeue_watch_events_total',
      help: 'Queue events delivered, by event kind and destination kind',
      labelNames: ['kind', 'destination'] as const,
      registers,
    }),
    outboxFinalErrors: new Counter({
      name: 'mergequeue_outbox_final_errors_total',
      help: 'Slack writes refused for good, by error code',
      labelNames: ['code'] as const,
      registers,
    }),
    outboxDropped: new Counter({
      name: 'mergequeue_outbox_dropped_total',
      help: 'Slack writes still queued at shutdown and dropped, by kind',
      labelNames: ['kind'] as const,
      registers,
    }),
    webhookDeliveries: new Counter({
      name: 'mergequeue_trunk_webhook_deliveries_total',
      help: 'Trunk webhook deliveries, by outcome',
      labelNames: ['outcome'] as const,
      registers,
    }),
    observeOutbox(probe) {
      outbox = probe;
    },
  };
}
