// Types for blockkit.js (plain JS served to the browser as-is; these let the TypeScript tests import it).

export interface RenderOptions {
  /** Namespaces data-path values (e.g. "m12:"). */
  prefix?: string;
  /** block_id → submission error message (modals). */
  errors?: Record<string, string>;
  /** user id → display name, for <@U…> mentions. */
  users?: Record<string, string>;
  channels?: Record<string, string>;
  /** IANA zone for <!date^…>; default: the viewer's own. */
  timeZone?: string;
  /** "now" in epoch ms, for Today/Yesterday and {ago}. */
  now?: number;
}

export function escapeHtml(s: unknown): string;
export function formatSlackDate(
  unixSeconds: number,
  format: string,
  opts?: Pick<RenderOptions, 'timeZone' | 'now'>,
): string | undefined;
export function mrkdwn(text: string, opts?: RenderOptions): string;
export function textObject(t: unknown, opts?: RenderOptions): string;
export function elementHtml(el: unknown, path: string, opts?: RenderOptions): string;
export function canvasHtml(md: string): string;
export function renderBlocks(blocks: readonly unknown[] | undefined, opts?: RenderOptions): string;
export function elementAt(
  blocks: readonly unknown[] | undefined,
  path: string,
): { block: Record<string, unknown>; element: Record<string, unknown> } | undefined;
