/** Which of the fake Slack's messages a test counts: the app's own posts, or a queue feed's. */
import type { FakeMessage, SlackFake } from '../../dev/fakes/slack/server.ts';
import { textOf } from './block-kit-reading.ts';

type Messages = Pick<SlackFake, 'channelMessages'>;

/** What the app posted in `channel` as its bot (the Web API), not answers through a response_url. */
export function botPosts(slack: Messages, channel: string): FakeMessage[] {
  return slack.channelMessages(channel).filter((m) => m.via === 'api');
}

/** What a queue feed posted in `channel`: the `watch` command's own announcement of a feed change is not counted. */
export function feedPosts(slack: Messages, channel: string): FakeMessage[] {
  return slack
    .channelMessages(channel)
    .filter((m) => !/started a feed of|this channel's feed of/.test(textOf(m)));
}
