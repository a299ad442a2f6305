/**
 * Bolt hands the listeners any signed body it can parse: a block_actions with no actions, no user or no
 * team, JSON `null`, a form with neither a command nor a payload. Some of those threw inside Bolt or a
 * listener (a 500), others were never acknowledged (a 404 after 3 s, or a hung request). Slack never
 * sends them, so they come from a bug or a probe: each gets a quiet 200 and a warning, and reaches no
 * listener. What a listener reads is checked here once, so the listeners can trust it.
 */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { App } from '@slack/bolt';
import { requestPath } from '../core/request-path.ts';
import type { Logger } from '../observability/log.ts';

/** Bolt's own limit for a request body. */
const BODY_LIMIT = 4 * 1024 * 1024;

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const isStr = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
const hasId = (v: unknown): boolean => isObj(v) && isStr(v['id']);

/** Interactive payload types with a user and a workspace; anything else is not for this app. */
const INTERACTIVE = new Set([
  'block_actions',
  'block_suggestion',
  'view_submission',
  'view_closed',
  'shortcut',
  'message_action',
  'interactive_message',
  'dialog_submission',
]);

/** Why a parsed body is not something Slack sends, or undefined when it is well formed. */
export function payloadProblem(body: unknown): string | undefined {
  if (!isObj(body)) return 'the body is not an object';
  if ('command' in body) {
    if (!isStr(body['command']) || !isStr(body['user_id']) || !isStr(body['channel_id']))
      return 'a slash command without command, user_id or channel_id';
    if (!isStr(body['team_id']) && !isStr(body['enterprise_id'])) return 'a slash command without a team';
    return undefined;
  }
  const type = body['type'];
  if (type === 'url_verification' || type === 'ssl_check' || 'ssl_check' in body) return undefined;
  if (type === 'event_callback' || type === 'app_rate_limited') {
    if (type === 'event_callback' && !(isObj(body['event']) && isStr(body['event']['type'])))
      return 'an event_callback without an event type';
    return undefined;
  }
  if (!isStr(type)) return 'no command and no payload type';
  if (!INTERACTIVE.has(type)) return `an unknown payload type \`${type.slice(0, 40)}\``;
  if (!hasId(body['user'])) return `a ${type} without a user`;
  if (!hasId(body['team']) && !hasId(body['enterprise'])) return `a ${type} without a team or enterprise`;
  if (type === 'block_actions') {
    const actions = body['actions'];
    if (!Array.isArray(actions) || actions.length === 0) return 'a block_actions without actions';
    if (!actions.every((a) => isObj(a) && isStr(a['action_id']) && isStr(a['type'])))
      return 'a block_actions with an action that has no action_id or type';
  }
  if ((type === 'view_submission' || type === 'view_closed') && !isObj(body['view']))
    return `a ${type} without a view`;
  return undefined;
}

/**
 * Puts the check in front of Bolt's processing (every receiver calls app.processEvent), so a malformed
 * body is acknowledged with an empty 200 before authorize, middleware or a listener sees it.
 */
export function guardPayloadShapes(app: App, logger: Logger): void {
  const process = app.processEvent.bind(app);
  app.processEvent = async (event) => {
    const problem = payloadProblem(event.body);
    if (problem === undefined) return process(event);
    logger.warn({ problem }, 'a signed request Slack would not send was acknowledged and ignored');
    await event.ack();
  };
}

/**
 * Bolt reads `body.ssl_check` before anything else, so a body that parses to JSON `null` (a `payload=null`
 * form, or an Events API body of `null`) threw outside any handler and the request hung until the client
 * gave up. The body is read here first (Bolt uses an already-read `rawBody` as is) and anything that does
 * not parse to an object is answered 400, saying so.
 */
export function rejectNonObjectBodies(
  receiver: { requestListener: RequestListener },
  endpoints: readonly string[],
  logger: Logger,
): void {
  const next = receiver.requestListener;
  receiver.requestListener = (req: IncomingMessage, res: ServerResponse) => {
    const path = requestPath(req);
    if (req.method !== 'POST' || !endpoints.includes(path)) return next(req, res);
    void readBody(req).then(
      (raw) => {
        if (raw === undefined) {
          res.writeHead(413, { 'content-type': 'text/plain' });
          res.end('The request body is larger than 4 MB.');
          return;
        }
        if (!parsesToObject(raw, String(req.headers['content-type'] ?? ''))) {
          logger.warn('a request whose body is not a JSON object was refused');
          res.writeHead(400, { 'content-type': 'text/plain' });
          res.end('The request body (or its payload field) must be a JSON object.');
          return;
        }
        (req as IncomingMessage & { rawBody?: Buffer }).rawBody = raw;
        next(req, res);
      },
      () => {
        res.writeHead(400, { 'content-type': 'text/plain' });
        res.end('The request body could not be read.');
      },
    );
  };
}

/** The body, or undefined when it is over Bolt's limit (the rest is drained, not kept). */
async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > BODY_LIMIT) {
      req.resume();
      return undefined;
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function parsesToObject(raw: Buffer, contentType: string): boolean {
  const text = raw.toString();
  let json: string | undefined = text;
  if (contentType.startsWith('application/x-www-form-urlencoded')) {
    json = new URLSearchParams(text).get('payload') ?? undefined;
    if (json === undefined) return true; // a slash command: plain form fields
  } else if (!contentType.startsWith('application/json')) return true;
  try {
    return isObj(JSON.parse(json));
  } catch {
    return true; // Bolt answers unparseable JSON with its own 400
  }
}
