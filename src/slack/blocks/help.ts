/** `/mergequeue help [topic]`: every command with an example, or one command in more detail. */
import { COMMAND_NAMES, type CommandName } from '../grammars/grammar.ts';
import { USAGE } from '../grammars/usage.ts';
import type { SlackReply } from '../reply.ts';
import { escTrim } from './format.ts';
import { context, header, section } from './kit.ts';

const ABOUT: Record<CommandName, { what: string; examples: string[] }> = {
  help: { what: 'This help, or help on one command.', examples: ['/mergequeue help pause'] },
  status: {
    what: "The queue's state and settings, the PRs waiting, and buttons to pause, drain, resume or change concurrency. Posted in a channel the app is in, the message keeps itself current (live · updated HH:MM) for a few hours, however the queue changes, Trunk's web app included.",
    examples: ['/mergequeue status', '/mergequeue status acme/web:main'],
  },
  pause: {
    what: 'Stops the queue: nothing is tested or merged until it is resumed. The reason is announced in the channel.',
    examples: ['/mergequeue pause main is broken, fixing', '/mergequeue pause acme/web:release flaky infra'],
  },
  drain: {
    what: 'Lets PRs already testing finish, and starts no new ones.',
    examples: ['/mergequeue drain before the release cut'],
  },
  resume: {
    what: 'Runs the queue again after a pause or drain.',
    examples: ['/mergequeue resume', '/mergequeue resume :main fixed'],
  },
  concurrency: {
    what: 'How many PRs (or batches) the queue tests at once.',
    examples: ['/mergequeue concurrency 4', '/mergequeue concurrency 2 acme/web:main'],
  },
  settings: {
    what: 'A form for every other queue setting: mode, batching, timeouts, merge method, required statuses…',
    examples: ['/mergequeue settings acme/web:main'],
  },
  pr: {
    what: "One PR's place in the queue, and in plain words why it is or is not testing.",
    examples: ['/mergequeue pr 1234', '/mergequeue pr #1234 acme/web:main'],
  },
  submit: {
    what: 'Puts a PR in the queue, with a priority and without batching if you like. Its author (once an operator has confirmed their GitHub login with `config people`) or an operator; `urgent` and 0–9 go ahead of every `high` PR and are for operators only.',
    examples: ['/mergequeue submit 1234', '/mergequeue submit 1234 acme/web:main high nobatch'],
  },
  cancel: {
    what: 'Takes a PR out of the queue; the reason is announced in the channel. Its author (confirmed by an operator) or an operator.',
    examples: ['/mergequeue cancel 1234 needs another fix'],
  },
  restart: {
    what: "Restarts a failed PR's tests. Its author (confirmed by an operator) or an operator.",
    examples: ['/mergequeue restart 1234'],
  },
  why: {
    what: "A PR's story in the queue: each step, and for a failure the reason, the checks that failed it and the next step (Trunk v2 key; v1's state otherwise).",
    examples: ['/mergequeue why 1234', '/mergequeue why 1234 acme/web:main'],
  },
  eta: {
    what: 'When a queued PR should merge, and which PRs it waits behind (needs a Trunk v2 key).',
    examples: ['/mergequeue eta 1234'],
  },
  prs: {
    what: "The queue's PRs: by default every one not yet merged, failed or cancelled; or those in one state.",
    examples: ['/mergequeue prs', '/mergequeue prs acme/web:main failed'],
  },
  stats: {
    what: 'How the queue did over the last day, 7 days (default) or 30 days, beside the window before: merged and kicked PRs, time in queue (p50, p90), time testing, hours paused, top failing checks, ETA error, with charts. Reading is for everyone.',
    examples: ['/mergequeue stats', '/mergequeue stats acme/web:main 30d'],
  },
  run: {
    what: 'One test run: status, required checks with links, PRs tested and impacted targets.',
    examples: ['/mergequeue run 5d1c7e0a-…'],
  },
  flaky: {
    what: 'Tests that failed in the last 24 hours, worst first.',
    examples: ['/mergequeue flaky acme/web'],
  },
  quarantined: { what: 'Tests quarantined now.', examples: ['/mergequeue quarantined acme/web'] },
  digest: {
    what: 'A daily digest of failing or quarantined tests in this channel, at a time and timezone you choose.',
    examples: [
      '/mergequeue digest add failing acme/web 09:30 Europe/Berlin weekdays',
      '/mergequeue digest list',
    ],
  },
  connect: {
    what: "Stores this workspace's Trunk API token and organization slug (operators only).",
    examples: ['/mergequeue connect'],
  },
  config: {
    what: 'Default queue for this channel or the workspace, who may change queues (operators), whether pasted GitHub PR links unfurl (Trunk links always do), and the autopilot: whether the app submits a kicked PR again by itself, once per head commit, for the kick classes chosen (default `flaky infra`; operators only, announced in the feeds).',
    examples: [
      '/mergequeue config channel acme/web:main',
      '/mergequeue config operators add @alice @release-team',
      '/mergequeue config operators list',
      '/mergequeue config people @alice alice-gh',
      '/mergequeue config unfurl github on',
      '/mergequeue config autopilot on acme/web:main',
      '/mergequeue config autopilot requeue flaky infra',
      '/mergequeue config autopilot',
    ],
  },
  watch: {
    what: "This channel receives the queue's events as they happen: state or settings changes (also made outside Slack), PRs submitted, testing, merged, failed, and health alerts when the queue is stuck or paused too long. Bursts are grouped into one message. Default: `state failed health`; `stuck <minutes>` sets this channel's stuck threshold.",
    examples: [
      '/mergequeue watch acme/web:main',
      '/mergequeue watch acme/web:main merged failed health stuck 30',
      '/mergequeue watch list',
    ],
  },
  unwatch: {
    what: "Ends this channel's feed of a queue.",
    examples: ['/mergequeue unwatch', '/mergequeue unwatch acme/web:main'],
  },
  me: {
    what: 'Links you to your GitHub login: you get a direct message when your PR starts testing, merges, or fails or is cancelled. Once an operator confirms the link (`config people`), the message about a failed or cancelled PR carries Restart tests and Re-submit buttons, and `submit`, `cancel` and `restart` work on your PRs.',
    examples: [
      '/mergequeue me github octocat',
      '/mergequeue me',
      '/mergequeue me notify off',
      '/mergequeue me forget',
    ],
  },
  tests: {
    what: 'Flaky tests, to the people who own them: this channel hears when a test (of one repository, or every one; of one code owner, or any) becomes flaky or broken, or recovers, with its owners mentioned as `digest owners` maps them and its failure rate (Trunk v2 key), and Trunk’s investigation in the thread. The message’s Quarantine / Stop quarantining and Link a ticket buttons are for operators and the mapped owners, and need a v2 key (quarantine: its “Quarantine tests” permission). Needs Trunk’s flaky-test webhooks: `tests watch` says how to set them up.',
    examples: [
      '/mergequeue tests watch owner @acme/payments acme/web',
      '/mergequeue tests watch',
      '/mergequeue tests list',
      '/mergequeue tests unwatch acme/web',
    ],
  },
  dashboard: {
    what: "A canvas in this channel that keeps the queue's state, its PRs in order and its last 7 days' figures current (edited when something changed, at most once a minute). The channel's own canvas when it has none yet, otherwise a canvas shared with the channel. Started, and stopped with `dashboard off`, by the workspace's own people (in a channel shared with another organization, operators), and announced in the channel.",
    examples: ['/mergequeue dashboard', '/mergequeue dashboard acme/web:main', '/mergequeue dashboard off'],
  },
  freeze: {
    what: 'Freeze windows: the queue is drained (or paused) at a time of day and resumed at the end, announced in this channel (operators).',
    examples: [
      '/mergequeue freeze add acme/web:main 18:00-08:00 Europe/Paris weekdays drain Nightly release',
      '/mergequeue freeze list',
      '/mergequeue freeze skip f7k2m9',
    ],
  },
};

export function renderHelp(topic?: string): SlackReply {
  const t = topic?.toLowerCase();
  if (t && (COMMAND_NAMES as string[]).includes(t)) {
    const name = t as CommandName;
    const a = ABOUT[name];
    return {
      text: `/mergequeue ${name}: ${a.what}`,
      blocks: [
        header(`/mergequeue ${name}`),
        section(escTrim(a.what, 1000)),
        section(`*Usage*\n\`${escTrim(USAGE[name], 900)}\``),
        section(`*Examples*\n${a.examples.map((e) => `\`${escTrim(e, 300)}\``).join('\n')}`),
      ],
      response_type: 'ephemeral',
    };
  }
  const lines = COMMAND_NAMES.map((n) => `\`${escTrim(USAGE[n], 400)}\`\n${escTrim(ABOUT[n].what, 300)}`);
  // As many sections as the lines need: a section holds 3000 characters.
  const sections: string[][] = [[]];
  let size = 0;
  for (const line of lines) {
    if (size + line.length + 1 > 2900 && sections[sections.length - 1]!.length > 0) {
      sections.push([]);
      size = 0;
    }
    sections[sections.length - 1]!.push(line);
    size += line.length + 1;
  }
  return {
    text:
      'mergequeue: control the Trunk merge queue and watch flaky tests from Slack. Commands: ' +
      COMMAND_NAMES.join(', '),
    blocks: [
      header('mergequeue for Slack'),
      section(
        'Control the Trunk merge queue and watch flaky tests from Slack. A target is `owner/repo`, `owner/repo:branch`, `host/owner/repo:branch` or `:branch`; left out, the channel default, then the workspace default, is used.',
      ),
      ...sections.map((ls) => section(ls.join('\n'))),
      context(
        "Anyone can read. Pausing, draining, resuming, concurrency, settings, freeze windows and config need an operator; submit, cancel and restart need an operator or the PR's confirmed author. `/mergequeue help <command>` for examples.",
      ),
    ],
    response_type: 'ephemeral',
  };
}
