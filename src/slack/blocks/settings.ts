/**
 * The settings modal: one input per updateQueue field other than state, prefilled from the queue, and the
 * parser of its submission. Only the fields a person changed (against what the modal showed) are returned,
 * so a concurrent change by someone else to another field is not reverted.
 */
import type { Checkboxes, InputBlock, KnownBlock, ModalView, PlainTextOption } from '@slack/types';
import { formatQueueRef, parseTarget, type QueueRef } from '../../core/target.ts';
import type { SettingsChanges } from '../../queue/operations.ts';
import {
  DIRECT_MERGE_MODES,
  MERGE_METHODS,
  OPTIMIZATION_MODES,
  QUEUE_BOOL_SETTINGS,
  QUEUE_INT_MAX,
  QUEUE_INT_MIN,
  QUEUE_INT_SETTINGS,
  QUEUE_MODES,
  type Queue,
  type QueueBoolSetting,
  type QueueIntSetting,
} from '../../trunk/types.ts';
import { queueLabel, trim } from './format.ts';
import { CALLBACKS } from './ids.ts';
import { context, plain } from './kit.ts';

/** The shape of `view.state.values` in a view_submission (structurally Bolt's). */
export type SubmissionValues = Record<
  string,
  Record<
    string,
    {
      type: string;
      value?: string | null;
      selected_option?: { value: string } | null;
      selected_options?: Array<{ value: string }>;
    }
  >
>;

/** Each input's action id; block ids are the field names. */
export const INPUT_ACTION = 'v';

const INT_LABEL: Record<QueueIntSetting, string> = {
  concurrency: 'Concurrency (PRs or batches tested at once)',
  bisectionConcurrency: 'Bisection concurrency',
  testingTimeoutMinutes: 'Testing timeout (minutes)',
  pendingFailureDepth: 'Pending-failure depth',
  batchingMaxWaitTimeMinutes: 'Batching: max wait (minutes)',
  batchingMinSize: 'Batching: min batch size',
};

const BOOL_LABEL: Record<QueueBoolSetting, string> = {
  canOptimisticallyMerge: 'Optimistic merge',
  batch: 'Batching',
  createPrsForTestingBranches: 'Create PRs for testing branches',
  commentsEnabled: 'Comment on PRs',
  commandsEnabled: 'Accept merge commands in PR comments',
  statusCheckEnabled: 'Post a status check on PRs',
};

const SELECTS = {
  mode: { label: 'Mode', values: QUEUE_MODES },
  optimizationMode: { label: 'Optimization', values: OPTIMIZATION_MODES },
  directMergeMode: { label: 'Direct merge', values: DIRECT_MERGE_MODES },
  mergeMethod: { label: 'Merge method', values: MERGE_METHODS },
} as const;
type SelectField = keyof typeof SELECTS;

const FLAGS_BLOCK = 'flags';
const REQUIRED_BLOCK = 'requiredStatuses';
const DELETE_BLOCK = 'deleteRequiredStatuses';

export interface SettingsSnapshot {
  t: string;
  s: Record<string, string | number | boolean>;
  /** Hash of the required statuses shown. */
  r: string;
  /** Set when the list was too long to prefill: an empty box then means "unchanged". */
  n?: 1;
}

function option(value: string): PlainTextOption {
  return { text: plain(value.replaceAll('_', ' '), 75), value };
}

export function hashStatuses(list: readonly string[]): string {
  let h = 0x811c9dc5;
  for (const ch of list.join('\n')) {
    h ^= ch.codePointAt(0)!;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return `${list.length}:${h.toString(16)}`;
}

/** Comma- or newline-separated names; blanks and duplicates dropped, order kept. */
export function splitStatuses(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split(/[\n,]/)) {
    const s = raw.trim();
    if (s && !out.includes(s)) out.push(s);
  }
  return out;
}

export function buildSettingsModal(input: { ref: QueueRef; queue: Queue }): ModalView {
  const { ref, queue } = input;
  const snap: SettingsSnapshot = {
    t: formatQueueRef(ref),
    s: {},
    r: hashStatuses(queue.requiredStatuses ?? []),
  };
  const blocks: KnownBlock[] = [
    context(`Settings of *${queueLabel(ref)}*. Only what you change is sent to Trunk.`),
  ];

  for (const [field, def] of Object.entries(SELECTS) as Array<[SelectField, (typeof SELECTS)[SelectField]]>) {
    const current = String(queue[field] ?? '').toLowerCase();
    const el: InputBlock['element'] = {
      type: 'static_select',
      action_id: INPUT_ACTION,
      options: def.values.map(option),
    };
    if ((def.values as readonly string[]).includes(current)) {
      el.initial_option = option(current);
      snap.s[field] = current;
    }
    const block: InputBlock = {
      type: 'input',
      block_id: field,
      label: plain(def.label, 200),
      element: el,
      optional: true,
    };
    if (!snap.s[field] && current)
      block.hint = plain(`Trunk reports "${trim(current, 80)}", which this app does not know.`, 200);
    blocks.push(block);
  }

  for (const field of QUEUE_INT_SETTINGS) {
    const n = queue[field];
    const el: InputBlock['element'] = {
      type: 'number_input',
      action_id: INPUT_ACTION,
      is_decimal_allowed: false,
      min_value: String(QUEUE_INT_MIN),
      max_value: String(QUEUE_INT_MAX),
    };
    if (Number.isInteger(n) && n >= QUEUE_INT_MIN && n <= QUEUE_INT_MAX) {
      el.initial_value = String(n);
      snap.s[field] = n;
    }
    const block: InputBlock = {
      type: 'input',
      block_id: field,
      label: plain(INT_LABEL[field], 200),
      element: el,
      optional: true,
    };
    if (snap.s[field] === undefined) block.hint = plain('Off (0) now; leave empty to keep it off.', 200);
    blocks.push(block);
  }

  const flagOptions = QUEUE_BOOL_SETTINGS.map((f) => ({ text: plain(BOOL_LABEL[f], 75), value: f }));
  const flags: Checkboxes = { type: 'checkboxes', action_id: INPUT_ACTION, options: flagOptions };
  const on = flagOptions.filter((o) => queue[o.value as QueueBoolSetting] === true);
  if (on.length > 0) flags.initial_options = on;
  for (const f of QUEUE_BOOL_SETTINGS) snap.s[f] = queue[f] === true;
  blocks.push({
    type: 'input',
    block_id: FLAGS_BLOCK,
    label: plain('Switches', 100),
    element: flags,
    optional: true,
  });

  const required = queue.requiredStatuses ?? [];
  const text: InputBlock['element'] = {
    type: 'plain_text_input',
    action_id: INPUT_ACTION,
    multiline: true,
    max_length: 3000,
    placeholder: plain('ci/build, ci/test — one per line or comma-separated', 150),
  };
  const initialText = required.join('\n');
  if (initialText && initialText.length <= 3000) text.initial_value = initialText;
  else if (initialText) snap.n = 1;
  blocks.push({
    type: 'input',
    block_id: REQUIRED_BLOCK,
    label: plain('Required statuses', 100),
    element: text,
    optional: true,
    hint: plain('A list here overrides branch protection and the repo config file.', 200),
  });
  blocks.push({
    type: 'input',
    block_id: DELETE_BLOCK,
    label: plain('Manual required statuses', 100),
    element: {
      type: 'checkboxes',
      action_id: INPUT_ACTION,
      options: [
        {
          text: plain('Remove the manual list (use branch protection or the repo config again)', 75),
          value: 'delete',
        },
      ],
    },
    optional: true,
  });

  return {
    type: 'modal',
    callback_id: CALLBACKS.settings,
    title: plain('Queue settings', 24),
    submit: plain('Save', 24),
    close: plain('Cancel', 24),
    private_metadata: JSON.stringify(snap),
    blocks,
  };
}

export type SettingsSubmission =
  | { ok: true; ref: QueueRef; changes: SettingsChanges }
  | { ok: false; errors: Record<string, string> };

/** Reads the target and the snapshot the modal was opened with; undefined when tampered or malformed. */
export function parseSettingsMetadata(
  pm: unknown,
): { ref: QueueRef; snapshot: SettingsSnapshot } | undefined {
  if (typeof pm !== 'string' || pm.length > 3000) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(pm);
  } catch {
    return undefined;
  }
  const d = data as Partial<SettingsSnapshot> | null;
  if (!d || typeof d.t !== 'string' || typeof d.s !== 'object' || d.s === null || typeof d.r !== 'string')
    return undefined;
  const t = parseTarget(d.t);
  if (!t.ok || !t.value.repo || t.value.branch === undefined) return undefined;
  return { ref: { repo: t.value.repo, branch: t.value.branch }, snapshot: d as SettingsSnapshot };
}

export function parseSettingsSubmission(
  values: SubmissionValues,
  privateMetadata: unknown,
): SettingsSubmission {
  const meta = parseSettingsMetadata(privateMetadata);
  if (!meta)
    return {
      ok: false,
      errors: { mode: 'This form could not be read. Close it and run `/mergequeue settings` again.' },
    };
  const { snapshot } = meta;
  const errors: Record<string, string> = {};
  const changes: Record<string, unknown> = {};
  const get = (block: string) => values?.[block]?.[INPUT_ACTION];

  for (const field of Object.keys(SELECTS) as SelectField[]) {
    const v = get(field)?.selected_option?.value;
    if (v === undefined || v === null) continue;
    if (!(SELECTS[field].values as readonly string[]).includes(v))
      errors[field] = `Choose one of: ${SELECTS[field].values.join(', ')}.`;
    else if (snapshot.s[field] !== v) changes[field] = v;
  }

  for (const field of QUEUE_INT_SETTINGS) {
    const raw = get(field)?.value?.trim();
    if (!raw) continue;
    const n = /^\d{1,10}$/.test(raw) ? Number(raw) : Number.NaN;
    if (!Number.isInteger(n) || n < QUEUE_INT_MIN || n > QUEUE_INT_MAX) {
      errors[field] = `Enter a whole number from ${QUEUE_INT_MIN} to ${QUEUE_INT_MAX}.`;
      continue;
    }
    if (snapshot.s[field] !== n) changes[field] = n;
  }

  const flags = get(FLAGS_BLOCK);
  if (flags) {
    const checked = new Set((flags.selected_options ?? []).map((o) => o.value));
    for (const f of QUEUE_BOOL_SETTINGS) {
      const v = checked.has(f);
      if (snapshot.s[f] !== v) changes[f] = v;
    }
  }

  const del = (get(DELETE_BLOCK)?.selected_options ?? []).some((o) => o.value === 'delete');
  const text = get(REQUIRED_BLOCK)?.value ?? '';
  const list = splitStatuses(text);
  const bad = list.find((s) => s.length > 255);
  if (bad !== undefined) errors[REQUIRED_BLOCK] = 'Each status name can be at most 255 characters.';
  else if (list.length > 100) errors[REQUIRED_BLOCK] = 'List at most 100 statuses.';
  else if (del) {
    if (list.length > 0 && hashStatuses(list) !== snapshot.r)
      errors[DELETE_BLOCK] = 'Either edit the list or remove it, not both: untick this or undo your edit.';
    else changes.deleteRequiredStatuses = true;
  } else if (hashStatuses(list) !== snapshot.r && !(list.length === 0 && snapshot.n === 1)) {
    if (list.length === 0)
      errors[REQUIRED_BLOCK] =
        'To stop using a manual list, tick "Remove the manual list" below instead of emptying it.';
    else changes.requiredStatuses = list;
  }

  if (Object.keys(errors).length > 0) return { ok: false, errors };
  return { ok: true, ref: meta.ref, changes: changes as SettingsChanges };
}
