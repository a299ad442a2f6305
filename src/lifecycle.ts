/**
 * Start-to-stop life of the process. On SIGTERM/SIGINT: stop taking Slack requests (they get 503 and
 * /readyz turns 503 so load balancers move on), let the work in flight finish within
 * SHUTDOWN_TIMEOUT_MS (a command is "in flight" from its HTTP request until the respond() after its
 * Trunk call), then run the close steps in order (digest scheduler releases its claims, HTTP server,
 * database) and exit 0; exit 1 when something had to be abandoned.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { ReceiverEvent } from '@slack/bolt';
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

export interface Lifecycle {
  readonly state: LifecycleState;
  isShuttingDown(): boolean;
  /** Work currently tracked. */
  inFlight(): number;
  /** Runs `work` as in-flight work: shutdown waits for it (within the timeout). */
  track<T>(work: () => Promise<T>): Promise<T>;
  /** A step run first when shutdown begins, e.g. disconnecting Socket Mode. */
  onStopIntake(name: string, step: () => Promise<unknown> | unknown): void;
  /** A step run after in-flight work drained, in registration order (scheduler, server, database). */
  onClose(name: string, step: () => Promise<unknown> | unknown): void;
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
  const intakeSteps: { name: string; step: () => unknown }[] = [];
  const closeSteps: { name: string; step: () => unknown }[] = [];

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

  async function runSteps(
    steps: { name: string; step: () => unknown }[],
    deadline: number,
    failed: string[],
  ): Promise<void> {
    for (const { name, step } of steps) {
      const budget = Math.max(MIN_STEP_MS, deadline - Date.now());
      const outcome = await withTimeout(Promise.resolve().then(step), budget);
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
    const drained = await withTimeout(whenIdle(), Math.max(0, deadline - Date.now()));
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
    shutdown(reason = 'requested') {
      shutdownPromise ??= doShutdown(reason);
      return shutdownPromise;
    },
  };
}

type Outcome = { kind: 'ok' } | { kind: 'timeout' } | { kind: 'error'; error: unknown };

async function withTimeout(p: Promise<unknown>, ms: number): Promise<Outcome> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<Outcome>((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'timeout' }), ms);
  });
  try {
    return await Promise.race([
      p.then(
        (): Outcome => ({ kind: 'ok' }),
        (error: unknown): Outcome => ({ kind: 'error', error }),
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
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
    const path = (req.url ?? '/').split('?')[0] ?? '/';
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
  signals?: NodeJS.Signals[];
  exit?: (code: number) => void;
  /** Extra time beyond the shutdown timeout before the process is forced out. */
  graceMs?: number;
  timeoutMs: number;
}

/** SIGTERM/SIGINT start a graceful shutdown; a second signal, or a hung shutdown, forces exit 1. */
export function installSignalHandlers(lifecycle: Lifecycle, opts: SignalOptions): () => void {
  const {
    logger,
    signals = ['SIGTERM', 'SIGINT'],
    exit = (code) => process.exit(code),
    graceMs = 5000,
  } = opts;
  const onSignal = (signal: NodeJS.Signals) => {
    if (lifecycle.isShuttingDown()) {
      logger.warn({ signal }, 'second signal during shutdown: exiting now');
      exit(1);
      return;
    }
    const backstop = setTimeout(() => {
      logger.error({ timeoutMs: opts.timeoutMs }, 'shutdown did not finish in time: exiting');
      exit(1);
    }, opts.timeoutMs + graceMs);
    backstop.unref();
    lifecycle.shutdown(signal).then(
      (result) => exit(result.clean ? 0 : 1),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        exit(1);
      },
    );
  };
  for (const s of signals) process.on(s, onSignal);
  return () => {
    for (const s of signals) process.off(s, onSignal);
  };
}
