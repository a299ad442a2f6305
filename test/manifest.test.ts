/**
 * manifest.yml is a complete, valid Slack app manifest (Slack's official JSON Schema, draft-07) that
 * matches what the app actually does: its command, routes, events and the scopes it asks for.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { BOT_SCOPES, EVENTS_PATH, REDIRECT_PATH } from '../src/app.ts';
import { STEP_IDS } from '../src/slack/grammars/steps.ts';
import { COMMAND } from '../src/slack/listeners/commands/mergequeue.ts';
import { ROOT } from './helpers/processes.ts';

/** The parts of a manifest this test reads. */
interface Manifest {
  features: {
    slash_commands: Array<{ command: string; url: string }>;
    app_home?: { home_tab_enabled?: boolean };
    unfurl_domains?: string[];
  };
  oauth_config: { redirect_urls: string[]; scopes: { bot: string[]; user?: string[] } };
  functions?: Record<
    string,
    {
      title: string;
      input_parameters: Record<string, { type: string; is_required?: boolean }>;
      output_parameters: Record<string, { type: string; is_required?: boolean }>;
    }
  >;
  settings: {
    org_deploy_enabled?: boolean;
    function_runtime?: string;
    event_subscriptions: { request_url: string; bot_events: string[] };
    interactivity: { is_enabled: boolean; request_url: string };
    socket_mode_enabled: boolean;
  };
}

const manifest = parse(readFileSync(join(ROOT, 'manifest.yml'), 'utf8')) as Manifest;
// Slack's official manifest schema (slackapi/manifest-schema, MIT licence); a copy in test/fixtures, see its
// README.
const schemaPath = join(ROOT, 'test', 'fixtures', 'slack-manifest.schema.json');

describe('manifest.yml', () => {
  it("validates against Slack's manifest schema", () => {
    const schema = JSON.parse(readFileSync(schemaPath, 'utf8')) as Record<string, unknown>;
    expect(schema['$schema']).toContain('draft-07');
    const ajv = new Ajv({ allErrors: true, strict: false });
    (addFormats as unknown as (a: Ajv) => void)(ajv);
    const validate = ajv.compile(schema);
    const ok = validate(manifest);
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  it('the schema check catches a broken manifest (the test can fail)', () => {
    const schema = JSON.parse(readFileSync(schemaPath, 'utf8')) as Record<string, unknown>;
    const validate = new Ajv({ strict: false }).compile(schema);
    const broken = structuredClone(manifest);
    broken.features.slash_commands[0]!.command = 'mergequeue';
    (broken.settings as Record<string, unknown>)['interactivity'] = { request_url: 'ftp://x' };
    expect(validate(broken)).toBe(false);
  });

  it('declares the command the app listens to, pointing at /slack/events', () => {
    const commands = manifest.features.slash_commands;
    expect(commands.map((c) => c.command)).toEqual(['/mergequeue']);
    expect(COMMAND.test(commands[0]!.command)).toBe(true);
    expect(new URL(commands[0]!.url).pathname).toBe(EVENTS_PATH);
    expect(new URL(manifest.settings.interactivity.request_url).pathname).toBe(EVENTS_PATH);
    expect(new URL(manifest.settings.event_subscriptions.request_url).pathname).toBe(EVENTS_PATH);
    expect(new URL(manifest.oauth_config.redirect_urls[0]!).pathname).toBe(REDIRECT_PATH);
  });

  it('asks for exactly the bot scopes the app requests at install, and no user scopes', () => {
    expect([...manifest.oauth_config.scopes.bot].sort()).toEqual([...BOT_SCOPES].sort());
    expect(manifest.oauth_config.scopes.user).toBeUndefined();
  });

  it('subscribes to the events the app handles (uninstall, the Home tab), and is HTTP mode by default', () => {
    expect([...manifest.settings.event_subscriptions.bot_events].sort()).toEqual([
      'app_home_opened',
      'app_uninstalled',
      'function_executed',
      'link_shared',
      'tokens_revoked',
    ]);
    expect(manifest.settings.interactivity.is_enabled).toBe(true);
    expect(manifest.settings.socket_mode_enabled).toBe(false);
  });

  it("unfurls links on Trunk's web app and GitHub, with the scopes link_shared and chat.unfurl need", () => {
    expect(manifest.features.unfurl_domains).toEqual(['app.trunk.io', 'github.com']);
    expect(BOT_SCOPES).toEqual(expect.arrayContaining(['links:read', 'links:write']));
    expect(manifest.settings.event_subscriptions.bot_events).toContain('link_shared');
  });

  it('turns the Home tab on, which app_home_opened is for', () => {
    expect(manifest.features.app_home?.home_tab_enabled).toBe(true);
  });

  it("declares DESIGN's Workflow Builder steps with typed inputs, a required interactivity and a state output", () => {
    const functions = manifest.functions ?? {};
    expect(Object.keys(functions).sort()).toEqual([...STEP_IDS].sort());
    const inputs = (id: string) =>
      Object.fromEntries(
        Object.entries(functions[id]!.input_parameters).map(([name, p]) => [name, [p.type, p.is_required]]),
      );
    const interactivity = ['slack#/types/interactivity', true];
    const channel = ['slack#/types/channel_id', false];
    for (const id of ['pause_queue', 'drain_queue', 'resume_queue'])
      expect(inputs(id)).toEqual({
        target: ['string', true],
        reason: ['string', false],
        channel,
        interactivity,
      });
    expect(inputs('set_concurrency')).toEqual({
      target: ['string', true],
      concurrency: ['integer', true],
      channel,
      interactivity,
    });
    expect(inputs('submit_pr')).toEqual({
      target: ['string', true],
      pr: ['integer', true],
      priority: ['string', false],
      channel,
      interactivity,
    });
    expect(inputs('cancel_pr')).toEqual({
      target: ['string', true],
      pr: ['integer', true],
      reason: ['string', false],
      channel,
      interactivity,
    });
    expect(inputs('wait_for_pr')).toEqual({
      target: ['string', true],
      pr: ['integer', true],
      timeout_minutes: ['integer', true],
      interactivity,
    });
    for (const f of Object.values(functions))
      expect(f.output_parameters).toEqual({
        state: expect.objectContaining({ type: 'string', is_required: true }),
      });
  });

  it('is org-ready with a remote function runtime, as custom steps require', () => {
    expect(manifest.settings.org_deploy_enabled).toBe(true);
    expect(manifest.settings.function_runtime).toBe('remote');
  });
});
