import type { InputBlock } from '@slack/types';
import { describe, expect, it } from 'vitest';
import { makeQueue } from '../../../dev/fakes/trunk/index.ts';
import type { QueueRef } from '../../../src/core/target.ts';
import {
  buildConnectModal,
  CONNECT_BLOCKS,
  parseConnectSubmission,
} from '../../../src/slack/blocks/connect.ts';
import { CALLBACKS } from '../../../src/slack/blocks/ids.ts';
import {
  buildSettingsModal,
  INPUT_ACTION,
  parseSettingsSubmission,
  type SubmissionValues,
} from '../../../src/slack/blocks/settings.ts';
import {
  DIRECT_MERGE_MODES,
  MERGE_METHODS,
  OPTIMIZATION_MODES,
  QUEUE_BOOL_SETTINGS,
  QUEUE_INT_SETTINGS,
  QUEUE_MODES,
  type Queue,
} from '../../../src/trunk/types.ts';
import { assertValidModal } from '../../helpers/block-kit.ts';

const ref: QueueRef = { repo: { host: 'github.com', owner: 'acme', name: 'web' }, branch: 'main' };

/** What Slack would submit if the person changed nothing: each input's initial value. */
function untouched(view: ReturnType<typeof buildSettingsModal>): SubmissionValues {
  const values: SubmissionValues = {};
  for (const b of view.blocks as InputBlock[]) {
    if (b.type !== 'input') continue;
    const el = b.element as unknown as Record<string, unknown>;
    const v: SubmissionValues[string][string] = { type: String(el.type) };
    if (el.type === 'static_select') v.selected_option = (el.initial_option as { value: string }) ?? null;
    if (el.type === 'number_input' || el.type === 'plain_text_input')
      v.value = (el.initial_value as string) ?? null;
    if (el.type === 'checkboxes') v.selected_options = (el.initial_options as Array<{ value: string }>) ?? [];
    values[b.block_id!] = { [INPUT_ACTION]: v };
  }
  return values;
}

function set(
  values: SubmissionValues,
  block: string,
  patch: Partial<SubmissionValues[string][string]>,
): SubmissionValues {
  return { ...values, [block]: { [INPUT_ACTION]: { ...values[block]![INPUT_ACTION]!, ...patch } } };
}

const queue: Queue = makeQueue({
  state: 'running',
  mode: 'single',
  concurrency: 2,
  pendingFailureDepth: 0,
  batch: false,
  canOptimisticallyMerge: true,
  requiredStatuses: ['ci/build', 'ci/test'],
  mergeMethod: 'squash',
});

describe('settings modal', () => {
  const view = buildSettingsModal({ ref, queue });

  it('is valid and has an input for every updateQueue field but state', () => {
    assertValidModal(view);
    expect(view.callback_id).toBe(CALLBACKS.settings);
    const blockIds = (view.blocks as InputBlock[]).filter((b) => b.type === 'input').map((b) => b.block_id);
    for (const f of [
      ...QUEUE_INT_SETTINGS,
      'mode',
      'optimizationMode',
      'directMergeMode',
      'mergeMethod',
      'requiredStatuses',
      'deleteRequiredStatuses',
    ])
      expect(blockIds).toContain(f);
    const flags = (view.blocks as InputBlock[]).find((b) => b.block_id === 'flags')!;
    const values = (flags.element as { options: Array<{ value: string }> }).options.map((o) => o.value);
    expect(values).toEqual([...QUEUE_BOOL_SETTINGS]);
    const numbers = (view.blocks as InputBlock[]).filter(
      (b) => b.type === 'input' && b.element.type === 'number_input',
    );
    for (const n of numbers)
      expect(n.element).toMatchObject({ min_value: '1', max_value: '4294967295', is_decimal_allowed: false });
    expect(JSON.parse(view.private_metadata!).t).toBe('acme/web:main');
  });

  it('sends nothing when nothing changed', () => {
    expect(parseSettingsSubmission(untouched(view), view.private_metadata)).toEqual({
      ok: true,
      ref,
      changes: {},
    });
  });

  it('sends only the fields that changed', () => {
    let v = untouched(view);
    v = set(v, 'mode', { selected_option: { value: 'parallel' } });
    v = set(v, 'concurrency', { value: '5' });
    v = set(v, 'pendingFailureDepth', { value: '3' });
    const on = (v.flags!.v!.selected_options ?? []).filter((o) => o.value !== 'canOptimisticallyMerge');
    v = set(v, 'flags', { selected_options: [...on, { value: 'batch' }] }); // optimistic merge off, batch on
    v = set(v, 'requiredStatuses', { value: 'ci/build, ci/lint\nci/build\n\n' });
    const r = parseSettingsSubmission(v, view.private_metadata);
    expect(r).toEqual({
      ok: true,
      ref,
      changes: {
        mode: 'parallel',
        concurrency: 5,
        pendingFailureDepth: 3,
        batch: true,
        canOptimisticallyMerge: false,
        requiredStatuses: ['ci/build', 'ci/lint'],
      },
    });
  });

  it('removes the manual list only through the checkbox', () => {
    const del = set(untouched(view), 'deleteRequiredStatuses', { selected_options: [{ value: 'delete' }] });
    expect(parseSettingsSubmission(del, view.private_metadata)).toMatchObject({
      ok: true,
      changes: { deleteRequiredStatuses: true },
    });
    const emptied = set(untouched(view), 'requiredStatuses', { value: '' });
    expect(parseSettingsSubmission(emptied, view.private_metadata)).toMatchObject({
      ok: false,
      errors: { requiredStatuses: expect.stringContaining('Remove the manual list') },
    });
    const both = set(set(untouched(view), 'requiredStatuses', { value: 'x' }), 'deleteRequiredStatuses', {
      selected_options: [{ value: 'delete' }],
    });
    expect(parseSettingsSubmission(both, view.private_metadata)).toMatchObject({
      ok: false,
      errors: { deleteRequiredStatuses: expect.any(String) },
    });
  });

  it('reports bad numbers and enum values per block', () => {
    for (const bad of ['0', '4294967296', '-1', '1.5', 'abc', '99999999999']) {
      const r = parseSettingsSubmission(
        set(untouched(view), 'concurrency', { value: bad }),
        view.private_metadata,
      );
      expect(r).toEqual({ ok: false, errors: { concurrency: expect.stringContaining('1 to 4294967295') } });
    }
    const r = parseSettingsSubmission(
      set(untouched(view), 'mergeMethod', { selected_option: { value: 'yolo' } }),
      view.private_metadata,
    );
    expect(r).toMatchObject({ ok: false, errors: { mergeMethod: expect.any(String) } });
    expect(parseSettingsSubmission(untouched(view), 'garbage')).toMatchObject({ ok: false });
    expect(
      parseSettingsSubmission(untouched(view), JSON.stringify({ t: 'nope', s: {}, r: '' })),
    ).toMatchObject({ ok: false });
  });

  it('renders queues with unknown enums, zero settings and huge status lists', () => {
    const odd = makeQueue({
      concurrency: 0,
      requiredStatuses: Array.from({ length: 400 }, (_, i) => `s${i}-${'z'.repeat(20)}`),
    });
    (odd as { mode: string }).mode = 'QUANTUM';
    const v = buildSettingsModal({ ref, queue: odd });
    assertValidModal(v);
    // Unknown mode is not preselected; an untouched submit changes nothing.
    expect(parseSettingsSubmission(untouched(v), v.private_metadata)).toEqual({ ok: true, ref, changes: {} });
    for (const m of [QUEUE_MODES, OPTIMIZATION_MODES, DIRECT_MERGE_MODES, MERGE_METHODS])
      expect(m.length).toBeGreaterThan(1);
  });
});

describe('connect modal', () => {
  it('never prefills the token, and parses a valid submission', () => {
    const view = buildConnectModal({
      orgSlug: 'acme',
      defaultTarget: { repo: ref.repo, branch: 'main' },
      hasToken: true,
    });
    assertValidModal(view);
    expect(JSON.stringify(view)).not.toMatch(/initial_value":"[^"]*tok/);
    const token = (view.blocks as InputBlock[]).find((b) => b.block_id === CONNECT_BLOCKS.token)!;
    expect((token.element as { initial_value?: string }).initial_value).toBeUndefined();
    const values: SubmissionValues = {
      token: { v: { type: 'plain_text_input', value: ' trunk-token-123 ' } },
      orgSlug: { v: { type: 'plain_text_input', value: 'acme' } },
      defaultRepo: { v: { type: 'plain_text_input', value: 'acme/web:main' } },
    };
    expect(parseConnectSubmission(values)).toEqual({
      ok: true,
      input: { token: 'trunk-token-123', orgSlug: 'acme', defaultTarget: { repo: ref.repo, branch: 'main' } },
    });
    assertValidModal(buildConnectModal());
  });

  it('explains each bad field without echoing the token', () => {
    const r = parseConnectSubmission({
      token: { v: { type: 'plain_text_input', value: 'has space secret' } },
      orgSlug: { v: { type: 'plain_text_input', value: 'bad slug!' } },
      defaultRepo: { v: { type: 'plain_text_input', value: 'not a repo' } },
    });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(Object.keys(r.errors).sort()).toEqual(['defaultRepo', 'orgSlug', 'token']);
      expect(JSON.stringify(r.errors)).not.toContain('secret');
    }
    expect(parseConnectSubmission({})).toMatchObject({
      ok: false,
      errors: { token: expect.any(String), orgSlug: expect.any(String) },
    });
  });
});
