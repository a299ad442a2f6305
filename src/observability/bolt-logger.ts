/**
 * Bolt (and @slack/web-api, @slack/socket-mode) log through the @slack/logger interface; this adapter
 * sends those lines into the app's pino logger, so they are JSON, carry the request id and are redacted
 * like everything else.
 */
import { LogLevel, type Logger as SlackLogger } from '@slack/bolt';
import type { Logger } from './log.ts';

function fromPino(level: string): LogLevel {
  switch (level) {
    case 'trace':
    case 'debug':
      return LogLevel.DEBUG;
    case 'info':
      return LogLevel.INFO;
    case 'warn':
      return LogLevel.WARN;
    default:
      return LogLevel.ERROR;
  }
}

/**
 * The Slack libraries log whole request bodies as JSON text (`http request body: {"code":"…",…}`). An OAuth
 * code is a credential there, but "code" is an ordinary key elsewhere (error codes), so only these
 * libraries' text has it removed; everything else secret is removed for every line by log.ts.
 */
const OAUTH_CODE_IN_JSON = /("code"\s*:\s*")[^"]*"/g;

/** Slack libraries call log.x(...anything): strings become the message, an Error goes to `err`. */
function write(logger: Logger, level: 'debug' | 'info' | 'warn' | 'error', msg: unknown[]): void {
  if (!logger.isLevelEnabled(level)) return;
  const parts: string[] = [];
  let err: unknown;
  for (const m of msg) {
    if (m instanceof Error && err === undefined) err = m;
    else if (typeof m === 'string') parts.push(m);
    else {
      try {
        parts.push(JSON.stringify(m));
      } catch {
        parts.push(String(m));
      }
    }
  }
  const text = parts.join(' ').replace(OAUTH_CODE_IN_JSON, '$1[redacted]"');
  if (err !== undefined) logger[level]({ err }, text || (err as Error).message);
  else logger[level](text);
}

/**
 * A @slack/logger Logger over pino. LOG_LEVEL alone decides what is written: Bolt calls setLevel(INFO)
 * on any logger it is given, which would otherwise hide its debug lines when LOG_LEVEL=debug.
 */
export function boltLogger(logger: Logger, name = 'slack'): SlackLogger {
  let log = logger.child({ component: name });
  let level = fromPino(logger.level);
  return {
    debug: (...msg: unknown[]) => write(log, 'debug', msg),
    info: (...msg: unknown[]) => write(log, 'info', msg),
    warn: (...msg: unknown[]) => write(log, 'warn', msg),
    error: (...msg: unknown[]) => write(log, 'error', msg),
    setLevel(l: LogLevel) {
      level = l;
    },
    getLevel: () => level,
    setName(n: string) {
      log = logger.child({ component: n });
    },
  };
}
