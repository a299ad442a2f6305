/**
 * Structured JSON logs (pino). Secrets are redacted by configuration, so a token that reaches a log
 * call by accident is still never written.
 */
import { type Logger, type LoggerOptions, pino, stdSerializers } from 'pino';
import type { LogLevel } from '../config.ts';
import { currentRequestContext } from './request-context.ts';

export type { Logger };

/** Key names whose values are secrets wherever they appear (two levels deep, plus common containers). */
export const SECRET_KEYS = [
  'token',
  'botToken',
  'userToken',
  'appToken',
  'refreshToken',
  'accessToken',
  'access_token',
  'refresh_token',
  'bot_token',
  'apiToken',
  'api_token',
  'trunkToken',
  'x-api-token',
  'authorization',
  'signingSecret',
  'clientSecret',
  'client_secret',
  'stateSecret',
  'encryptionKey',
  'encryptionKeys',
  'password',
  'secret',
  'cookie',
  'set-cookie',
  'x-slack-signature',
];

/** Token shapes that can hide inside free text (error messages, URLs, Bolt's own log lines). */
const SECRET_TEXT: [RegExp, string][] = [
  [/\bxox[a-z]-[A-Za-z0-9-]+/g, '[redacted]'], // Slack bot/user/refresh tokens
  [/\bxapp-[A-Za-z0-9-]+/g, '[redacted]'], // Slack app-level tokens
  [/\b(Bearer|Basic) +[A-Za-z0-9._~+/=-]+/gi, '$1 [redacted]'], // Authorization header values
  [/\bv0=[a-f0-9]{64}\b/g, '[redacted]'], // Slack request signatures
];

/** Replaces recognisable secrets in free text; key-based redaction handles structured fields. */
export function scrubSecrets(text: string): string {
  let out = text;
  for (const [re, replacement] of SECRET_TEXT) out = out.replace(re, replacement);
  return out;
}

export function redactPaths(): string[] {
  const paths: string[] = [];
  for (const k of SECRET_KEYS) {
    const key = /^[A-Za-z_$][\w$]*$/.test(k) ? k : `["${k}"]`;
    const dot = key.startsWith('[') ? '' : '.';
    paths.push(
      key,
      `*${dot}${key}`,
      `*.*${dot}${key}`,
      `*.*.*${dot}${key}`,
      `*.headers${dot}${key}`,
      `*.*.headers${dot}${key}`,
    );
  }
  return paths;
}

/** Errors are logged with message and stack scrubbed of token-shaped text. */
function errSerializer(err: Error): Record<string, unknown> {
  const out = stdSerializers.err(err) as unknown as Record<string, unknown>;
  if (typeof out['message'] === 'string') out['message'] = scrubSecrets(out['message']);
  if (typeof out['stack'] === 'string') out['stack'] = scrubSecrets(out['stack']);
  return out;
}

export function createLogger(
  level: LogLevel = 'info',
  destination?: pino.DestinationStream,
  extra: LoggerOptions = {},
): Logger {
  const options: LoggerOptions = {
    level,
    base: { service: 'mergequeue-slack' },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: redactPaths(), censor: '[redacted]' },
    formatters: { level: (label) => ({ level: label }) },
    serializers: { err: errSerializer, error: errSerializer },
    // Every line written while a Slack request is handled carries that request's id (once: a
    // requestLogger child already has it bound).
    mixin: (_obj, _level, instance) => {
      const ctx = currentRequestContext();
      return ctx && !(instance as { [BOUND_REQ_ID]?: true })[BOUND_REQ_ID] ? { reqId: ctx.reqId } : {};
    },
    hooks: {
      logMethod(args, method) {
        const scrubbed = args.map((a) => (typeof a === 'string' ? scrubSecrets(a) : a));
        return method.apply(this, scrubbed as Parameters<typeof method>);
      },
    },
    ...extra,
  };
  return destination ? pino(options, destination) : pino(options);
}

const BOUND_REQ_ID = Symbol('reqIdBound');

/** A child logger bound to one Slack request's id (handed to listeners as `context.logger`). */
export function requestLogger(logger: Logger, reqId: string): Logger {
  const child = logger.child({ reqId });
  (child as unknown as { [BOUND_REQ_ID]: true })[BOUND_REQ_ID] = true;
  return child;
}

/** For tests and tools that must not print. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
