/**
 * Key names whose values are secrets. One list for everyone who must keep secrets out of what they write:
 * the logger redacts them, the store scrubs them from audit details. It lives here, not in the logger, so
 * the store need not import the logger to know what a secret is called.
 */

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
  // A workflow step's execution token (function_executed `bot_access_token`, Bolt's context key).
  'bot_access_token',
  'functionBotAccessToken',
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
