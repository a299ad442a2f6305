/**
 * Every message the app posts, edits or publishes on its own initiative goes through the Slack outbox
 * (src/slack/outbox/): one pacer per channel, one 429 policy, one list of final errors. This fails when a
 * `chat.postMessage`, `chat.update`, `chat.postEphemeral` or `views.publish` call (or `apiCall` of one)
 * appears in any other file of src/ than those below, each an answer to a person's own action (or its
 * announcement), which the person expects at once and which the outbox's pacing would only delay. A new write on the app's own initiative
 * is a `Notifier.post`/`SlackOutbox` call instead; a new answer to a person belongs in one of these files.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/processes.ts';

const ALLOWED: Record<string, string> = {
  // The one place for everything on the app's own initiative: feeds, live redraws, notes, alerts,
  // digests, freeze announcements, notices (DMs a person's action leads to), edits in place.
  'src/slack/outbox/outbox.ts': 'the Slack outbox itself',
  // postToChannel and updateMessage: a command's or a click's answer in its channel, and the redraw of the
  // message the person clicked.
  'src/slack/interaction.ts': "the answer to a person's command or click",
  // publishHome: the person's own Home tab, when they open it or act in it.
  'src/slack/home.ts': 'the Home tab of the person who opened it or clicked in it',
  // tell(): what only the clicker of a PR button needs to know, as an ephemeral message.
  'src/slack/listeners/pr-change-answer.ts': 'an ephemeral answer to the clicker',
  // tellPrivately(): a modal's answer to its submitter, ephemeral (its DM fallback goes through the outbox).
  'src/slack/listeners/tell-privately.ts': "an ephemeral answer to a modal's submitter",
  // inThread(): what a person just did to a flaky test (quarantined it, linked a ticket), said in the thread
  // of the message they clicked, like a queue change's announcement in its channel.
  'src/slack/listeners/test-answer.ts': "the announcement of a person's click on a test's message",
};

const WRITE_CALL =
  /\b(?:chat\.(?:postMessage|update|postEphemeral)|views\.publish)\s*\(|apiCall\(\s*['"`](?:chat\.(?:postMessage|update|postEphemeral)|views\.publish)['"`]/;

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
