/**
 * `config autopilot …` (issue 29): `config autopilot` (what is set), `config autopilot on|off [target]`,
 * `config autopilot requeue <class…> [target]`. Without a target a change is the workspace's. Pure, never
 * throwing; the service checks the class names (so the refusal names what may be chosen).
 */
import { parseTarget, type TargetSpec } from '../../core/target.ts';

export type AutopilotCommand =
  | { kind: 'autopilot'; op: 'show' }
  | { kind: 'autopilot'; op: 'on' | 'off'; target?: TargetSpec }
  | { kind: 'autopilot'; op: 'requeue'; classes: string[]; target?: TargetSpec };

export const AUTOPILOT_USAGE =
  'config autopilot · config autopilot on|off [owner/repo[:branch]] · config autopilot requeue <flaky|infra|conflict|upstream|timeout|failure…> [owner/repo[:branch]]';

export type AutopilotParsed = { ok: true; value: AutopilotCommand } | { ok: false; error: string };

const looksLikeTarget = (w: string) => w.startsWith(':') || w.includes('/');

export function parseConfigAutopilot(args: readonly string[]): AutopilotParsed {
  const [op, ...rest] = args;
  const verb = op?.toLowerCase();
  if (verb === undefined || verb === 'show') {
    if (rest.length > 0) return { ok: false, error: '`config autopilot` takes no more words to show it.' };
    return { ok: true, value: { kind: 'autopilot', op: 'show' } };
  }
  const targets = rest.filter(looksLikeTarget);
  const words = rest.filter((w) => !looksLikeTarget(w));
  if (targets.length > 1) return { ok: false, error: 'Name at most one queue.' };
  let target: TargetSpec | undefined;
  if (targets[0]) {
    const t = parseTarget(targets[0]);
    if (!t.ok) return { ok: false, error: t.error };
    target = t.value;
  }
  const withTarget = target ? { target } : {};
  if (verb === 'on' || verb === 'off') {
    if (words.length > 0)
      return {
        ok: false,
        error: `\`config autopilot ${verb}\` takes only a queue: \`/mergequeue config autopilot ${verb} acme/web:main\` (none: the workspace).`,
      };
    return { ok: true, value: { kind: 'autopilot', op: verb, ...withTarget } };
  }
  if (verb === 'requeue') {
    if (words.length === 0)
      return {
        ok: false,
        error: 'Name the kick classes to re-submit: `/mergequeue config autopilot requeue flaky infra`.',
      };
    if (words.length > 9) return { ok: false, error: 'At most nine kick classes.' };
    return { ok: true, value: { kind: 'autopilot', op: 'requeue', classes: words, ...withTarget } };
  }
  return {
    ok: false,
    error: `\`${op!.slice(0, 40)}\` is not an autopilot setting: use on, off or requeue (or nothing, to see what is set).`,
  };
}
