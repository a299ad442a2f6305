/**
 * The sandbox's page server over HTTP, without a browser: what the page sends becomes signed Slack requests
 * the real app acts on (visible in the Trunk fake's state), and what the app sends to "Slack" comes back to
 * the page as Server-Sent Events (a pasted PR link's unfurl included). Also: real mode has no /sandbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../../dev/sandbox/index.ts';
import { USERS } from '../../../dev/sandbox/people.ts';
import { SEEDED } from '../../../dev/sandbox/seed.ts';
import { loadConfig } from '../../../src/config.ts';
import { silentLogger } from '../../../src/observability/log.ts';
import { startHarness } from '../../helpers/app-harness.ts';
import { assertValidMessage } from '../../helpers/block-kit.ts';
import { follow, type PageMessage } from './page-stream.ts';

/** What the page's form holds before anyone types: each input's initial value. */
function initialValues(blocks: Array<Record<string, unknown>>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  blocks.forEach((b, i) => {
    const el = b['element'] as Record<string, unknown> | undefined;
    if (b['type'] !== 'input' || !el) return;
    if (typeof el['initial_value'] === 'string') out[`${i}.e`] = el['initial_value'];
    const one = el['initial_option'] as { value: string } | undefined;
    const many = el['initial_options'] as Array<{ value: string }> | undefined;
    if (one) out[`${i}.e`] = [one.value];
    if (many) out[`${i}.e`] = many.map((o) => o.value);
  });
  return out;
}

const textOf = (m: PageMessage) => `${m.text} ${JSON.stringify(m.blocks ?? [])}`;

describe('sandbox page server', () => {
  let sb: Sandbox;
  let base: string;
  let page: Awaited<ReturnType<typeof follow>>;
  const post = async (path: string, body: unknown, type = 'application/json') => {
    const res = await fetch(`${base}/sandbox/api/${path}`, {
      method: 'POST',
      headers: { 'content-type': type },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as Record<string, unknown> };
  };

  beforeAll(async () => {
    sb = await startSandbox(loadConfig({ PORT: '0', SCHEDULER_ENABLED: 'false' }), {
      logger: silentLogger(),
    });
    base = sb.url.replace(/\/sandbox$/, '');
    page = await follow(base);
  });
  afterAll(async () => {
    page?.close();
    await sb?.stop();
  });

  it('serves the page and its files, and nothing else under /sandbox/static', async () => {
    const html = await fetch(sb.url);
    expect(html.status).toBe(200);
    expect(await html.text()).toContain('/sandbox/static/app.js');
    for (const f of ['app.js', 'blockkit.js', 'style.css'])
      expect((await fetch(`${base}/sandbox/static/${f}`)).status).toBe(200);
    expect((await fetch(`${base}/sandbox/static/..%2F..%2Fpeople.ts`)).status).toBe(404);
    expect((await fetch(`${base}/sandbox/static/index.ts`)).status).toBe(404);
  });

  it('a command reaches the app as a signed slash command and its status message comes back', async () => {
    const res = await post('command', { as: 'operator', text: '/mergequeue status' });
    expect(res.json).toEqual({ ok: true });
    const status = await page.until(
      () =>
        [...page.messages.values()].find(
          (m) => !m.ephemeralTo && textOf(m).includes('Merge queue acme/web:main'),
        ),
      'the status message',
    );
    expect(textOf(status)).toContain('Hotfix: double charge on retried card payments');
    // The typed command is echoed to its sender only.
    const echo = [...page.messages.values()].find((m) => m.command === '/mergequeue status');
    expect(echo?.ephemeralTo).toBe(USERS.operator.id);
    expect(sb.slack.callsTo('chat.postMessage').length).toBeGreaterThan(0);
  });

  it('a click on Pause is a block_actions request that opens the reason modal; submitting it pauses and updates the message', async () => {
    const status = [...page.messages.values()].find((m) => textOf(m).includes('Merge queue acme/web:main'))!;
    const actions = status.blocks!.findIndex((b) => b['type'] === 'actions');
    const elements = status.blocks![actions]!['elements'] as Array<Record<string, unknown>>;
    const pause = elements.findIndex((e) => e['action_id'] === 'mq_pause');
    const res = await post('action', { as: 'operator', ts: status.ts, path: `${actions}.${pause}` });
    expect(res.json).toEqual({ ok: true });
    const view = await page.until(
      () => [...page.views.values()].find((v) => v.view['callback_id'] === 'mq_reason'),
      'the reason modal',
    );
    const blocks = view.view['blocks'] as Array<Record<string, unknown>>;
    const reason = blocks.findIndex((b) => b['block_id'] === 'reason');
    const sent = await post('submit', {
      as: 'operator',
      viewId: view.id,
      values: { [`${reason}.e`]: 'release cut' },
    });
    expect(sent.json).toMatchObject({ ok: true, outcome: 'closed' });
    await page.until(
      () => page.messages.get(status.ts)?.edited && textOf(page.messages.get(status.ts)!).includes('paused'),
      'the update',
    );
    expect(sb.trunk.queue('acme/web', 'main')?.state).toBe('paused');
  });

  it("opening the Home tab sends app_home_opened; the app's Home comes back and its buttons act on the queue", async () => {
    if (sb.trunk.queue('acme/web', 'main')?.state !== 'paused') {
      await post('command', { as: 'operator', text: 'pause before the Home' });
      await page.until(() => sb.trunk.queue('acme/web', 'main')?.state === 'paused', 'paused');
    }
    const res = await post('home', { as: 'operator' });
    expect(res.json).toEqual({ ok: true });
    const home = await page.until(() => page.homes.get(USERS.operator.id), 'the Home');
    expect(JSON.stringify(home.view)).toContain('acme/web:main');
    expect(sb.slack.callsTo('views.publish').length).toBeGreaterThan(0);
    // The queue is paused: the Home offers Resume for it; a click there resumes it.
    const blocks = home.view['blocks'] as Array<Record<string, unknown>>;
    const at = blocks.findIndex(
      (b) =>
        b['type'] === 'actions' &&
        (b['elements'] as Array<Record<string, unknown>>).some((e) => e['action_id'] === 'mq_resume'),
    );
    const elements = blocks[at]!['elements'] as Array<Record<string, unknown>>;
    const resume = elements.findIndex((e) => e['action_id'] === 'mq_resume');
    const clicked = await post('action', { as: 'operator', viewId: home.id, path: `${at}.${resume}` });
    expect(clicked.json).toEqual({ ok: true });
    await page.until(() => page.homes.get(USERS.operator.id)?.id !== home.id || undefined, 'the Home again');
    expect(sb.trunk.queue('acme/web', 'main')?.state).toBe('running');
    expect(JSON.stringify(page.homes.get(USERS.operator.id)!.view)).toContain('running');
    // Put it back the way the next test expects it.
    await post('command', { as: 'operator', text: 'pause back to paused' });
    await page.until(() => sb.trunk.queue('acme/web', 'main')?.state === 'paused', 'paused again');
  });

  it('a member is refused, and only the member sees the refusal', async () => {
    const before = sb.trunk.requestsTo('updateQueue').length;
    await post('command', { as: 'member', text: 'resume' });
    const refusal = await page.until(
      () =>
        [...page.messages.values()].find(
          (m) => m.ephemeralTo === USERS.member.id && /can't resume/i.test(textOf(m)),
        ),
      'the refusal',
    );
    expect(refusal).toBeDefined();
    expect(sb.trunk.requestsTo('updateQueue').length).toBe(before);
    expect(sb.trunk.queue('acme/web', 'main')?.state).toBe('paused');
  });

  it('modal: Slack-side checks stop a bad number before the app; a valid submission is applied', async () => {
    await post('command', { as: 'operator', text: 'settings' });
    const view = await page.until(
      () =>
        [...page.views.values()].find((v) =>
          (v.view['blocks'] as unknown[]).some(
            (b) => (b as { block_id?: string }).block_id === 'concurrency',
          ),
        ),
      'the settings modal',
    );
    const blocks = view.view['blocks'] as Array<Record<string, unknown>>;
    const at = blocks.findIndex((b) => b['block_id'] === 'concurrency');
    const form = initialValues(blocks);
    expect(form[`${at}.e`]).toBe('4');
    const updates = sb.trunk.requestsTo('updateQueue').length;
    const bad = await post('submit', {
      as: 'operator',
      viewId: view.id,
      values: { ...form, [`${at}.e`]: '0' },
    });
    expect(bad.json).toMatchObject({ ok: true, outcome: 'errors', errors: { concurrency: /1 or more/ } });
    expect(sb.trunk.requestsTo('updateQueue').length).toBe(updates);
    // Other people cannot submit someone else's modal.
    const other = await post('submit', {
      as: 'member',
      viewId: view.id,
      values: { ...form, [`${at}.e`]: '3' },
    });
    expect(other.json).toMatchObject({ ok: false, error: 'That dialog is closed.' });
    const good = await post('submit', {
      as: 'operator',
      viewId: view.id,
      values: { ...form, [`${at}.e`]: '3' },
    });
    expect(good.json).toMatchObject({ ok: true, outcome: 'closed' });
    await page.until(() => !page.views.has(view.id), 'the modal to close');
    await page.until(() => sb.trunk.queue('acme/web', 'main')?.concurrency === 3, 'concurrency 3 in Trunk');
  });

  it('refuses what the page would never send, with a reason', async () => {
    const form = await post('command', 'text=status', 'application/x-www-form-urlencoded');
    expect(form.status).toBe(400);
    expect(form.json['error']).toMatch(/JSON/);
    const junk = await post('command', '{nope', 'application/json');
    expect(junk.status).toBe(400);
    const status = [...page.messages.values()].find((m) => textOf(m).includes('Merge queue acme/web:main'))!;
    const missing = await post('action', { as: 'operator', ts: status.ts, path: '99.0' });
    expect(missing.status).toBe(400);
    expect(missing.json['error']).toMatch(/message changed/);
    const gone = await post('action', { as: 'operator', ts: '1.000001', path: '0.0' });
    expect(gone.json).toEqual({ ok: false, error: 'That message is no longer there.' });
  });

  it('"run digest now" says how to add one when the channel has none', async () => {
    const res = await post('digest', { as: 'operator' });
    expect(res.json['ok']).toBe(false);
    expect(res.json['error']).toMatch(/digest add failing/);
  });

  it('a pasted PR link unfurls under its message: link_shared to the app, chat.unfurl back', async () => {
    const url = `https://github.com/acme/web/pull/${SEEDED.kickedPr}`;
    expect((await post('say', { as: 'member', text: `Why did this get kicked? ${url}` })).json).toEqual({
      ok: true,
    });
    const message = await page.until(
      () =>
        [...page.messages.values()].find(
          (m) => m.text.includes('Why did this get kicked?') && m.unfurls?.length,
        ),
      'the message with its unfurl',
    );
    expect(message.ephemeralTo).toBeUndefined();
    const [preview] = message.unfurls ?? [];
    expect(preview!.url).toBe(url);
    assertValidMessage(preview!.blocks);
    const text = JSON.stringify(preview!.blocks);
    expect(text).toContain(`#${SEEDED.kickedPr}`);
    expect(text).toContain('It failed');
    expect(text).toContain('Open in Trunk');
    expect(sb.slack.callsTo('chat.unfurl').at(-1)?.response).toMatchObject({ ok: true });
  });

  it('a message without a link on an unfurl domain is just a message', async () => {
    const before = sb.slack.callsTo('chat.unfurl').length;
    expect((await post('say', { as: 'member', text: 'see https://example.com/not-ours' })).json).toEqual({
      ok: true,
    });
    await page.until(
      () => [...page.messages.values()].find((m) => m.text.includes('not-ours')),
      'the plain message',
    );
    expect(sb.slack.callsTo('chat.unfurl')).toHaveLength(before);
  });
});

describe('real mode', () => {
  it('has no /sandbox when Slack credentials are set', async () => {
    const h = await startHarness();
    try {
      for (const path of ['/sandbox', '/sandbox/static/app.js', '/sandbox/api/events'])
        expect((await fetch(`${h.url}${path}`)).status).toBe(404);
      const res = await fetch(`${h.url}/sandbox/api/command`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"text":"status"}',
      });
      expect(res.status).toBe(404);
    } finally {
      await h.close();
    }
  });
});
