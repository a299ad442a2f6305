/**
 * `npm start`: read the environment, start the app, log where it listens. A configuration problem prints
 * one message naming each variable and exits 1, without a stack trace. With no Slack variables at all the
 * app starts the local sandbox and says which variables connect a real workspace.
 */
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type AppOverrides, createApp, type RunningApp } from './app.ts';
import { type Config, ConfigError, loadConfig, SLACK_VARIABLES } from './config.ts';
import { installSignalHandlers } from './lifecycle.ts';
import { createLogger, type Logger } from './observability/log.ts';
import { configuredSecrets } from './observability/secret-values.ts';
import { trackUnhandledRejections } from './observability/unhandled.ts';

interface Stoppable {
  /** The app resolves with its shutdown result ({ clean: false } when work had to be abandoned). */
  stop(): Promise<unknown>;
}

/** What sandbox mode needs of the sandbox module (the sandbox declares that it provides it). */
export interface SandboxModule {
  startSandbox(config: Config, opts: { logger: Logger }): Promise<Stoppable & { readonly url: string }>;
}

/**
 * The sandbox is a development tool, loaded by path only when sandbox mode starts: the specifier is not a
 * literal, so neither the build nor the production entry pulls it in, and an installation without it
 * (the image) says so instead of failing on a missing module.
 */
const SANDBOX_ENTRY = '../dev/sandbox/index.ts';

async function loadSandbox(): Promise<SandboxModule> {
  const url = new URL(SANDBOX_ENTRY, import.meta.url);
  let mod: unknown;
  try {
    mod = await import(url.href);
  } catch (err) {
    if (!isMissing(err, fileURLToPath(url))) throw err;
    throw new Error(
      'no Slack variable is set, so sandbox mode would start, but this installation has no dev/sandbox/ ' +
        '(the production image leaves the development tools out). Set the Slack variables to connect a ' +
        'workspace, or run the sandbox from a clone of the repository.',
    );
  }
  if (!isSandboxModule(mod)) throw new Error(`${SANDBOX_ENTRY} does not export startSandbox`);
  return mod;
}

/** The entry itself is absent (not some module it imports, which is a different fault). */
function isMissing(err: unknown, path: string): boolean {
  return (
    err instanceof Error && Reflect.get(err, 'code') === 'ERR_MODULE_NOT_FOUND' && err.message.includes(path)
  );
}

function isSandboxModule(mod: unknown): mod is SandboxModule {
  return typeof mod === 'object' && mod !== null && typeof Reflect.get(mod, 'startSandbox') === 'function';
}

/**
 * Starts the app from `env` and stops it on SIGTERM/SIGINT. `overrides` are the library's construction
 * seam (src/app.ts), for an embedding entry such as the tests' test/helpers/app-process.ts; the sandbox
 * makes its own.
 */
export async function main(
  env: NodeJS.ProcessEnv = process.env,
  overrides: AppOverrides = {},
): Promise<void> {
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
    // No Slack variables: the real app against local fakes, with a page to try it (see dev/sandbox).
    const { startSandbox } = await loadSandbox();
    const sandbox = await startSandbox(config, { logger });
    running = sandbox;
    logger.info({ url: sandbox.url, mode: 'sandbox' }, 'mergequeue sandbox listening');
    process.stderr.write(`Sandbox: open ${sandbox.url} to try the app.\n${SLACK_VARIABLES}\n`);
  } else {
    const app: RunningApp = await createApp(config, { logger, ...overrides });
    // A stray rejection is logged and counted (mergequeue_unhandled_rejections_total), not fatal.
    trackUnhandledRejections(logger, app.metrics);
    await app.start();
    running = app;
    logger.info(
      { url: app.url, mode: config.slack.mode, transport: config.slack.transport },
      'mergequeue listening',
    );
  }

  // A second signal exits at once; Stop() drains within shutdownTimeoutMs, the handler's backstop after that.
  installSignalHandlers(() => running.stop(), { logger, timeoutMs: config.shutdownTimeoutMs });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err: unknown) => {
    // One line, no stack: the cause (port in use, database unreachable) is what a person needs.
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`mergequeue failed to start: ${message}\n`);
    process.exit(1);
  });
}
