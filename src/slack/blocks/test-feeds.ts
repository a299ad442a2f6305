/**
 * The flaky-test feeds in Slack: a test's status message (previous → new status, owners mentioned as
 * `digest owners` maps them, failure rate, Quarantine / Stop quarantining / Link a ticket / Open in Trunk),
 * Trunk's investigation summary in a `markdown` block, the answers of `tests watch|unwatch|list`, of the
 * buttons and of the ticket form, and the announcements. Pure: plain data in, Block Kit out.
 */
import type { KnownBlock, MarkdownBlock, ModalView } from '@slack/types';
import type { OutgoingMessage } from '../../core/notifier.ts';
import type { QuarantineMode, TestCard, TestWatch } from '../../flaky/types.ts';
import type { SlackReply } from '../reply.ts';
import { code, esc, escTrim, LIMITS, link, mention, percent, safeUrl, slackDate, trim } from './format.ts';
import { actions, button, context, header, plain, section } from './kit.ts';

export const TEST_ACTIONS = {
  quarantine: 'mq_test_quarantine',
  unquarantine: 'mq_test_unquarantine',
  ticket: 'mq_test_ticket',
  open: 'mq_test_open',
} as const;

export const TEST_TICKET_CALLBACK = 'mq_test_ticket_form';
export const TEST_TICKET_INPUT = { block: 'ticket', action: 'ref' } as const;

/** Slack's limit on the text of every `markdown` block of one message, together. */
export const MARKDOWN_LIMIT = 12_000;

/** What a test button carries: the test's id (who owns it and what the message showed are read from the store). */
export function encodeTestButton(testId: string): string {
  return JSON.stringify({ t: testId });
}

export function parseTestButton(raw: unknown): { testId: string } | undefined {
  if (typeof raw !== 'string' || raw.length > LIMITS.buttonValue) return undefined;
  try {
    const v = JSON.parse(raw) as { t?: unknown } | null;
    return typeof v?.t === 'string' && /^[A-Za-z0-9_.:-]{1,200}$/.test(v.t) ? { testId: v.t } : undefined;
  } catch {
    return undefined;
  }
}

const KNOWN: Record<string, { emoji: string; words: string }> = {
  BROKEN: { emoji: ':red_circle:', words: 'is broken' },
  FLAKY: { emoji: ':large_orange_circle:', words: 'is flaky' },
  HEALTHY: { emoji: ':large_green_circle:', words: 'recovered' },
};

const upper = (s: string | undefined) => (s ?? '').trim().toUpperCase();

function testName(card: Pick<TestCard, 'test'>): string {
  return card.test.name || card.test.classname || card.test.filePath || card.test.id;
}

/** Where the test's page is: the payload's link, else the Trunk app. */
function testUrl(card: Pick<TestCard, 'test'>, appUrl: string): string | undefined {
  return safeUrl(card.test.htmlUrl) ?? safeUrl(appUrl);
}

const SLACK_MENTION = /^(<@[UW][A-Z0-9]{1,30}>|<!subteam\^S[A-Z0-9]{1,30}>)$/;

/** `@acme/payments (<!subteam^S1>)`: each code owner, with whom `digest owners` maps it to. */
export function ownersLine(card: Pick<TestCard, 'test' | 'mentions'>): string {
  if (card.test.codeowners.length === 0) return 'no code owner';
  return card.test.codeowners
    .slice(0, 10)
    .map((o) => {
      const who = (card.mentions[o.toLowerCase()] ?? []).filter((m) => SLACK_MENTION.test(m)).slice(0, 10);
      return who.length > 0 ? `${code(o, 100)} (${who.join(' ')})` : code(o, 100);
    })
    .join(', ');
}

function quarantinedNow(card: TestCard): boolean {
  return card.override ? card.override.mode === 'alwaysQuarantine' : card.test.quarantined === true;
}

export function renderTestStatus(card: TestCard, links: { appUrl: string }): OutgoingMessage & SlackReply {
  const now = upper(card.newStatus);
  const known = KNOWN[now];
  const name = testName(card);
  const title = known
    ? `${known.emoji} ${name} ${known.words}`
    : `:grey_question: ${name}: status ${card.newStatus}`;
  const url = testUrl(card, links.appUrl);
  const where = [
    card.test.filePath ? code(card.test.filePath, 300) : '',
    card.test.classname ? esc(trim(card.test.classname, 200)) : '',
    card.repo ? esc(trim(card.repo, 200)) : '',
  ].filter(Boolean);
  const was = card.previousStatus ? `${code(card.previousStatus, 40)} → ` : '';
  const lines = [
    // Bounded, so a very long name cannot push the status and the owners out of the section.
    `*${link(url, trim(name, 300))}*${where.length ? `\n${where.join(' · ')}` : ''}`,
    `*Status:* ${was}${code(card.newStatus, 40)}${card.failureRate !== undefined ? ` · *failure rate (7 days):* ${percent(card.failureRate)}` : ''}`,
    `*Owners:* ${ownersLine(card)}`,
  ];
  const notes: string[] = [];
  if (card.override)
    notes.push(
      `${mention(card.override.by)} ${card.override.mode === 'alwaysQuarantine' ? 'quarantined this test' : 'stopped quarantining this test'} from Slack, ${slackDate(card.override.at)}.`,
    );
  else if (card.test.quarantined) notes.push('Quarantined in Trunk.');
  if (card.ticket)
    notes.push(`Ticket ${link(card.ticket.url, card.ticket.key)} linked by ${mention(card.ticket.by)}.`);
  const buttons = [];
  const value = encodeTestButton(card.test.id);
  if (card.v2) {
    buttons.push(
      quarantinedNow(card)
        ? button('Stop quarantining', TEST_ACTIONS.unquarantine, { value })
        : button('Quarantine', TEST_ACTIONS.quarantine, {
            value,
            style: 'danger',
            confirm: {
              title: 'Quarantine this test?',
              text: 'Its failures will no longer fail CI, for every branch, until someone stops quarantining it.',
              confirm: 'Quarantine',
            },
          }),
      button('Link a ticket', TEST_ACTIONS.ticket, { value }),
    );
  }
  if (url) buttons.push(button('Open in Trunk', TEST_ACTIONS.open, { url }));
  const blocks: KnownBlock[] = [
    header(title),
    section(lines.join('\n')),
    ...(notes.length ? [context(...notes)] : []),
    context(`Status changed ${slackDate(card.at)} · flaky-test feed (\`/mergequeue tests list\`)`),
    ...(buttons.length ? [actions(buttons)] : []),
  ];
  const text = `${name}: ${card.previousStatus ? `${card.previousStatus} → ` : ''}${card.newStatus}`;
  return { text: escTrim(text, LIMITS.fallbackText), blocks };
}

/** Markdown as Slack's markdown block shows it, unable to notify anyone (`@here`, `<!channel>`, `<@U…>`). */
function quiet(markdown: string): string {
  return markdown.replace(/<(!|@|#)/g, '<\u2060$1').replace(/@(here|channel|everyone)\b/gi, '@\u2060$1');
}

/** Cuts Markdown to `max` characters at a paragraph or line end, never inside a code fence left open. */
export function cutMarkdown(markdown: string, max: number): { text: string; cut: boolean } {
  if (markdown.length <= max) return { text: markdown, cut: false };
  let text = markdown.slice(0, max);
  const para = text.lastIndexOf('\n\n');
  const line = text.lastIndexOf('\n');
  if (para > max * 0.6) text = text.slice(0, para);
  else if (line > max * 0.6) text = text.slice(0, line);
  // An odd number of ``` fences means one is still open: close it so the rest does not render as code.
  if ((text.match(/```/g) ?? []).length % 2 === 1) text += '\n```';
  return { text: text.trimEnd(), cut: true };
}

export function renderInvestigation(
  card: Pick<TestCard, 'test' | 'repo'>,
  summary: string,
  links: { appUrl: string },
  threaded: boolean,
): OutgoingMessage & SlackReply {
  const name = testName(card);
  const url = testUrl(card, links.appUrl);
  const more = url ? `\n\n…the rest is in [Trunk](${url}).` : '\n\n…(cut to fit Slack).';
  const { text, cut } = cutMarkdown(quiet(summary), MARKDOWN_LIMIT - more.length);
  const markdown: MarkdownBlock = { type: 'markdown', text: cut ? `${text}${more}` : text };
  const intro = threaded
    ? `:mag: Trunk finished investigating this test.`
    : `:mag: Trunk finished investigating *${link(url, name)}*${card.repo ? ` (${esc(card.repo)})` : ''}.`;
  return {
    text: escTrim(`Trunk's investigation of ${name}`, LIMITS.fallbackText),
    blocks: [section(intro), markdown],
  };
}

export function renderMonitor(
  card: Pick<TestCard, 'test'>,
  monitor: { type?: string; status?: string },
): OutgoingMessage & SlackReply {
  const what = monitor.type ? `Monitor ${code(monitor.type, 80)}` : 'A monitor';
  const status = monitor.status ? code(monitor.status, 40) : 'changed';
  const text = `${what} is now ${status} for ${escTrim(testName(card), 500)}.`;
  return { text, blocks: [context(`:satellite_antenna: ${text}`)] };
}

// ---- tests watch | unwatch | list

/** A test feed on the Home's list of watches. */
export function testWatchLine(w: Pick<TestWatch, 'repo' | 'owner'>): string {
  return `flaky tests: ${describeWatch(w)}`;
}

function describeWatch(w: Pick<TestWatch, 'repo' | 'owner'>): string {
  return `tests of ${w.repo ? `*${esc(w.repo)}*` : 'every repository'} owned by ${w.owner ? code(w.owner, 100) : 'anyone'}`;
}

/** `lines` and `hint` are mrkdwn already (escaped where they carry people's words). */
function ephemeral(lines: string[], hint?: string): SlackReply {
  return {
    text: trim(lines.join(' '), LIMITS.fallbackText),
    blocks: [section(lines.join('\n')), ...(hint ? [context(hint)] : [])],
    response_type: 'ephemeral',
  };
}

/** How to have Trunk send its flaky-test webhooks to the app (no signing secret is set yet). */
export function webhookSetupLines(workspaceId: string): string[] {
  return [
    ':warning: Trunk cannot reach this app yet: no webhook signing secret is set, so nothing will be posted until one is.',
    `In Trunk, *Settings → Organization → Webhooks*, add an endpoint \`https://&lt;this app's address&gt;/trunk/webhooks/${esc(workspaceId)}\` subscribed to \`v2.test_case.status_changed\`, \`test_case.monitor_status_changed\` and \`test_case.investigation_completed\`; then give the app its signing secret (\`whsec_…\`) with \`/mergequeue connect\`, or in \`TRUNK_WEBHOOK_SECRET\` when it serves one workspace. Trunk's *Send Example* checks it.`,
  ];
}

export function renderTestWatching(
  a: { watch: TestWatch; created: boolean; webhookSecret: boolean },
  workspaceId: string,
): SlackReply {
  const lines = [
    a.created
      ? `:eyes: This channel will hear when ${describeWatch(a.watch)} become flaky or broken, or recover.`
      : `This channel already hears about ${describeWatch(a.watch)}.`,
    ...(a.webhookSecret ? [] : webhookSetupLines(workspaceId)),
  ];
  return ephemeral(
    lines,
    '`/mergequeue tests list` shows every test feed you can see; `/mergequeue tests unwatch` ends one.',
  );
}

export function renderTestWatchAnnouncement(
  change: { kind: 'started' | 'ended'; watches: TestWatch[] },
  userId: string,
): SlackReply {
  const what = change.watches.map(describeWatch).join('; ');
  const text =
    change.kind === 'started'
      ? `${mention(userId)} started a flaky-test feed here: ${what}. Owners' status changes, investigations and recoveries will be posted in this channel.`
      : `${mention(userId)} ended this channel's flaky-test feed of ${what}.`;
  return {
    text: trim(text, LIMITS.fallbackText),
    blocks: [section(`:test_tube: ${text}`)],
    response_type: 'in_channel',
  };
}

export function renderTestWatchList(here: TestWatch[], elsewhere: TestWatch[]): SlackReply {
  const lines: string[] = [];
  lines.push(
    here.length > 0
      ? `*This channel* hears about:\n${here.map((w) => `• ${describeWatch(w)}`).join('\n')}`
      : 'This channel has no flaky-test feed. `/mergequeue tests watch [owner @org/team] [owner/repo]` starts one.',
  );
  if (elsewhere.length > 0)
    lines.push(
      `*Other channels you can see:*\n${elsewhere
        .slice(0, 40)
        .map((w) => `• <#${w.channelId}>: ${describeWatch(w)}`)
        .join('\n')}${elsewhere.length > 40 ? `\n…and ${elsewhere.length - 40} more` : ''}`,
    );
  return {
    text: trim(lines.join('\n'), LIMITS.fallbackText),
    blocks: lines.map((l) => section(l)),
    response_type: 'ephemeral',
  };
}

export function renderTestUnwatched(a: {
  removed: TestWatch[];
  watches: TestWatch[];
  repo?: string;
}): SlackReply {
  if (a.removed.length > 0)
    return ephemeral([
      `Done: this channel no longer hears about ${a.removed.map(describeWatch).join('; ')}.`,
    ]);
  const what = a.repo ? ` of *${esc(a.repo)}*` : '';
  return ephemeral(
    [`This channel has no flaky-test feed${what}, so nothing was changed.`],
    a.watches.length > 0
      ? `It has: ${a.watches.map(describeWatch).join('; ')}. \`/mergequeue tests unwatch owner/repo\` ends one of them; \`tests unwatch\` ends all.`
      : '`/mergequeue tests watch` starts one.',
  );
}

export function renderTooManyTestWatches(max: number): SlackReply {
  return ephemeral(
    [`This channel has ${max} flaky-test feeds already, the most it may have. Nothing was changed.`],
    '`/mergequeue tests list` shows them; `/mergequeue tests unwatch owner/repo` ends one.',
  );
}

// ---- buttons and the ticket form

const WHAT: Record<'quarantine' | 'unquarantine' | 'ticket', string> = {
  quarantine: 'quarantine this test',
  unquarantine: 'stop quarantining this test',
  ticket: 'link a ticket to this test',
};

export function renderTestRefused(action: keyof typeof WHAT, because: string): SlackReply {
  return ephemeral([`You can't ${WHAT[action]}: ${escTrim(because, 1500)}.`], 'Nothing was changed.');
}

export function renderUnknownTestMessage(): SlackReply {
  return ephemeral(
    [
      'The app no longer knows this message (it is older than the last one about this test here, or its feed was removed), so nothing was changed.',
    ],
    'Use the buttons on the newest message about the test, or open it in Trunk.',
  );
}

export function renderNoV2Key(action: keyof typeof WHAT): SlackReply {
  return ephemeral(
    [
      `To ${WHAT[action]} from Slack, this workspace needs a Trunk v2 API key${action === 'ticket' ? '' : ' with the “Quarantine tests” permission'}. Nothing was changed.`,
    ],
    'An operator adds one with `/mergequeue connect` (Trunk → Settings → Developer → API Keys).',
  );
}

export function renderMissingPermission(permission: string | undefined, detail?: string): SlackReply {
  const named = permission ? `the “${esc(permission)}” permission` : 'a permission this needs';
  return ephemeral(
    [
      `Trunk refused: this workspace's v2 API key lacks ${named}. Nothing was changed.`,
      ...(detail ? [`Trunk said: ${escTrim(detail, 500)}`] : []),
    ],
    `An org admin can give the key ${named} in Trunk → Settings → Developer → API Keys, or store a key that has it with \`/mergequeue connect\`.`,
  );
}

export function renderOverrideUnchanged(mode: QuarantineMode): SlackReply {
  return ephemeral([
    mode === 'alwaysQuarantine'
      ? 'This test is quarantined already (or that click is being handled): nothing more was done.'
      : 'This test is not quarantined from Slack any more (or that click is being handled): nothing more was done.',
  ]);
}

/** Posted in the status message's thread: the app announces its own overrides (Trunk sends no webhook for them). */
export function renderOverrideAnnouncement(
  mode: QuarantineMode,
  userId: string,
  testName: string,
): SlackReply {
  const text =
    mode === 'alwaysQuarantine'
      ? `${mention(userId)} quarantined this test (${escTrim(testName, 300)}): its failures no longer fail CI.`
      : `${mention(userId)} stopped quarantining this test (${escTrim(testName, 300)}): its failures fail CI again.`;
  return { text, blocks: [section(`:shield: ${text}`)], response_type: 'in_channel' };
}

export function renderTicketAnnouncement(ticket: { key: string; url?: string }, userId: string): SlackReply {
  const text = `${mention(userId)} linked ticket ${link(ticket.url, ticket.key)} to this test.`;
  return { text, blocks: [section(`:ticket: ${text}`)], response_type: 'in_channel' };
}

/** A ticket link Trunk refused (409, 422, 502, 504), in words. */
export function renderTicketRefused(
  r: { status: number; code?: string; detail?: string },
  ref: string,
): SlackReply {
  const t = code(ref, 100);
  let what: string;
  let hint: string;
  if (r.status === 409 && r.code === 'TICKETING_NOT_CONFIGURED') {
    what = "Trunk has no ticketing integration for this test's collection, so it cannot link tickets.";
    hint = 'An org admin connects Jira, Linear or Asana in Trunk (Settings → Integrations), then try again.';
  } else if (r.status === 409 && r.code === 'TICKETING_CREDENTIALS_INVALID') {
    what = "Trunk's ticketing integration no longer has working credentials.";
    hint = 'An org admin reconnects it in Trunk (Settings → Integrations), then try again.';
  } else if (r.status === 409) {
    what = `Trunk could not link ${t}: it conflicts with how this test's ticket is linked now${r.code ? ` (${code(r.code, 60)})` : ''}.`;
    hint = 'Open the test in Trunk to see its ticket.';
  } else if (r.status === 422) {
    what = `The ticketing provider has no ticket ${t}.`;
    hint = 'Check the key or paste the ticket’s link, and try again.';
  } else if (r.status === 502) {
    what = 'The ticketing provider failed while Trunk was linking the ticket.';
    hint = 'Try again in a minute.';
  } else {
    what = 'The ticketing provider took too long to answer Trunk; the link may still have been made.';
    hint = 'Linking the same ticket again is safe: it changes nothing if it is linked already.';
  }
  return ephemeral([`${what} Nothing was changed here.`], hint);
}

export function buildTicketModal(privateMetadata: string, testName: string): ModalView {
  return {
    type: 'modal',
    callback_id: TEST_TICKET_CALLBACK,
    private_metadata: privateMetadata,
    title: plain('Link a ticket', 24),
    submit: plain('Link', 24),
    close: plain('Cancel', 24),
    blocks: [
      section(
        `Link a ticket to *${escTrim(testName, 500)}* in Trunk. Linking replaces the test's ticket, if it has one.`,
      ),
      {
        type: 'input',
        block_id: TEST_TICKET_INPUT.block,
        label: plain('Ticket key or link', 2000),
        hint: plain('For example PAY-123, or https://acme.atlassian.net/browse/PAY-123', 2000),
        element: {
          type: 'plain_text_input',
          action_id: TEST_TICKET_INPUT.action,
          max_length: 2048,
          placeholder: plain('PAY-123', 150),
        },
      },
    ],
  };
}
