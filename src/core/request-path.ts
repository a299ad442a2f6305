/**
 * The path of an HTTP request as Bolt's HTTPReceiver routes it (`new URL(req.url).pathname`: dot segments
 * resolved, a fragment dropped), so that a guard in front of the receiver sees every request the receiver
 * treats as a Slack request: `/slack/./events` and `/slack/events#x` reach Bolt's `/slack/events` too.
 */
import type { IncomingMessage } from 'node:http';

// Every guard in front of the receiver asks for each request's path: the last answer is kept, since the
// same url comes several times in a row (a URL parse is a measurable part of a request before its ack).
let lastUrl: string | undefined;
let lastPath = '/';

export function requestPath(req: Pick<IncomingMessage, 'url'>): string {
  const url = req.url ?? '/';
  if (url === lastUrl) return lastPath;
  let path: string;
  try {
    path = new URL(url, 'http://localhost').pathname;
  } catch {
    path = url.split('?')[0] ?? '/';
  }
  lastUrl = url;
  lastPath = path;
  return path;
}
