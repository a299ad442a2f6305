/**
 * Flaky tests, to the people who own them (issue 21), through the real wire: `tests watch|unwatch|list` as
 * signed slash commands, Trunk's flaky-test deliveries handed to the app's test-case sink (test/flaky/helpers.ts:
 * the one place a delivery is made, to become a signed webhook POST once the receiver is merged), the buttons
 * and the ticket form as signed interactions, the fake Slack and the fake Trunk v2 as real servers.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FakeMessage } from '../../../dev/fakes/slack/types.ts';
import {
  deliver,
  delivery,
  investigationCompleted,
  monitorChanged,
  statusChanged,
} from '../../flaky/helpers.ts';
import { defaultUsers, type Harness, startHarness, TEAM, USERS } from '../../helpers/app-harness.ts';
import { assertValidMessage, assertValidModal } from '../../helpers/block-kit.ts';
import { findAction, textOf } from '../../helpers/block-kit-reading.ts';
import { v2RequestBodyErrors, v2RequestErrors } from '../../trunk/openapi-v2.ts';

const V2_KEY = 'trunk_v2_testfeeds_key';
const PAY = 'C0PAY00001';
const WEB = 'C0WEB00001';
const OTHER = 'C0OTHER001';
const SECRET = 'C0SECRET01';
const SHARED = 'C0SHARED01';
const PAYER = { id: 'UPAYER0001', name: 'paula' };
const GUEST = { id: 'UGUEST0001', name: 'gus' };
const PAY_GROUP = 'S0PAYTEAM1';

let h: Harness;

async function command(text: string, o: { user?: string; channel: string }) {
  const sent = await h.sendCommand(text, { user: o.user ?? USERS.admin, channel: o.channel });
  expect(sent.status).toBe(200);
  return textOf(await h.reply(sent.responseUrl));
}

/** The app's status messages about tests in a channel (top level, with an Open in Trunk button). */
const feedPosts = (channel: string) =>
  h.slack.channelMessages(channel).filter((m) => !m.threadTs && findAction(m.blocks ?? [], 'mq_test_open'));
const thread = (channel: string, ts: string) =>
  h.slack.channelMessages(channel).filter((m) => m.threadTs === ts);
const writes = (testId: string) => h.trunk.v2.tests.writes.filter((w) => w.testId === testId);

beforeAll(async () => {
  h = await startHarness({
    env: { TRUNK_API_KEY: V2_KEY },
    app: { digest: { paceMs: 0 } },
    slackOptions: {
      users: [...defaultUsers(), { ...PAYER }, { ...GUEST, isRestricted: true }],
      usergroups: { [PAY_GROUP]: [PAYER.id] },
      channels: [
        { id: PAY, name: 'payments' },
        { id: WEB, name: 'web' },
        { id: OTHER, name: 'other' },
        { id: SECRET, name: 'secret', isPrivate: true, members: [USERS.admin] },
        { id: SHARED, name: 'shared-with-vendor', isShared: true },
      ],
    },
  });
  h.trunk.v2.setKeys({ [V2_KEY]: ['Quarantine tests'] });
  // Whom an owner's lines mention: the payments team's Slack user group.
  expect(
    await command(`digest owners @acme/payments <!subteam^${PAY_GROUP}|@payments>`, { channel: PAY }),
  ).toContain('@acme/payments');
  expect(await command('tests watch owner @acme/payments acme/widgets', { channel: PAY })).toContain(
    'This channel will hear',
  );
  await command('tests watch owner @acme/web', { channel: WEB });
  await command('tests watch acme/other', { channel: OTHER });
});
afterAll(async () => h?.close());

beforeEach(async () => {
  await h.reset();
  h.trunk.v2.setKeys({ [V2_KEY]: ['Quarantine tests'] });
  h.trunk.v2.tests.ticketing = 'ok';
});

/** Posts a status change for a new test owned by @acme/payments and answers its message in #payments. */
async function postedTest(id: string, o: { failureRate?: number } = {}): Promise<FakeMessage> {
  h.trunk.v2.tests.set({
    id,
    name: `test ${id}`,
    failureRate: o.failureRate ?? 0.25,
    codeowners: ['@acme/payments'],
  });
  expect(await deliver(h, delivery(statusChanged({ id, name: `test ${id}` }, 'HEALTHY', 'FLAKY')))).toBe(
    'applied',
  );
  const m = feedPosts(PAY).find((x) => textOf(x).includes(`test ${id}`));
  expect(m).toBeDefined();
  return m!;
}

describe('tests watch, list, unwatch', () => {
  it('says how to set up the webhook when no signing secret is configured, and announces the feed', async () => {
    const text = await command('tests watch acme/gadgets', { channel: PAY });
    expect(text).toContain('no webhook signing secret');
    expect(text).toContain(`/trunk/webhooks/${TEAM}`);
    expect(text).toContain('TRUNK_WEBHOOK_SECRET');
    const announced = await h.slack.waitFor(() =>
      h.slack.channelMessages(PAY).find((m) => textOf(m).includes('started a flaky-test feed here')),
    );
    expect(textOf(announced)).toContain(`<@${USERS.admin}> started a flaky-test feed here`);
    // The same again changes nothing and announces nothing.
    const before = h.slack.channelMessages(PAY).length;
    expect(await command('tests watch acme/gadgets', { channel: PAY })).toContain('already hears');
    expect(h.slack.channelMessages(PAY)).toHaveLength(before);
    expect(await command('tests unwatch acme/gadgets', { channel: PAY })).toContain('no longer hears');
    expect(await command('tests list', { channel: PAY })).toContain('acme/widgets');
  });

  it('answers bad input with what to type instead, changing nothing', async () => {
    expect(await command('tests', { channel: OTHER })).toContain('`watch`, `unwatch` or `list`');
    expect(await command('tests frob', { channel: OTHER })).toContain('is not something `tests` does');
    expect(await command('tests watch acme/web:main', { channel: OTHER })).toContain(
      'leave out the `:branch` part',
    );
    expect(await command('tests watch owner', { channel: OTHER })).toContain(
      'Say whose tests the test feed is for',
    );
    expect(
      await command(`tests watch owner <!subteam^${PAY_GROUP}|@payments>`, { channel: OTHER }),
    ).toContain('not a Slack mention');
    expect(await command('tests watch payments', { channel: OTHER })).toContain('neither a repository');
    expect(await command('tests unwatch a/b c/d', { channel: OTHER })).toContain('at most one repository');
    expect(await command('tests list', { channel: OTHER })).toContain('acme/other');
  });

  it('refuses guests, and lists only the feeds of channels the person can see', async () => {
    expect(await command('tests watch', { user: GUEST.id, channel: WEB })).toContain('guests do not manage');
    // In a channel shared with another organization, only operators manage feeds.
    expect(await command('tests watch', { user: USERS.member, channel: SHARED })).toContain(
      'shared with another organization',
    );
    expect(await command('tests watch', { user: USERS.admin, channel: SHARED })).toContain(
      'This channel will hear',
    );
    expect(await command('tests unwatch', { user: USERS.admin, channel: SHARED })).toContain(
      'no longer hears',
    );
    await command('tests watch owner @acme/secret', { channel: SECRET });
    const mine = await command('tests list', { user: USERS.member, channel: PAY });
    expect(mine).toContain('@acme/payments');
    expect(mine).toContain('@acme/web');
    expect(mine).not.toContain('@acme/secret');
    const admins = await command('tests list', { user: USERS.admin, channel: PAY });
    expect(admins).toContain('@acme/secret');
    // The Home lists them with the queue feeds, by the same rule.
    const home = textOf({ blocks: (await h.openHome(USERS.member)).view['blocks'] });
    expect(home).toContain(`<#${PAY}> flaky tests: tests of *acme/widgets* owned by \`@acme/payments\``);
    expect(home).not.toContain('@acme/secret');
    expect(textOf({ blocks: (await h.openHome(USERS.admin)).view['blocks'] })).toContain('@acme/secret');
    // Ending it is announced; a second time there is nothing to end.
    expect(await command('tests unwatch', { channel: SECRET })).toContain('no longer hears');
    const ended = await h.slack.waitFor(() =>
      h.slack.channelMessages(SECRET).find((m) => textOf(m).includes('ended this channel')),
    );
    expect(textOf(ended)).toContain(`<@${USERS.admin}> ended this channel's flaky-test feed`);
    expect(await command('tests unwatch', { channel: SECRET })).toContain('has no flaky-test feed');
  });
});

describe('status changes', () => {
  it('reach the owning team’s channel and not others, with owners, link and failure rate', async () => {
    const outcome = await postedTest('t-route-1', { failureRate: 0.25 });
    const text = textOf(outcome);
    expect(text).toContain('test t-route-1');
    expect(text).toContain('src/checkout.test.ts');
    expect(text).toContain('@acme/payments');
    expect(text).toContain(`<!subteam^${PAY_GROUP}>`);
    expect(text).toMatch(/HEALTHY.*→.*FLAKY/);
    expect(text).toContain('25%');
    expect(findAction(outcome.blocks, 'mq_test_open')?.['url']).toContain('/flaky-tests/test/t-route-1');
    expect(findAction(outcome.blocks, 'mq_test_quarantine')).toBeDefined();
    assertValidMessage(outcome.blocks);
    // Owned by @acme/payments in acme/widgets: not #web (another owner), not #other (another repository).
    expect(feedPosts(WEB)).toHaveLength(0);
    expect(feedPosts(OTHER)).toHaveLength(0);
    // The failure rate came from v2, as the OpenAPI subset describes the read.
    const reads = h.trunkCalls('tests.get');
    expect(reads).toHaveLength(1);
    expect(reads[0]!.path).toContain('include=metrics');
    expect(v2RequestErrors('GET', reads[0]!.path)).toEqual([]);
  });

  it('matches the repository and the owner ignoring case, and posts a delivery once', async () => {
    const d = delivery(
      statusChanged(
        { id: 't-other-1', repo: 'Acme/Other', codeowners: ['@acme/nobody'] },
        'HEALTHY',
        'BROKEN',
      ),
    );
    expect(await deliver(h, d)).toBe('applied');
    expect(await deliver(h, d)).toBe('applied');
    expect(feedPosts(OTHER)).toHaveLength(1);
    expect(textOf(feedPosts(OTHER)[0])).toContain('is broken');
    expect(feedPosts(PAY)).toHaveLength(0);
    const web = delivery(statusChanged({ id: 't-web-1', codeowners: ['@ACME/Web'] }, 'HEALTHY', 'FLAKY'));
    expect(await deliver(h, web)).toBe('applied');
    expect(feedPosts(WEB)).toHaveLength(1);
  });

  it('posts a recovery, and drops a change older than the one shown', async () => {
    const id = 't-recover-1';
    const t0 = new Date(Date.now() - 60_000);
    await deliver(h, delivery(statusChanged({ id }, 'FLAKY', 'BROKEN', t0)));
    await deliver(h, delivery(statusChanged({ id }, 'BROKEN', 'healthy', new Date())));
    const posts = feedPosts(PAY);
    expect(posts).toHaveLength(2);
    expect(textOf(posts[1])).toContain('recovered');
    expect(textOf(posts[1])).toContain('BROKEN');
    expect(
      await deliver(h, delivery(statusChanged({ id }, 'HEALTHY', 'FLAKY', new Date(t0.getTime() - 1)))),
    ).toBe('stale');
    expect(feedPosts(PAY)).toHaveLength(2);
  });

  it('reads the legacy v1 payload (test_case.status_changed) too', async () => {
    const legacy = {
      type: 'test_case.status_changed',
      status_change: { previous_status: 'healthy', current_status: { value: 'flaky' } },
      test_case: {
        id: 't-legacy-1',
        name: 'legacy test',
        file_path: 'src/legacy.test.ts',
        codeowners: ['@acme/payments'],
        html_url: 'https://app.trunk.io/acme/flaky-tests/test/t-legacy-1',
        repository: { html_url: 'https://github.com/acme/widgets' },
      },
    };
    expect(await deliver(h, delivery(legacy))).toBe('applied');
    const text = textOf(feedPosts(PAY).at(-1));
    expect(text).toContain('legacy test is flaky');
    expect(text).toMatch(/healthy.*→.*flaky/);
  });

  it('shows an unknown status as sent, and ignores what it cannot read', async () => {
    await deliver(h, delivery(statusChanged({ id: 't-odd-1' }, 'FLAKY', 'Quarantined-ish')));
    expect(textOf(feedPosts(PAY).at(-1))).toContain('Quarantined-ish');
    expect(await deliver(h, delivery({ type: 'v2.test_case.status_changed', nonsense: true } as never))).toBe(
      'ignored',
    );
    expect(await deliver(h, delivery({ type: 'test_case.something_new' }))).toBe('ignored');
  });
});

describe('buttons', () => {
  it('Quarantine by an operator: Trunk gets the override, the thread says who, the message redraws', async () => {
    const msg = await postedTest('t-q-1');
    const click = await h.clickButton({ message: msg, actionId: 'mq_test_quarantine', user: USERS.admin });
    expect(click.status).toBe(200);
    const announced = await h.slack.waitFor(() => thread(PAY, msg.ts)[0]);
    expect(textOf(announced)).toContain(`<@${USERS.admin}> quarantined this test`);
    const w = writes('t-q-1');
    expect(w).toHaveLength(1);
    expect(w[0]!.body).toEqual({ mode: 'alwaysQuarantine', reason: 'from Slack by @ada' });
    const sent = h.trunkCalls('tests.setQuarantineOverride')[0]!;
    expect(v2RequestErrors('POST', sent.path)).toEqual([]);
    expect(v2RequestBodyErrors('POST', sent.path, JSON.parse(sent.rawBody ?? ''))).toEqual([]);
    const updated = await h.slack.waitFor(() => {
      const m = h.slack.message(PAY, msg.ts);
      return m && m.history.length > 0 ? m : undefined;
    });
    expect(findAction(updated.blocks, 'mq_test_unquarantine')).toBeDefined();
    expect(textOf(updated)).toContain('quarantined this test from Slack');
    const audit = await h.app!.store.listAudit(TEAM, { target: 't-q-1' });
    expect(audit.map((a) => [a.action, a.outcome])).toContainEqual(['tests.quarantine', 'ok']);
    // Stop quarantining clears the override.
    await h.clickButton({ message: updated, actionId: 'mq_test_unquarantine', user: USERS.admin });
    await h.slack.waitFor(() => thread(PAY, msg.ts)[1]);
    expect(writes('t-q-1').map((x) => x.body['mode'])).toEqual(['alwaysQuarantine', 'clear']);
    expect(textOf(thread(PAY, msg.ts)[1])).toContain('stopped quarantining');
  });

  it('a double click quarantines once', async () => {
    const msg = await postedTest('t-q-2');
    await Promise.all([
      h.clickButton({ message: msg, actionId: 'mq_test_quarantine', user: USERS.admin }),
      h.clickButton({ message: msg, actionId: 'mq_test_quarantine', user: USERS.admin }),
    ]);
    await h.idle();
    expect(writes('t-q-2')).toHaveLength(1);
    expect(thread(PAY, msg.ts)).toHaveLength(1);
  });

  it('a key without the permission: Trunk’s 403 names "Quarantine tests", nothing changes', async () => {
    const msg = await postedTest('t-q-3');
    h.trunk.v2.setKeys({ [V2_KEY]: [] });
    const click = await h.clickButton({ message: msg, actionId: 'mq_test_quarantine', user: USERS.admin });
    const answer = textOf(await h.reply(click.responseUrl));
    expect(answer).toContain('“Quarantine tests” permission');
    expect(answer).toContain('Nothing was changed');
    expect(h.trunkCalls('tests.setQuarantineOverride').map((r) => r.status)).toEqual([403]);
    expect(h.slack.message(PAY, msg.ts)!.history).toHaveLength(0);
    expect(thread(PAY, msg.ts)).toHaveLength(0);
  });

  it('refuses a person who is neither an operator nor of the owning team; the owning team may', async () => {
    const msg = await postedTest('t-q-4');
    const refused = await h.clickButton({ message: msg, actionId: 'mq_test_quarantine', user: USERS.member });
    const answer = textOf(await h.reply(refused.responseUrl));
    expect(answer).toContain("You can't quarantine this test");
    expect(answer).toContain('digest owners');
    const guest = await h.clickButton({ message: msg, actionId: 'mq_test_quarantine', user: GUEST.id });
    expect(textOf(await h.reply(guest.responseUrl))).toContain('guests do not act on tests');
    expect(h.trunkCalls('tests.setQuarantineOverride')).toHaveLength(0);
    await h.clickButton({ message: msg, actionId: 'mq_test_quarantine', user: PAYER.id });
    await h.slack.waitFor(() => thread(PAY, msg.ts)[0]);
    expect(writes('t-q-4')).toHaveLength(1);
    expect(writes('t-q-4')[0]!.body['reason']).toBe('from Slack by @paula');
  });

  it('Link a ticket: the form refuses what is not a ticket, links a key, and says why Trunk refused', async () => {
    const msg = await postedTest('t-ticket-1');
    await h.clickButton({
      message: msg,
      actionId: 'mq_test_ticket',
      user: PAYER.id,
      triggerId: 'trig-ticket-1',
    });
    const view = await h.slack.waitFor(() => h.slack.views.find((v) => v.triggerId === 'trig-ticket-1'));
    assertValidModal(view.view);
    const bad = await h.submitView({
      view,
      user: PAYER.id,
      values: { ticket: { ref: { type: 'plain_text_input', value: 'not a ticket!' } } },
    });
    expect(bad.json?.['response_action']).toBe('errors');
    expect(writes('t-ticket-1')).toHaveLength(0);
    await h.submitView({
      view,
      user: PAYER.id,
      values: { ticket: { ref: { type: 'plain_text_input', value: 'pay-123' } } },
    });
    const announced = await h.slack.waitFor(() => thread(PAY, msg.ts)[0]);
    expect(textOf(announced)).toContain(
      `<@${PAYER.id}> linked ticket <https://acme.atlassian.net/browse/PAY-123|PAY-123>`,
    );
    expect(writes('t-ticket-1')[0]!.body).toEqual({ externalTicketId: 'PAY-123' });
    // Trunk's refusals, in words.
    h.trunk.v2.tests.ticketing = 'not_configured';
    await h.submitView({
      view,
      user: PAYER.id,
      values: { ticket: { ref: { type: 'plain_text_input', value: 'PAY-124' } } },
    });
    const told = await h.slack.waitFor(() => h.slack.ephemerals.find((e) => e.user === PAYER.id));
    expect(textOf(told)).toContain('no ticketing integration');
    h.trunk.v2.tests.ticketing = 'ok';
    await h.submitView({
      view,
      user: PAYER.id,
      values: { ticket: { ref: { type: 'plain_text_input', value: 'NOPE-1' } } },
    });
    const missing = await h.slack.waitFor(() => h.slack.ephemerals.filter((e) => e.user === PAYER.id)[1]);
    expect(textOf(missing)).toContain('has no ticket');
    // Someone outside the team cannot open the form.
    const outsider = await h.clickButton({ message: msg, actionId: 'mq_test_ticket', user: USERS.member });
    expect(textOf(await h.reply(outsider.responseUrl))).toContain("You can't link a ticket");
  });
});

describe('investigations and monitors', () => {
  it('Trunk’s summary goes in the thread of the status message, in a markdown block within limits', async () => {
    const msg = await postedTest('t-inv-1');
    const long = `## What happened\n\nThe test waits on a real clock. @here\n\n${'A line of evidence.\n'.repeat(1_200)}`;
    expect(await deliver(h, delivery(investigationCompleted({ id: 't-inv-1' }, long)))).toBe('applied');
    const reply = thread(PAY, msg.ts)[0]!;
    assertValidMessage(reply.blocks);
    const markdown = (reply.blocks as Array<{ type: string; text?: string }>).find(
      (b) => b.type === 'markdown',
    )!;
    expect(markdown.text!.length).toBeLessThanOrEqual(12_000);
    expect(markdown.text).toContain('## What happened');
    expect(markdown.text).toContain(
      'the rest is in [Trunk](https://app.trunk.io/acme/flaky-tests/test/t-inv-1',
    );
    expect(markdown.text).not.toMatch(/@here\b/);
  });

  it('without a status message, the summary is a new message; a monitor change only threads', async () => {
    expect(await deliver(h, delivery(monitorChanged({ id: 't-inv-2' }, 'active')))).toBe('ignored');
    await deliver(h, delivery(investigationCompleted({ id: 't-inv-2' }, 'Short **summary**.')));
    const top = h.slack
      .channelMessages(PAY)
      .filter((m) => !m.threadTs)
      .at(-1)!;
    expect(textOf(top)).toContain('Trunk finished investigating');
    assertValidMessage(top.blocks);
    const msg = await postedTest('t-inv-3');
    await deliver(h, delivery(monitorChanged({ id: 't-inv-3' }, 'resolved')));
    expect(textOf(thread(PAY, msg.ts)[0])).toContain('pass_on_retry');
  });
});

describe('with a webhook signing secret', () => {
  let configured: Harness;
  beforeAll(async () => {
    configured = await startHarness({
      env: { TRUNK_WEBHOOK_SECRET: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
    });
  });
  afterAll(async () => configured?.close());

  it('tests watch does not ask for one', async () => {
    const sent = await configured.sendCommand('tests watch acme/widgets', { user: USERS.admin });
    const text = textOf(await configured.reply(sent.responseUrl));
    expect(text).toContain('This channel will hear');
    expect(text).not.toContain('no webhook signing secret');
  });
});

describe('owners typed without @, in any case', () => {
  it('a feed of `ACME/Payments-Two` hears `@acme/payments-two`, and its digest owners may act', async () => {
    const channel = 'C0NOAT0001';
    expect(await command('tests watch owner ACME/Payments-Two acme/widgets', { channel })).toContain(
      'This channel will hear',
    );
    expect(
      await command(`digest owners acme/payments-two <!subteam^${PAY_GROUP}|@payments>`, { channel }),
    ).toContain('payments-two');
    const id = 't-noat-1';
    h.trunk.v2.tests.set({ id, name: 'no at test', failureRate: 0.2, codeowners: ['@acme/payments-two'] });
    const payload = statusChanged(
      { id, name: 'no at test', codeowners: ['@acme/payments-two'] },
      'HEALTHY',
      'FLAKY',
    );
    expect(await deliver(h, delivery(payload))).toBe('applied');
    const msg = feedPosts(channel).find((m) => textOf(m).includes('no at test'));
    expect(msg).toBeDefined();
    expect(JSON.stringify(msg!.blocks)).toContain(PAY_GROUP);
    await h.clickButton({ message: msg!, actionId: 'mq_test_quarantine', user: PAYER.id });
    await h.slack.waitFor(() => thread(channel, msg!.ts)[0]);
    expect(writes(id)).toHaveLength(1);
  });
});

describe('Block Kit limits', () => {
  it('a very long test name and many owners still show the status and the owners, within limits', async () => {
    const id = 't-long-1';
    const name = `checkout ${'é'.repeat(4000)} charges card`;
    const codeowners = Array.from({ length: 60 }, (_, i) => `@acme/payments-squad-number-${i}`);
    codeowners.unshift('@acme/payments');
    const payload = statusChanged({ id, name, codeowners }, 'HEALTHY', 'BROKEN');
    expect(await deliver(h, delivery(payload))).toBe('applied');
    const msg = feedPosts(PAY).find((m) => JSON.stringify(m.blocks).includes(id));
    expect(msg).toBeDefined();
    assertValidMessage(msg!.blocks);
    const section = (msg!.blocks as Array<{ type: string; text?: { text: string } }>)[1]!.text!.text;
    expect(section).toContain('*Status:*');
    expect(section).toContain('*Owners:* `@acme/payments`');
  });
});
