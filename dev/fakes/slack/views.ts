/** views.* Web API methods: modals opened (trigger ids expire), updated and pushed; Home tabs published. */
import { err, jsonField, type Method, nextId, type SlackState, str } from './state.ts';
import type { FakeView } from './types.ts';

export function viewMethods(s: SlackState): Record<string, Method> {
  // views.push opens a view on top of the current one: to the fake, the same as views.open.
  const open: Method = (args) => {
    const triggerId = str(args['trigger_id']);
    if (!triggerId) return err('invalid_arguments');
    if (triggerId.startsWith('expired')) return err('expired_trigger_id');
    const view = jsonField(args['view']);
    if (!view || typeof view !== 'object') return err('invalid_arguments');
    const v: FakeView = { id: nextId(s, 'V'), triggerId, view: view as Record<string, unknown>, at: s.now() };
    s.views.push(v);
    return { body: { ok: true, view: { ...v.view, id: v.id, hash: `h${s.seq}` } } };
  };
  return {
    'views.open': open,
    'views.update': (args) => {
      const viewId = str(args['view_id']);
      const view = jsonField(args['view']);
      const existing = s.views.find((v) => v.id === viewId);
      if (!existing) return err('not_found');
      if (!view || typeof view !== 'object') return err('invalid_arguments');
      existing.view = view as Record<string, unknown>;
      return { body: { ok: true, view: { ...existing.view, id: existing.id } } };
    },
    'views.push': open,
    // A Home tab per user: publishing again replaces it (the record keeps each publication, newest last).
    'views.publish': (args) => {
      const user = str(args['user_id']);
      const view = jsonField(args['view']);
      if (!user) return err('invalid_arguments');
      if (!view || typeof view !== 'object' || (view as { type?: unknown }).type !== 'home')
        return err('invalid_arguments');
      const v: FakeView = { id: nextId(s, 'V'), user, view: view as Record<string, unknown>, at: s.now() };
      s.views.push(v);
      return { body: { ok: true, view: { ...v.view, id: v.id, hash: `h${s.seq}` } } };
    },
  };
}
