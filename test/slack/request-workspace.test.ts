/**
 * The request guard's pure parts (src/slack/request-workspace.ts), beside the wire tests in
 * test/slack/e2e/request-workspace.test.ts: which team and enterprise a body names, whether that is our
 * workspace, and failing closed while Slack has not said whose the bot token is.
 */
import type { ReceiverEvent } from '@slack/bolt';
import type { WebClient } from '@slack/web-api';
import { describe, expect, it, vi } from 'vitest';
import { silentLogger } from '../../src/observability/log.ts';
import {
  guardRequestWorkspace,
  judgeSingle,
  ownWorkspaceOf,
  requestParty,
} from '../../src/slack/request-workspace.ts';
import { payload } from '../helpers/slack-payloads.ts';

describe('requestParty: the team a body names, read as Bolt reads it', () => {
  it('a slash command: team_id, enterprise_id, is_enterprise_install as the string Slack sends', () => {
    const fields = payload<Record<string, string>>('slash_command.org-wide');
    expect(requestParty(fields)).toMatchObject({
      kind: 'command',
      teamId: 'T0BRIDGE01',
      enterpriseId: 'E0STARSHP1',
      isEnterpriseInstall: true,
      userId: 'W0ADMIRAL1',
      action: 'status',
    });
  });

  it('an org-wide click (team: null) names the enterprise through user.team_id and enterprise', () => {
    expect(requestParty(payload('block_actions.org-wide.grid-user'))).toMatchObject({
      kind: 'interaction',
      teamId: 'E0STARSHP1',
      enterpriseId: 'E0STARSHP1',
      isEnterpriseInstall: true,
      action: 'mq_pause',
    });
  });

  it('an event names the installation (authorizations), not the Slack Connect person (context_team_id)', () => {
    expect(requestParty(payload('event_callback.ext-shared-channel'))).toMatchObject({
      kind: 'event',
      teamId: 'T0ACME0001',
    });
  });

  it('a modal opened through a shared channel names the workspace that installed the app', () => {
    const body = payload<Record<string, unknown>>('view_closed');
    (body['team'] as Record<string, unknown>)['id'] = 'T0OTHER001';
    expect(requestParty(body)?.teamId).toBe('T0ACME0001');
  });
});

describe('judgeSingle: single-workspace mode', () => {
  const own = { teamId: 'T0ACME0001', orgWide: false };
  const cmd = (teamId: string, enterpriseId?: string) => ({
    kind: 'command' as const,
    type: '/mergequeue',
    teamId,
    ...(enterpriseId ? { enterpriseId } : {}),
    isEnterpriseInstall: false,
    action: 'pause',
  });
  it('our team is ours; another team, or our team under another enterprise, is not', () => {
    expect(judgeSingle(cmd('T0ACME0001'), own)).toEqual({ ours: true, workspaceId: 'T0ACME0001' });
    expect(judgeSingle(cmd('T0OTHER001'), own)).toMatchObject({ ours: false, why: 'another-organization' });
    expect(judgeSingle(cmd('T0ACME0001', 'E0OTHER001'), own)).toMatchObject({ ours: false });
  });
  it('in a Grid: a sister workspace of the same enterprise is told so', () => {
    const grid = { ...own, enterpriseId: 'E0ACMEORG1' };
    expect(judgeSingle(cmd('T0SISTER01', 'E0ACMEORG1'), grid)).toMatchObject({
      ours: false,
      why: 'same-enterprise',
      auditWorkspaceId: 'T0ACME0001',
    });
  });
  it('an org-wide token: every workspace of the enterprise is ours, keyed by the enterprise', () => {
    const org = { teamId: 'E0STARSHP1', enterpriseId: 'E0STARSHP1', orgWide: true };
    expect(judgeSingle(cmd('T0BRIDGE01', 'E0STARSHP1'), org)).toEqual({
      ours: true,
      workspaceId: 'E0STARSHP1',
    });
    expect(judgeSingle(cmd('T0ELSEWHR1', 'E0OTHERORG'), org)).toMatchObject({ ours: false });
  });
});

describe('while Slack has not said whose the bot token is', () => {
  it('auth.test failing: requests are refused (fail closed), and the next request asks again', async () => {
    const test = vi
      .fn()
      .mockRejectedValueOnce(new Error('slack down'))
      .mockResolvedValue({ ok: true, team_id: 'T0ACME0001' });
    const own = ownWorkspaceOf(() => ({ auth: { test } }) as unknown as WebClient, silentLogger());
    const appendAudit = vi.fn(async () => {});
    const processed: unknown[] = [];
    const app = { processEvent: async (e: ReceiverEvent) => void processed.push(e.body) };
    guardRequestWorkspace(app, {
      mode: 'single',
      own: own.get,
      installations: { load: async () => undefined },
      audit: appendAudit,
      logger: silentLogger(),
      now: () => 0,
      slackApiUrl: 'http://127.0.0.1:1/api/',
    });
    const body = {
      command: '/mergequeue',
      text: 'pause',
      team_id: 'T0ACME0001',
      user_id: 'U1',
      channel_id: 'C1',
    };
    const acks: unknown[] = [];
    const event = (): ReceiverEvent => ({ body, ack: async (r?: unknown) => void acks.push(r) });

    await app.processEvent(event());
    expect(processed).toHaveLength(0);
    expect(JSON.stringify(acks[0])).toMatch(/could not confirm with Slack/);
    expect(appendAudit).toHaveBeenCalledTimes(1);

    await app.processEvent(event());
    expect(processed).toHaveLength(1);
    expect(test).toHaveBeenCalledTimes(2);
    await app.processEvent(event());
    expect(test).toHaveBeenCalledTimes(2);
  });
});
