/** The browser part of an OAuth install, as Slack and a person's browser do it, against the harness. */
import { expect } from 'vitest';
import type { Harness } from './app-harness.ts';

/** GET /slack/install, then Slack's redirect back with a code; returns the redirect's response. */
export async function installViaOAuth(h: Harness, clientId = 'client-id-1'): Promise<Response> {
  const start = await fetch(`${h.url}/slack/install`, { redirect: 'manual' });
  expect(start.status).toBe(302);
  const location = new URL(start.headers.get('location')!);
  expect(location.pathname).toBe('/oauth/v2/authorize');
  expect(location.searchParams.get('client_id')).toBe(clientId);
  expect(location.searchParams.get('scope')).toContain('commands');
  const state = location.searchParams.get('state')!;
  expect(state).toBeTruthy();
  const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0]!;
  return fetch(`${h.url}/slack/oauth_redirect?code=fake-code-1&state=${encodeURIComponent(state)}`, {
    headers: { cookie },
    redirect: 'manual',
  });
}
