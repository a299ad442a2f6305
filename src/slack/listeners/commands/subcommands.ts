/** Each `/mergequeue` subcommand's handler, by the grammar's name for it (slack/grammars/grammar.ts). */
import type { Command } from '../../grammars/grammar.ts';
import { cancel } from './cancel.ts';
import { concurrency } from './concurrency.ts';
import { configure } from './config.ts';
import { connect } from './connect.ts';
import { dashboard } from './dashboard.ts';
import { digest } from './digest/index.ts';
import { eta } from './eta.ts';
import { freeze } from './freeze.ts';
import { help } from './help.ts';
import { me } from './me.ts';
import { pr } from './pr.ts';
import { prs } from './prs.ts';
import { restart } from './restart.ts';
import { run } from './run.ts';
import { settings } from './settings.ts';
import { changeQueueState } from './state.ts';
import { stats } from './stats.ts';
import { status } from './status.ts';
import { submit } from './submit.ts';
import { testFeeds } from './test-feeds.ts';
import { tests } from './tests.ts';
import type { CommandRequest, Outcome } from './types.ts';
import { unwatch, watch } from './watch.ts';
import { why } from './why.ts';

/** The grammar's command named N (a command whose name is a union, like pause|drain|resume, too). */
type Named<N, C = Command> = C extends { name: infer M } ? (N extends M ? C : never) : never;

type Handlers = {
  [N in Command['name']]: (req: CommandRequest, c: Named<N>) => Promise<Outcome>;
};

const SUBCOMMANDS: Handlers = {
  help: (req, c) => help(req, c.topic),
  status: (req, c) => status(req, c.target),
  pause: (req, c) => changeQueueState(req, c.name, c.target, c.reason),
  drain: (req, c) => changeQueueState(req, c.name, c.target, c.reason),
  resume: (req, c) => changeQueueState(req, c.name, c.target, c.reason),
  concurrency: (req, c) => concurrency(req, c.value, c.target),
  settings: (req, c) => settings(req, c.target),
  pr: (req, c) => pr(req, c.number, c.target),
  why: (req, c) => why(req, c.number, c.target),
  eta: (req, c) => eta(req, c.number, c.target),
  run: (req, c) => run(req, c.testRunId, c.target),
  flaky: (req, c) => tests(req, c.name, c.repo),
  quarantined: (req, c) => tests(req, c.name, c.repo),
  connect: (req) => connect(req),
  config: (req, c) => configure(req, c.config),
  digest: (req, c) => digest(req, c.args),
  submit: (req, c) => submit(req, c),
  cancel: (req, c) => cancel(req, c),
  restart: (req, c) => restart(req, c),
  prs: (req, c) => prs(req, c),
  stats: (req, c) => stats(req, c.target, c.days),
  freeze: (req, c) => freeze(req, c.text),
  watch: (req, c) => watch(req, c.watch),
  unwatch: (req, c) => unwatch(req, c.target),
  me: (req, c) => me(req, c.me),
  tests: (req, c) => testFeeds(req, c.tests),
  dashboard: (req, c) => dashboard(req, c.off, c.target),
};

/** Runs the parsed subcommand's handler. */
export function runSubcommand(req: CommandRequest, c: Command): Promise<Outcome> {
  const handle = SUBCOMMANDS[c.name] as (req: CommandRequest, c: Command) => Promise<Outcome>;
  return handle(req, c);
}
