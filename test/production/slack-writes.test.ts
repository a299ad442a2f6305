/**
 * Every message the app posts, edits or publishes on its own initiative goes through the Slack outbox
 * (src/slack/outbox/): one pacer per channel, one 429 policy, one list of final errors; every answer to a
 * person's own action goes through the one reply (src/slack/reply.ts). This fails when a call of one of
 * Slack's write methods (`chat.postMessage/update/postEphemeral/unfurl/delete`,
 * `views.publish/open/update/push`, `functions.completeSuccess/Error`, or `apiCall` of one) appears in any
 * other file of src/. A new write on the app's own initiative is an outbox call; a new answer to a person a
 * reply call.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/processes.ts';

const ALLOWED: Record<string, string> = {
  // The one place for everything on the app's own initiative: feeds, live redraws, notes, alerts,
  // digests, freeze announcements, notices (DMs a person's action leads to), edits in place, and the
  // completion of a waiting workflow step.
  'src/slack/outbox/outbox.ts': 'the Slack outbox itself',
  // The one reply: respond, ephemeral, a channel post and the redraw of the clicked message, modals, the
  // Home, a private answer to a modal's submitter, unfurls.
  'src/slack/reply.ts': "the answer to a person's own action",
};

const WRITE_METHOD =
  '(?:chat\\.(?:postMessage|update|postEphemeral|unfurl|delete)|views\\.(?:publish|open|update|push)|functions\\.(?:completeSuccess|completeError))';
const WRITE_CALL = new RegExp(
  `\\b${WRITE_METHOD}\\s*\\(|\\.${WRITE_METHOD}\\b|apiCall\\(\\s*['"\`]${WRITE_METHOD}['"\`]`,
);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** The code of a file without its comments (a comment may name a method without calling it). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

const callSites = sourceFiles(join(ROOT, 'src')).flatMap((file) => {
  const path = relative(ROOT, file).split('\\').join('/');
  return code(readFileSync(file, 'utf8'))
    .split('\n')
    .filter((line) => WRITE_CALL.test(line))
    .map((line) => ({ path, line: line.trim() }));
});

describe('Slack writes', () => {
  it('are made only by the outbox and by the answers to a person’s own action', () => {
    const outside = callSites.filter((c) => !(c.path in ALLOWED)).map((c) => `${c.path}: ${c.line}`);
    expect(outside).toEqual([]);
  });

  it('the allowed list names only files that still make such a call', () => {
    const making = new Set(callSites.map((c) => c.path));
    expect(Object.keys(ALLOWED).filter((path) => !making.has(path))).toEqual([]);
  });
});
