/**
 * The words that teach the `/mergequeue` commands: the exact form of each (shown with every usage error
 * and in help) and the digest's longer help. The grammars (grammar.ts, digest.ts) read the commands; this
 * says how to type them, so a wording change never touches a parser.
 */
import { DEFAULT_TOP, MAX_TOP } from '../../digest/index.ts';
import { PULL_REQUEST_STATES } from '../../trunk/types.ts';

/** The exact forms to type, by command; shown with usage errors and in help. */
export const USAGE = {
  help: '/mergequeue help [command]',
  status: '/mergequeue status [owner/repo[:branch]]',
  pause: '/mergequeue pause [owner/repo[:branch]] [reason…]',
  drain: '/mergequeue drain [owner/repo[:branch]] [reason…]',
  resume: '/mergequeue resume [owner/repo[:branch]] [reason…]',
  concurrency: '/mergequeue concurrency <1–4294967295> [owner/repo[:branch]]',
  settings: '/mergequeue settings [owner/repo[:branch]]',
  pr: '/mergequeue pr <number> [owner/repo[:branch]]',
  run: '/mergequeue run <testRunId> [owner/repo[:branch]]',
  submit: '/mergequeue submit <pr> [owner/repo[:branch]] [urgent|high|medium|low|none|<0-255>] [nobatch]',
  cancel: '/mergequeue cancel <pr> [owner/repo[:branch]] [reason…]',
  restart: '/mergequeue restart <pr> [owner/repo[:branch]]',
  why: '/mergequeue why <pr> [owner/repo[:branch]]',
  eta: '/mergequeue eta <pr> [owner/repo[:branch]]',
  prs: `/mergequeue prs [owner/repo[:branch]] [${PULL_REQUEST_STATES.join('|')}]`,
  stats: '/mergequeue stats [owner/repo[:branch]] [1d|7d|30d]',
  flaky: '/mergequeue flaky [owner/repo]',
  quarantined: '/mergequeue quarantined [owner/repo]',
  digest:
    '/mergequeue digest add failing|quarantined [owner/repo] [HH:MM] [Area/City] [daily|weekdays] [owner @org/team] · digest add health [owner/repo[:branch]] [HH:MM] [Area/City] [daily|weekdays|weekly] · digest list · digest remove <id> · digest run <id>',
  connect: '/mergequeue connect',
  config:
    '/mergequeue config channel <owner/repo[:branch]>|clear · config workspace <owner/repo[:branch]>|clear · config operators list|add|remove @user|@group… · config people @user <github-login> · config unfurl github on|off · config autopilot [on|off] [owner/repo[:branch]] · config autopilot requeue <class…> [owner/repo[:branch]]',
  freeze:
    '/mergequeue freeze add [owner/repo[:branch]] <HH:MM>-<HH:MM> [Area/City] [daily|weekdays|weekends|once YYYY-MM-DD] [pause|drain] [reason…] · freeze list · freeze remove <id> · freeze skip <id>',
  watch:
    '/mergequeue watch [owner/repo[:branch]] [state] [submitted] [testing] [merged] [failed] [health] [stuck <minutes>] · watch list',
  unwatch: '/mergequeue unwatch [owner/repo[:branch]]',
  me: '/mergequeue me · me github <login> · me forget · me notify on|off',
  tests: '/mergequeue tests watch [owner @org/team] [owner/repo] · tests unwatch [owner/repo] · tests list',
  dashboard: '/mergequeue dashboard [owner/repo[:branch]] · dashboard off [owner/repo[:branch]]',
} as const;

export const DIGEST_HELP = [
  '*Flaky-test digests* (posted in this channel, threaded, links to Trunk):',
  '• `/mergequeue digest add failing|quarantined [owner/repo] [HH:MM] [Area/City] [daily|weekdays]` — defaults: this channel’s repo, 09:00, your Slack timezone, weekdays. Example: `/mergequeue digest add failing acme/web 09:30 Europe/Paris daily`',
  '• Team digests: add `owner @acme/payments` (a code owner as Trunk reports it, or a team name like `payments`) for only the tests that owner owns; it says “nothing to report” for the team when there are none. Digests of one repository due in the same minute share one read of Trunk.',
  '• `/mergequeue digest add health [owner/repo[:branch]] [HH:MM] [Area/City] [daily|weekdays|weekly]` — how one queue did, beside the window before: merged and kicked PRs, time in queue, hours paused (`weekly`: Mondays, the last 7 days; otherwise the last day). Example: `/mergequeue digest add health acme/web:main 09:00 Europe/Paris weekly`',
  '• `/mergequeue digest list` · `digest remove <id>` · `digest run <id>` (post one now, to try it)',
  '• `/mergequeue digest set <id> skip-empty on|off` (no post when there is nothing to report; on by default)',
  `• \`/mergequeue digest set <id> top <1-${MAX_TOP}>\` (tests listed, default ${DEFAULT_TOP}) · \`set <id> time 08:30\` · \`set <id> tz America/New_York\` · \`set <id> days daily|weekdays\``,
  '• `/mergequeue digest owners` lists who is mentioned for which code owner; `digest owners @acme/payments @alice @payments-team` maps a Trunk code owner to Slack users or user groups; `digest owners @acme/payments none` removes it',
  'Operators, and members of a digest’s channel, may add, change, remove and run it (`digest run` once every 5 minutes per digest). `digest owners` changes are for operators. `digest list` shows the digests of channels you can see.',
].join('\n');
