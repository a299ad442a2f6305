/**
 * `npm start`: read the environment, start the app, log where it listens. A configuration problem prints
 * one message naming each variable and exits 1, without a stack trace. With no Slack variables at all the
 * app starts the local sandbox and says which variables connect a real workspace.
 */
import { pathToFileURL } from 'node:url';
import { createApp, type RunningApp } from './app.ts';
import { type Config, ConfigError, loadConfig, SLACK_VARIABLES } from './config.ts';
import { createLogger } from './observability/log.ts';
import { configuredSecrets } from './observability/secret-values.ts';
import { trackUnhandledRejections } from './observability/unhandled.ts';
import { startSandbox } from './sandbox/index.ts';

interface Stoppable {
  /** The app resolves with its shutdown result ({ clean: false } when work had to be abandoned). */
  stop(): Promise<unknown>;
}

export async function main(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  let config: Config;
  try {
    config = loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const logger = createLogger(config.logLevel, undefined, {}, { secrets: configuredSecrets(config) });

  let running: Stoppable;
  if (config.slack.mode === 'sandbox') {
    // No Slack variables: the real app against local fakes, with a page to try it (see src/sandbox).
    const sandbox = await startSandbox(config, { logger });
    running = sandbox;
    logger.info({ url: sandbox.url, mode: 'sandbox' }, 'mergequeue sandbox listening');
    process.stderr.write(`Sandbox: open ${sandbox.url} to try the app.\n${SLACK_VARIABLES}\n`);
  } else {
    const app: RunningApp = await createApp(config, { logger });
    // [production] a stray rejection is logged and counted (mergequeue_unhandled_rejections_total), not fatal.
    trackUnhandledRejections(logger, app.metrics);
    await app.start();
    running = app;
    logger.info(
      { url: app.url, mode: config.slack.mode, transport: config.slack.transport },
      'mergequeue listening',
    );
  }

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    // [production] stop() drains within shutdownTimeoutMs, then closes; this is only the backstop.
    const force = setTimeout(() => process.exit(1), config.shutdownTimeoutMs + 5_000);
    force.unref();
    running.stop().then(
      // [production] exit 1 when in-flight work was abandoned or a close step failed.
      (result) => process.exit((result as { clean?: boolean } | undefined)?.clean === false ? 1 : 0),
      (err: unknown) => {
        logger.error({ err }, 'error during shutdown');
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err: unknown) => {
    // One line, no stack: the cause (port in use, database unreachable) is what a person needs.
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`mergequeue failed to start: ${message}\n`);
    process.exit(1);
  });
}
