/**
 * The fake Slack's canvases, through the real Web API client: the arguments Slack documents are checked
 * (document_content's shape, a non-empty list of known edit operations, access levels), a channel has one
 * channel canvas, and what each canvas said is kept.
 */
import { WebClient } from '@slack/web-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SlackFake, startSlackFake } from '../../../dev/fakes/slack/server.ts';

let slack: SlackFake;
let client: WebClient;
const md = (markdown: string) => ({ type: 'markdown' as const, markdown });
const code = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (e: { data?: { error?: string } }) => e.data?.error ?? 'thrown',
  );

beforeAll(async () => {
  slack = await startSlackFake({ channels: [{ id: 'C0HAS', hasCanvas: true }] });
  client = new WebClient('xoxb-canvas', { slackApiUrl: slack.url, retryConfig: { retries: 0 } });
});
afterAll(async () => slack?.close());

describe('canvases', () => {
  it('makes one channel canvas per channel, and edits it by replacing its document', async () => {
    const made = await client.conversations.canvases.create({
      channel_id: 'C0ONE',
      document_content: md('# A'),
    });
    expect(made.canvas_id).toMatch(/^F/);
    expect(await code(client.conversations.canvases.create({ channel_id: 'C0ONE' }))).toBe(
      'channel_canvas_already_exists',
    );
    expect(await code(client.conversations.canvases.create({ channel_id: 'C0HAS' }))).toBe(
      'channel_canvas_already_exists',
    );
    await client.canvases.edit({
      canvas_id: made.canvas_id!,
      changes: [{ operation: 'replace', document_content: md('# B') }],
    });
    const c = slack.canvases.find((x) => x.id === made.canvas_id)!;
    expect(c).toMatchObject({ channelId: 'C0ONE', channelCanvas: true, markdown: '# B' });
    expect(c.edits.map((e) => e.markdown)).toEqual(['# A']);
  });

  it('checks the arguments as Slack documents them', async () => {
    const { canvas_id } = await client.canvases.create({ title: 'T', document_content: md('x') });
    const id = canvas_id!;
    expect(
      await code(client.canvases.create({ document_content: { type: 'html', markdown: 'x' } as never })),
    ).toBe('invalid_arguments');
    expect(await code(client.canvases.edit({ canvas_id: id, changes: [] as never }))).toBe(
      'invalid_arguments',
    );
    expect(
      await code(
        client.canvases.edit({
          canvas_id: id,
          changes: [{ operation: 'frob' as never, document_content: md('y') }],
        }),
      ),
    ).toBe('invalid_arguments');
    expect(
      await code(
        client.canvases.edit({
          canvas_id: 'F0NOPE',
          changes: [{ operation: 'replace', document_content: md('y') }],
        }),
      ),
    ).toBe('canvas_not_found');
    expect(await code(client.canvases.access.set({ canvas_id: id, access_level: 'read' } as never))).toBe(
      'invalid_arguments',
    );
    await client.canvases.access.set({ canvas_id: id, access_level: 'read', channel_ids: ['C0TWO'] });
    expect(slack.canvases.find((x) => x.id === id)!.access).toEqual([{ channelId: 'C0TWO', level: 'read' }]);
  });
});
