/**
 * Opening the settings and connect modals. A trigger_id lives 3 s, so the settings modal opens at once
 * with a short "reading…" view and is filled in (views.update) when Trunk answers. private_metadata
 * carries the channel the command came from, beside the form's own metadata.
 */
import type { ModalView } from '@slack/types';
import type { WebClient } from '@slack/web-api';
import { formatQueueRef, type QueueRef } from '../core/target.ts';
import { readQueue } from '../queue/operations.ts';
import { isTrunkError } from '../trunk/errors.ts';
import { buildConnectModal } from './blocks/connect.ts';
import { trunkHint } from './blocks/errors.ts';
import { buildSettingsModal } from './blocks/settings.ts';
import type { SlackDeps } from './deps.ts';
import { openModal, updateModal } from './reply.ts';
import type { WorkspaceTrunk } from './workspace.ts';

/** What we wrap around a modal's own private_metadata. */
export interface ModalMetadata {
  /** Channel to announce in / answer in. */
  c: string;
  /** The modal builder's own metadata. */
  m?: string;
  /** Opened from the Home tab: the submission publishes the Home again. */
  h?: 1;
}

export function wrapMetadata(
  channelId: string,
  inner: string | undefined,
  o: { home?: boolean } = {},
): string {
  const meta: ModalMetadata = { c: channelId };
  if (inner) meta.m = inner;
  if (o.home) meta.h = 1;
  return JSON.stringify(meta);
}

export function unwrapMetadata(raw: unknown): ModalMetadata | undefined {
  if (typeof raw !== 'string' || raw.length > 3000) return undefined;
  try {
    const d = JSON.parse(raw) as Partial<ModalMetadata> | null;
    if (!d || typeof d.c !== 'string' || !/^[A-Z0-9]{1,40}$/.test(d.c)) return undefined;
    if (d.m !== undefined && typeof d.m !== 'string') return undefined;
    const meta: ModalMetadata = { c: d.c };
    if (d.m !== undefined) meta.m = d.m;
    if (d.h === 1) meta.h = 1;
    return meta;
  } catch {
    return undefined;
  }
}

export function messageModal(title: string, text: string): ModalView {
  return {
    type: 'modal',
    title: { type: 'plain_text', text: title.slice(0, 24) },
    close: { type: 'plain_text', text: 'Close' },
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text: text.slice(0, 3000) } }],
  };
}

/**
 * Opens the settings modal for a queue: a placeholder first (the trigger expires), then the form with
 * the queue's current values, or what went wrong.
 */
export async function openSettingsModal(
  deps: SlackDeps,
  client: WebClient,
  triggerId: string,
  channelId: string,
  ref: QueueRef,
  trunk: WorkspaceTrunk,
): Promise<'ok' | 'failed'> {
  const opened = await openModal(
    deps,
    client,
    triggerId,
    messageModal('Queue settings', `Reading the settings of *${formatQueueRef(ref)}* from Trunk…`),
    'the settings modal',
  );
  const viewId = opened.ok ? opened.viewId : undefined;
  if (!viewId) return 'failed';
  let view: ModalView;
  let outcome: 'ok' | 'failed' = 'ok';
  try {
    const queue = await readQueue({ trunk: trunk.api }, ref);
    const form = buildSettingsModal({ ref, queue });
    view = { ...form, private_metadata: wrapMetadata(channelId, form.private_metadata) };
  } catch (err) {
    view = messageModal(
      'Queue settings',
      isTrunkError(err)
        ? `:warning: ${err.userMessage} ${trunkHint(err)}`
        : ':warning: The settings could not be read.',
    );
    outcome = 'failed';
  }
  if (!(await updateModal(deps, client, viewId, view, 'the settings modal'))) return 'failed';
  return outcome;
}

export async function openConnectModal(
  deps: SlackDeps,
  client: WebClient,
  triggerId: string,
  channelId: string,
  workspaceId: string,
  o: { home?: boolean } = {},
): Promise<'ok' | 'failed'> {
  const form = buildConnectModal(await deps.services.workspace.connectionOf(workspaceId));
  const opened = await openModal(
    deps,
    client,
    triggerId,
    { ...form, private_metadata: wrapMetadata(channelId, form.private_metadata, o) },
    'the connect modal',
  );
  return opened.ok ? 'ok' : 'failed';
}
