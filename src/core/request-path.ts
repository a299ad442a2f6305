/**
 * The path of an HTTP request as Bolt's HTTPReceiver routes it (`new URL(req.url).pathname`: dot segments
 * resolved, a fragment dropped), so that a guard in front of the receiver sees every request the receiver
 * treats as a Slack request: `/slack/./events` and `/slack/events#x` reach Bolt's `/slack/events` too.
 */
import type { IncomingMessage } from 'node:http';

export function requestPath(req: Pick<IncomingMessage, 'url'>): string {
  try {
    return new URL(req.url ?? '/', 'http://localhost').pathname;
  } catch {
    return (req.url ?? '/').split('?')[0] ?? '/';
  }
}
