/**
 * Start-to-stop life of the process. Background work runs as workers (digests, the freezer, the queue
 * watcher, audit retention), started once the app listens. On SIGTERM/SIGINT: stop taking Slack requests
 * (they get 503 and /readyz turns 503 so load balancers move on), let the work in flight finish within
 * SHUTDOWN_TIMEOUT_MS (a command is "in flight" from its HTTP request until the respond() after its
 * Trunk call), then run the close steps in order (each worker stops within what is left of the budget,
 * then the HTTP server, the database) and exit 0; exit 1 when something had to be abandoned. A second
 * signal exits 1 at once.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { ReceiverEvent } from '@slack/bolt';
import { type Settled, settleBy } from './core/deadline.ts';
import { requestPath } from './core/request-path.ts';
import type { Logger } from './observability/log.ts';
import type { Metrics } from './observability/metrics.ts';
import { newRequestId, runWithRequestContext } from './observability/request-context.ts';

export type LifecycleState = 'running' | 'draining' | 'stopped';

export interface ShutdownResult {
  /** True when all in-flight work finished and every close step succeeded in time. */
  clean: boolean;
  /** In-flight work still running when the timeout ran out. */
  abandoned: number;
  /** Close steps that failed or timed out, by name. */
  failedSteps: string[];
  durationMs: number;
}

/**
 * Background work beside answering Slack. start() once the app listens (it may resolve when a first pass
 * that start-up relies on is over); stop(deadline) takes no new work and returns by `deadline` (epoch ms),
 * leaving what is unfinished to its lease. Most loop with core/periodic-passes.ts.
 */
export interface Worker {
  readonly name: string;
  start(): Promise<void> | void;
  stop(deadline: number): Promise<unknown>;
}

export interface Lifecycle {
  readonly state: LifecycleState;
  isShuttingDown(): boolean;
  /** Work currently tracked. */
  inFlight(): number;
  /** Runs `work` as in-flight work: shutdown waits for it (within the timeout). */
  track<T>(work: () => Promise<T>): Promise<T>;
  /** A step run first when shutdown begins, e.g. disconnecting Socket Mode. */
  onStopIntake(name: string, step: () => Promise<unknown> | unknown): void;
  /** A step run after in-flight work drained, in registration order (workers, server, database); it is
   * given the deadline it should finish by (epoch ms). */
  onClose(name: string, step: (deadline: number) => Promise<unknown> | unknown): void;
  /**
   * A worker: stopped as a close step named after it (in registration order), whether or not it started;
   * started by startWorkers() unless `enabled` is false (SCHEDULER_ENABLED=false on this replica).
   */
  addWorker(worker: Worker, opts?: { enabled?: boolean }): void;
  /** Starts the enabled workers in registration order; nothing once shutdown has begun. */
  startWorkers(): Promise<void>;
  /** Idempotent: later calls return the first call's promise. */
  shutdown(reason?: string): Promise<ShutdownResult>;
}

export interface LifecycleOptions {
  logger: Logger;
  /** Bound for draining in-flight work plus the close steps (config.shutdownTimeoutMs). */
  timeoutMs: number;
  metrics?: Pick<Metrics, 'inFlight'>;
}

/** Each close step gets at least this long, even when draining used up the budget. */
const MIN_STEP_MS = 1000;

export function createLifecycle({ logger, timeoutMs, metrics }: LifecycleOptions): Lifecycle {
  let state: LifecycleState = 'running';
  let count = 0;
  let idleWaiters: (() => void)[] = [];
  let shutdownPromise: Promise<ShutdownResult> | undefined;
  type Step = { name: string; step: (deadline: number) => unknown };
  const intakeSteps: Step[] = [];
  const closeSteps: Step[] = [];
  const workers: { worker: Worker; enabled: boolean }[] = [];

  const settle = () => {
    count -= 1;
    metrics?.inFlight.set(count);
    if (count === 0) {
      const waiters = idleWaiters;
      idleWaiters = [];
      for (const w of waiters) w();
    }
  };

  const whenIdle = () =>
    count === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve));

  async function runSteps(steps: Step[], deadline: number, failed: string[]): Promise<void> {
    for (const { name, step } of steps) {
      const budget = Math.max(MIN_STEP_MS, deadline - Date.now());
      const stepDeadline = Date.now() + budget;
      const outcome = await settleBy(
        Promise.resolve().then(() => step(stepDeadline)),
        stepDeadline,
      );
      if (outcome.kind === 'timeout') {
        failed.push(name);
        logger.warn({ step: name, timeoutMs: budget }, 'shutdown step timed out');
      } else if (outcome.kind === 'error') {
        failed.push(name);
        logger.error({ step: name, err: outcome.error }, 'shutdown step failed');
      } else {
        logger.info({ step: name }, 'shutdown step done');
      }
    }
  }

  async function doShutdown(reason: string): Promise<ShutdownResult> {
    const started = Date.now();
    const deadline = started + timeoutMs;
    state = 'draining';
    logger.info(
      { reason, inFlight: count, timeoutMs },
      'shutting down: no new requests, finishing work in flight',
    );
    const failedSteps: string[] = [];
    await runSteps(intakeSteps, deadline, failedSteps);
    const drained: Settled = await settleBy(whenIdle(), deadline);
    const abandoned = drained.kind === 'timeout' ? count : 0;
    if (abandoned > 0)
      logger.warn({ abandoned, timeoutMs }, 'shutdown timeout reached with work still in flight');
    await runSteps(closeSteps, deadline, failedSteps);
    state = 'stopped';
    const result: ShutdownResult = {
      clean: abandoned === 0 && failedSteps.length === 0,
      abandoned,
      failedSteps,
      durationMs: Date.now() - started,
    };
    logger.info(result, 'shutdown complete');
    return result;
  }

  return {
    get state() {
      return state;
    },
    isShuttingDown: () => state !== 'running',
    inFlight: () => count,
    track<T>(work: () => Promise<T>): Promise<T> {
      count += 1;
      metrics?.inFlight.set(count);
      let p: Promise<T>;
      try {
        p = work();
      } catch (err) {
        settle();
        return Promise.reject(err);
      }
      return p.finally(settle);
    },
    onStopIntake(name, step) {
      intakeSteps.push({ name, step });
    },
    onClose(name, step) {
      closeSteps.push({ name, step });
    },
    addWorker(worker, { enabled = true } = {}) {
      workers.push({ worker, enabled });
      closeSteps.push({ name: worker.name, step: (deadline) => worker.stop(deadline) });
    },
    async startWorkers() {
      for (const { worker, enabled } of workers) {
        if (!enabled || state !== 'running') continue;
        await worker.start();
        logger.debug({ worker: worker.name }, 'worker started');
      }
    },
    shutdown(reason = 'requested') {
      shutdownPromise ??= doShutdown(reason);
      return shutdownPromise;
    },
  };
}

/**
 * Every Slack request Bolt processes (HTTP or Socket Mode) becomes tracked in-flight work with its own
 * request id. Bolt's processEvent resolves only when the listeners finish, i.e. after the work that
 * follows the ack, as long as listeners await that work (or wrap it in lifecycle.track).
 */
export function trackBoltRequests(
  bolt: { processEvent(event: ReceiverEvent): Promise<void> },
  lifecycle: Lifecycle,
): void {
  const processEvent = bolt.processEvent.bind(bolt);
  bolt.processEvent = (event: ReceiverEvent) =>
    runWithRequestContext({ reqId: newRequestId(), receivedAt: Date.now() }, () =>
      lifecycle.track(() => processEvent(event)),
    );
}

/**
 * While shutting down, new Slack requests to `endpoints` get 503 (Slack retries events; another replica
 * takes them) and the connection is closed; /healthz, /readyz and /metrics keep answering. Every request
 * is tracked until its response is done, so the server is not closed under a half-read request.
 */
export function guardHttpReceiver(
  receiver: { requestListener: RequestListener },
  lifecycle: Lifecycle,
  endpoints: readonly string[] = ['/slack/events'],
): void {
  const listener = receiver.requestListener;
  receiver.requestListener = (req: IncomingMessage, res: ServerResponse) => {
    const path = requestPath(req);
    if (lifecycle.isShuttingDown() && req.method === 'POST' && endpoints.includes(path)) {
      res.writeHead(503, { 'content-type': 'text/plain', connection: 'close', 'retry-after': '5' });
      res.end('shutting down');
      return;
    }
    void lifecycle.track(() => new Promise<void>((resolve) => res.once('close', () => resolve())));
    return listener(req, res);
  };
}

export interface SignalOptions {
  logger: Logger;
  /** The shutdown bound (SHUTDOWN_TIMEOUT_MS); past it plus graceMs the process is forced out. */
  timeoutMs: number;
  signals?: NodeJS.Signals[];
  exit?: (code: number) => void;
  /** Extra time beyond the shutdown timeout before the process is forced out. */
  graceMs?: number;
}

/**
 * The process's answer to SIGTERM/SIGINT: the first starts `stop` (the app's graceful shutdown) and exits 0
 * when it was clean, 1 otherwise; a second signal, or a shutdown that hangs past its bound, exits 1 at once.
 * Returns a function that removes the handlers.
 */
export function installSignalHandlers(
  stop: () => Promise<{ clean?: boolean } | unknown>,
  opts: SignalOptions,
): () => void {
  const {
    logger,
    signals = ['SIGTERM', 'SIGINT'],
    exit = (code) => process.exit(code),
    graceMs = 5000,
  } = opts;
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal during shutdown: exiting now');
      exit(1);
      return;
    }
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const backstop = setTimeout(() => {
      logger.error({ timeoutMs: opts.timeoutMs }, 'shutdown did not finish in time: exiting');
      exit(1);
    }, opts.timeoutMs + graceMs);
    backstop.unref();
    stop().then(
      // Exit 1 when in-flight work was abandoned or a close step failed.
      (result) => exit((result as { clean?: boolean } | undefined)?.clean === false ? 1 : 0),
      (err: unknown) => {
        logger.error({ err }, 'error during shutdown');
        exit(1);
      },
    );
  };
  for (const s of signals) process.on(s, onSignal);
  return () => {
    for (const s of signals) process.off(s, onSignal);
  };
}
