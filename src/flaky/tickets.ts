/** What a person may type as a ticket to link to a test: a key (`PAY-123`) or an http(s) link, as Trunk takes it. */

/** Trunk's `externalTicketId` limit. */
export const MAX_TICKET_REF = 2048;

export type TicketRef = { ok: true; ref: string } | { ok: false; error: string };

export function readTicketRef(raw: unknown): TicketRef {
  const text = typeof raw === 'string' ? raw.trim() : '';
  if (!text) return { ok: false, error: 'Type a ticket key such as PAY-123, or paste the ticket’s link.' };
  if (text.length > MAX_TICKET_REF)
    return {
      ok: false,
      error: `That is ${text.length} characters; a ticket key or link has at most ${MAX_TICKET_REF}.`,
    };
  if (/^[A-Za-z][A-Za-z0-9_]*-\d+$/.test(text)) return { ok: true, ref: text.toUpperCase() };
  if (/^#?\d+$/.test(text)) return { ok: true, ref: text.replace(/^#/, '') };
  try {
    const url = new URL(text);
    if ((url.protocol === 'https:' || url.protocol === 'http:') && !/\s/.test(text))
      return { ok: true, ref: text };
  } catch {
    // not a link: said below
  }
  return {
    ok: false,
    error: `\`${text.slice(0, 60)}\` is neither a ticket key (like PAY-123) nor a link (https://…). Type one of those.`,
  };
}
