/**
 * canvases.* and conversations.canvases.create: canvases in the fake, with the argument checks Slack
 * documents. A channel has at most one channel canvas (a second answers `channel_canvas_already_exists`);
 * `document_content` must be `{ "type": "markdown", "markdown": "…" }` (at most 1 MiB); `canvases.edit`
 * takes exactly one change with a known operation, and `replace` without a section replaces the
 * whole document. Each write is kept, so a test reads what the canvas said and when.
 */
import { channelFor, err, jsonField, type Method, nextId, type SlackState, str } from './state.ts';
import type { FakeCanvas } from './types.ts';

const MAX_MARKDOWN = 1_048_576;
const OPERATIONS = new Set([
  'insert_after',
  'insert_before',
  'insert_at_start',
  'insert_at_end',
  'replace',
  'delete',
]);
const ACCESS_LEVELS = new Set(['read', 'write', 'owner']);

/** The markdown of a `document_content` argument, or the error Slack answers. */
function documentContent(v: unknown): { markdown: string } | { error: string } {
  const doc = jsonField(v);
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) return { error: 'invalid_arguments' };
  const d = doc as Record<string, unknown>;
  if (d['type'] !== 'markdown') return { error: 'invalid_arguments' };
  if (typeof d['markdown'] !== 'string') return { error: 'invalid_arguments' };
  if (d['markdown'].length > MAX_MARKDOWN) return { error: 'canvas_creation_failed' };
  return { markdown: d['markdown'] };
}

function idList(v: unknown): string[] | undefined {
  const parsed = jsonField(v);
  if (Array.isArray(parsed)) return parsed.filter((x): x is string => typeof x === 'string');
  if (typeof parsed === 'string' && parsed) return parsed.split(',');
  return undefined;
}

export function canvasMethods(s: SlackState): Record<string, Method> {
  const create = (args: Record<string, unknown>, channelCanvas: boolean) => {
    const channelId = str(args['channel_id']);
    if (channelCanvas && !channelId) return err('invalid_arguments', { detail: 'channel_id is required' });
    let markdown = '';
    if (args['document_content'] !== undefined) {
      const doc = documentContent(args['document_content']);
      if ('error' in doc) return err(doc.error);
      markdown = doc.markdown;
    }
    if (channelId) {
      const c = channelFor(s, channelId);
      if (c.gone) return err('channel_not_found');
      if (
        channelCanvas &&
        (c.hasCanvas || s.canvases.some((x) => x.channelCanvas && x.channelId === channelId))
      )
        return err('channel_canvas_already_exists');
    }
    const canvas: FakeCanvas = {
      id: nextId(s, 'F'),
      ...(channelId ? { channelId } : {}),
      channelCanvas,
      ...(str(args['title']) ? { title: str(args['title']) } : {}),
      markdown,
      edits: [],
      access: channelId ? [{ channelId, level: 'write' }] : [],
      createdAt: s.now(),
    };
    s.canvases.push(canvas);
    return { body: { ok: true, canvas_id: canvas.id } };
  };
  const find = (args: Record<string, unknown>) => {
    const id = str(args['canvas_id']);
    return id ? s.canvases.find((c) => c.id === id && !c.deleted) : undefined;
  };
  return {
    'conversations.canvases.create': (args) => create(args, true),
    'canvases.create': (args) => create(args, false),
    'canvases.edit': (args) => {
      const canvas = find(args);
      if (!canvas) return err('canvas_not_found');
      const changes = jsonField(args['changes']);
      // Slack takes exactly one change a call.
      if (!Array.isArray(changes) || changes.length !== 1)
        return err('invalid_arguments', { detail: 'changes must hold exactly one change' });
      let markdown = canvas.markdown;
      for (const raw of changes) {
        const ch = raw as Record<string, unknown>;
        const op = ch?.['operation'];
        if (typeof op !== 'string' || !OPERATIONS.has(op))
          return err('invalid_arguments', { detail: `unknown operation ${String(op)}` });
        if (op === 'delete') {
          if (!ch['section_id']) return err('invalid_arguments', { detail: 'delete needs a section_id' });
          continue;
        }
        const doc = documentContent(ch['document_content']);
        if ('error' in doc) return err('canvas_editing_failed');
        if (op === 'replace' && !ch['section_id']) markdown = doc.markdown;
        else if (op === 'insert_at_start') markdown = `${doc.markdown}\n${markdown}`;
        else markdown = `${markdown}\n${doc.markdown}`;
      }
      canvas.edits.push({ markdown: canvas.markdown, at: s.now() });
      canvas.markdown = markdown;
      return { body: { ok: true } };
    },
    'canvases.access.set': (args) => {
      const canvas = find(args);
      if (!canvas) return err('canvas_not_found');
      const level = str(args['access_level']);
      if (!level || !ACCESS_LEVELS.has(level)) return err('invalid_arguments', { detail: 'access_level' });
      const channels = idList(args['channel_ids']);
      const users = idList(args['user_ids']);
      if (!channels?.length && !users?.length)
        return err('invalid_arguments', { detail: 'channel_ids or user_ids is required' });
      if (channels?.length && users?.length)
        return err('invalid_arguments', { detail: 'channel_ids and user_ids cannot both be set' });
      if (level === 'owner' && channels?.length) return err('invalid_arguments');
      for (const channelId of channels ?? []) canvas.access.push({ channelId, level });
      for (const userId of users ?? []) canvas.access.push({ userId, level });
      return { body: { ok: true } };
    },
    'canvases.delete': (args) => {
      const canvas = find(args);
      if (!canvas) return err('canvas_not_found');
      canvas.deleted = true;
      return { body: { ok: true } };
    },
  };
}
