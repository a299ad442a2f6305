/**
 * Structured JSON logs (pino). Secrets are redacted by configuration, so a token that reaches a log
 * call by accident is still never written.
 */
import { type Logger, type LoggerOptions, pino } from 'pino';
import type { LogLevel } from '../config.ts';

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
];

export function redactPaths(): string[] {
  const paths: string[] = [];
  for (const k of SECRET_KEYS) {
    const key = /^[A-Za-z_$][\w$]*$/.test(k) ? k : `["${k}"]`;
    const dot = key.startsWith('[') ? '' : '.';
    paths.push(key, `*${dot}${key}`, `*.*${dot}${key}`, `headers${dot}${key}`, `req.headers${dot}${key}`);
  }
  return paths;
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
    ...extra,
  };
  return destination ? pino(options, destination) : pino(options);
}

/** For tests and tools that must not print. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
