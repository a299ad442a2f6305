/**
 * The freeze renderers and the Pause/Drain reason modal as pure functions: every FreezeEvent kind becomes a
 * valid Block Kit announcement that says what happened, lists and status lines stay within Slack's limits,
 * and the modal's metadata round-trips and rejects what this app did not produce.
 */
import { describe, expect, it } from 'vitest';
import { makeQueue } from '../../../dev/fakes/trunk/index.ts';
import type { QueueRef } from '../../../src/core/target.ts';
import type { FreezeEvent, FreezeWindow, WindowView } from '../../../src/freeze/index.ts';
import {
  freezeStatusLine,
  renderFreezeEvent,
  renderFreezeHelp,
  renderSkip,
  renderWindowAdded,
  renderWindowList,
  renderWindowRemoved,
} from '../../../src/slack/blocks/freeze.ts';
import { buildReasonModal, parseReasonSubmission } from '../../../src/slack/blocks/reason-modal.ts';
import { renderStatus } from '../../../src/slack/blocks/status.ts';
import { assertValidModal, assertValidReply } from '../../helpers/block-kit.ts';
import { textOf } from '../../helpers/block-kit-reading.ts';

const ref: QueueRef = { repo: { host: 'github.com', owner: 'acme', name: 'web' }, branch: 'main' };
const at = Date.parse('2026-06-01T10:00:00Z');
const occurrence = { start: Date.parse('2026-06-01T11:00:00Z'), end: Date.parse('2026-06-01T12:00:00Z') };
const unix = (ms: number) => `<!date^${ms / 1000}^`;

function win(over: Partial<FreezeWindow> = {}): FreezeWindow {
  return {
    id: 'fabc12',
    workspaceId: 'T1',
    channelId: 'C1',
    createdBy: 'U1',
    createdAt: at,
    target: ref,
    startMinute: 12 * 60,
    endMinute: 13 * 60,
    tz: 'Europe/London',
    rule: { kind: 'repeat', days: 'weekdays' },
    action: 'drain',
    reason: 'Release <cut> & ship',
    ...over,
  };
}

const base = { window: win(), occurrence, channelId: 'C1', workspaceId: 'T1' };
const EVENTS: Array<[FreezeEvent, RegExp]> = [
  [
    { ...base, kind: 'started', state: 'draining', late: false },
    /started: .*is draining — Release &lt;cut&gt; &amp; ship/,
  ],
  [{ ...base, kind: 'started', state: 'paused', late: true, joined: 'fzzz99' }, /Applied late/],
  [{ ...base, kind: 'already_frozen', found: 'paused' }, /already paused for another reason/],
  [
    { ...base, kind: 'start_retrying', attempt: 1, nextAttemptAt: at + 5000, error: 'Trunk did not answer.' },
    /could not drain .*Retrying until the window closes/,
  ],
  [
    { ...base, kind: 'start_failed', attempts: 7, error: 'Trunk did not answer.' },
    /never managed to drain .*7 attempts/,
  ],
  [{ ...base, kind: 'ended', resumed: true, late: false }, /ended: .*running again/],
  [{ ...base, kind: 'ended', resumed: false, keptFrozenBy: ['fzzz99'] }, /stays frozen for `fzzz99`/],
  [
    {
      ...base,
      kind: 'not_resumed',
      found: 'paused',
      expected: 'draining',
      changedBy: 'U9',
      changedAt: at,
      reason: 'x',
    },
    /was not resumed: it was paused by <@U9>/,
  ],
  [
    { ...base, kind: 'not_resumed', found: 'running', reason: 'resumed by someone else during the window' },
    /not resumed: resumed by someone else during the window/,
  ],
  [
    { ...base, kind: 'end_retrying', attempt: 1, nextAttemptAt: at, error: 'Trunk said no.' },
    /resuming .* failed: Trunk said no\. Retrying/,
  ],
  [
    { ...base, kind: 'end_failed', attempts: 10, error: 'Trunk said no.' },
    /could not resume .*after 10 attempts.*\/mergequeue resume acme\/web:main/,
  ],
  [
    { ...base, kind: 'creator_not_operator', because: 'listed operators only' },
    /did not drain .*no longer an operator.*\/mergequeue freeze remove fabc12/,
  ],
];

describe('freeze announcements', () => {
  it.each(EVENTS.map(([e, re]) => [e.kind, e, re] as const))(
    '%s is a valid message saying what happened',
    (_k, e, re) => {
      const reply = renderFreezeEvent(e);
      assertValidReply(reply);
      expect(reply.response_type).toBe('in_channel');
      expect(textOf(reply)).toMatch(re);
      expect(textOf(reply)).toContain('`fabc12`');
      // Notification text has no raw date tokens.
      expect(reply.text).not.toContain('<!date');
    },
  );
});

describe('freeze replies', () => {
  const next: WindowView = { window: win(), current: { occurrence, active: false } };
  it('added, list, removed, skip and help are valid and show Slack dates', () => {
    const added = renderWindowAdded(next, 'U1');
    assertValidReply(added);
    expect(textOf(added)).toContain(unix(occurrence.start));
    const many = Array.from({ length: 60 }, (_, i) => ({
      ...next,
      window: win({ id: `f${String(i).padStart(5, '0')}` }),
    }));
    const list = renderWindowList(many, at);
    assertValidReply(list);
    expect(textOf(list)).toContain('and 20 more');
    assertValidReply(renderWindowList([], at));
    assertValidReply(renderWindowRemoved({ window: win(), current: { occurrence, active: true } }, 'U1'));
    assertValidReply(renderFreezeHelp());
    const skipped = renderSkip(
      { outcome: 'skipped', window: win({ skipStartAt: occurrence.start }), skipped: occurrence },
      'U1',
      'fabc12',
    );
    assertValidReply(skipped);
    expect(textOf(skipped)).toContain('will not open again');
    expect(textOf(renderSkip({ outcome: 'not_found' }, 'U1', 'fzzzzz'))).toContain('no freeze window');
  });

  it('the status message carries the open or next window', () => {
    const open = freezeStatusLine({ window: win(), current: { occurrence, active: true } });
    expect(open).toContain(`is on (drain) until ${unix(occurrence.end)}`);
    const status = renderStatus({
      ref,
      queue: makeQueue({ state: 'draining' }),
      renderedAt: at,
      freeze: { window: win(), current: { occurrence, active: false } },
    });
    assertValidReply(status);
    expect(textOf(status)).toContain(`Next freeze window \`fabc12\` (drain): ${unix(occurrence.start)}`);
  });
});

describe('the Pause/Drain reason modal', () => {
  const value = { ref, state: 'running', concurrency: 2, renderedAt: at };
  it('is a valid modal naming the queue, and its submission round-trips the click', () => {
    const view = buildReasonModal({
      action: 'drain',
      value,
      channelId: 'C1',
      messageTs: '1700000000.000100',
      ephemeral: false,
    });
    assertValidModal(view);
    expect(textOf(view)).toContain('acme/web:main');
    const sub = parseReasonSubmission(
      { reason: { v: { type: 'plain_text_input', value: '  cut  ' } } },
      view.private_metadata,
    );
    expect(sub).toEqual({
      ok: true,
      reason: 'cut',
      click: { action: 'drain', value, channelId: 'C1', messageTs: '1700000000.000100', ephemeral: false },
    });
  });

  it('rejects metadata it did not produce and over-long reasons, with a message for the form', () => {
    const values = { reason: { v: { type: 'plain_text_input', value: null } } };
    for (const meta of [
      '',
      'null',
      '{"a":"resume"}',
      JSON.stringify({ a: 'pause', b: '{}', c: 'C1' }),
      JSON.stringify({
        a: 'pause',
        b: buildReasonModal({ action: 'pause', value, channelId: 'C1', ephemeral: false }).private_metadata,
        c: 'bad channel',
      }),
    ]) {
      const r = parseReasonSubmission(values, meta);
      expect(r.ok).toBe(false);
    }
    const view = buildReasonModal({ action: 'pause', value, channelId: 'C1', ephemeral: true });
    const long = parseReasonSubmission(
      { reason: { v: { type: 'plain_text_input', value: 'x'.repeat(501) } } },
      view.private_metadata,
    );
    expect(long).toMatchObject({ ok: false, errors: { reason: expect.stringContaining('500') } });
  });
});
