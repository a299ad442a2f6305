/**
 * Structured JSON logs (pino). Secrets are redacted by configuration, so a token that reaches a log
 * call by accident is still never written.
 */
import { type Logger, type LoggerOptions, pino, stdSerializers } from 'pino';
import type { LogLevel } from '../config.ts';
import { SECRET_KEYS } from '../core/secret-keys.ts';
import { currentRequestContext } from './request-context.ts';

export type { Logger };

/** Token shapes that can hide inside free text (error messages, URLs, Bolt's own log lines). */
const SECRET_TEXT: [RegExp, string][] = [
  [/\bxox[a-z]-[A-Za-z0-9-]+/g, '[redacted]'], // Slack bot/user/refresh tokens
  [/\bxapp-[A-Za-z0-9-]+/g, '[redacted]'], // Slack app-level tokens
  [/\bxwf[a-z]-[A-Za-z0-9-]+/g, '[redacted]'], // Workflow step execution tokens (function_executed)
  [/\b(Bearer|Basic) +[A-Za-z0-9._~+/=-]+/gi, '$1 [redacted]'], // Authorization header values
  [/\bv0=[a-f0-9]{64}\b/g, '[redacted]'], // Slack request signatures
  [/\bwhsec_[A-Za-z0-9+/=]+/g, '[redacted]'], // Trunk (Svix) webhook signing secrets
  [/\bv1,[A-Za-z0-9+/]{40,}={0,2}/g, '[redacted]'], // Trunk (Svix) webhook signatures
  [/\b\d{6,}\.\d{6,}\.[0-9a-f]{20,}\b/g, '[redacted]'], // Slack OAuth codes
  // OAuth parameters in URLs and form bodies (the exchange and the refresh grant).
  [/([?&](?:code|client_secret|refresh_token|state)=)[^&\s"'\\]+/g, '$1[redacted]'],
  // The same as JSON inside text, quotes possibly escaped (a body logged as a string inside a JSON line).
  [
    /((\\?")(?:client_secret|refresh_token|access_token|bot_access_token|token|secret)\2\s*:\s*\2)(?:[^"\\]|\\(?!"))*(?=\2)/g,
    '$1[redacted]',
  ],
];

/** Replaces recognisable secrets in free text; key-based redaction handles structured fields. */
export function scrubSecrets(text: string): string {
  let out = text;
  for (const [re, replacement] of SECRET_TEXT) out = out.replace(re, replacement);
  return out;
}

/** Shorter values are not replaced: too likely to be ordinary words, and no real secret is that short. */
const MIN_SECRET_LENGTH = 6;

/**
 * Removes the given secret values wherever they appear in a written line, also in the forms a library may
 * have logged them in (URL-encoded in a form body, escaped inside a JSON string).
 */
export function secretValueScrubber(values: readonly string[]): (line: string) => string {
  const forms = new Set<string>();
  for (const v of values) {
    if (v.length < MIN_SECRET_LENGTH) continue;
    forms.add(v);
    forms.add(encodeURIComponent(v));
    forms.add(JSON.stringify(v).slice(1, -1));
    forms.add(JSON.stringify(encodeURIComponent(v)).slice(1, -1));
  }
  // Longest first, so a value containing another is removed whole.
  const ordered = [...forms].sort((a, b) => b.length - a.length);
  return (line) => {
    let out = line;
    for (const f of ordered) if (out.includes(f)) out = out.split(f).join('[redacted]');
    return out;
  };
}

/** pino paths for every secret key name: at the top, up to three levels deep, and inside `headers`. */
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

export interface SecretOptions {
  /** Configured secret values (see configuredSecrets): never written, whatever logged them. */
  secrets?: readonly string[];
}

export function createLogger(
  level: LogLevel = 'info',
  destination?: pino.DestinationStream,
  extra: LoggerOptions = {},
  { secrets = [] }: SecretOptions = {},
): Logger {
  const scrubValues = secretValueScrubber(secrets);
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
      // The last look at every finished line: values inside any field, and text that a library put
      // together itself (a form body, a URL), whose keys pino's redaction never sees.
      streamWrite: (line) => scrubValues(scrubSecrets(line)),
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
