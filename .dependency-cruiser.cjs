/**
 * Which part of src/ (and dev/) may import which: the README's picture,
 * `slack → services → (queue, digest, workspace, watch, freeze) → trunk` with `store` beside them and `core`
 * under everything, written as rules a build can check. `npm test` runs it (`npm run deps`); it prints each
 * import that runs the wrong way as `from → to` with the rule's name, and exits non-zero. No import breaks a
 * rule today, and there is no list of exceptions.
 *
 * The rules are allow-lists: each says what a part MAY import (`pathNot`), and everything else is refused.
 * A new folder is therefore covered without editing this file: a new src/<name>/ is a domain (the strictest
 * place short of core/), and nothing may import it unless a rule below lets it.
 *
 * How to read a rule: `from` is the importing file, `to` the imported one; paths are regular expressions
 * over paths relative to the repository root (a package's path ends in `node_modules/<name>/…`). `dependencyTypesNot:
 * ['type-only']` exempts `import type`; `dependencyTypes: ['type-only']` applies to `import type` alone.
 * When a rule is in your way, the fix is almost always to move the code to the part it belongs to (or to a
 * neutral module both sides may import), not to add an exception here.
 *
 * dependency-cruiser reads TypeScript through the TypeScript 6 compiler API: the `typescript` devDependency
 * is Microsoft's TypeScript 6 package for tools, while `tsc` (builds, `npm run typecheck`) comes from
 * TypeScript 7, installed as `@typescript/native`.
 */

/**
 * src/ is the product (what the image builds); dev/ holds the development and try-it-out tools (the fakes
 * of Slack and Trunk, the sandbox), which the image leaves out. test/ and bench/ may import anything.
 */
const DEV_TOOLS = '^dev/';

/**
 * The parts that are not a domain. Every other folder of src/ is a domain (queue, digest, workspace, watch,
 * freeze today, and any new one): `$1` in a rule is its name.
 */
const NOT_A_DOMAIN = 'core|trunk|store|services|slack|workers|observability|http|cli';
const DOMAIN = `^src/(?!(?:${NOT_A_DOMAIN})/)([^/]+)/`;

/** What lies below the domains: every domain and service may import these. */
const BELOW_THE_DOMAINS = '^src/(core|store|trunk|observability)/';

/**
 * The modules that define a `*Repository` class (rows of the store, read and written by a domain). Only
 * domains and services use them; test/production/dependency-rules.test.ts fails when a file that defines a
 * repository is missing here.
 */
const REPOSITORY_MODULES = [
  '^src/dashboard/repository\\.ts$',
  '^src/digest/(claims|shared-collection|repository)\\.ts$',
  '^src/flaky/(test-watches|messages)\\.ts$',
  '^src/freeze/repository\\.ts$',
  '^src/kicks/repository\\.ts$',
  '^src/history/repository\\.ts$',
  '^src/watch/(feeds|deliveries|people|queue-state|slow-state|submitters|transitions|waits)\\.ts$',
  '^src/webhooks/inbox\\.ts$',
];

/**
 * The store modules slack/ may import at run time (rule slack-takes-the-store-only-as-ports), each with its
 * reason. Empty: every store access of the Slack side is a port handed in by the composition root. The
 * pattern below matches no file; add a real path here only with the reason it cannot be a port.
 */
const SLACK_MAY_RUN_FROM_STORE = ['^$'];

/**
 * What a listener (src/slack/listeners/) may import: parse → call a service → render → reply. Beside the
 * services, the grammars, the renderers, core/ and observability/, the Slack-side plumbing a listener needs
 * to talk to Slack, each file named (a new one is added here on purpose, with its reason):
 */
const LISTENERS_MAY_IMPORT = [
  '^src/slack/listeners/',
  '^src/services/',
  '^src/slack/(grammars|blocks)/',
  '^src/(core|observability)/',
  // what a listener is handed (SlackDeps and its ports), the request's context (actor, services, reply), the Actor
  '^src/slack/(deps|ports|context|actor)\\.ts$',
  // the one reply (respond, post, update, modals, the Home, unfurls; the SlackReply a renderer returns), and
  // the wait after the ack
  '^src/slack/(reply|after-ack)\\.ts$',
  // Slack-only steps of a listener: open a modal, publish the Home, answer a response_url, finish inside a
  // view submission's ack, apply tokens_revoked, ask Slack whether a channel is shared (Slack Connect)
  '^src/slack/(modals|home|pr-actor|answer-budget|revocation|shared-channels)\\.ts$',
  // make a dashboard's canvas in the channel (conversations.canvases.create, canvases.create)
  '^src/slack/dashboard-canvases\\.ts$',
  // Bolt's and Slack's own types
  'node_modules/@slack/(bolt|web-api|types)/',
];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'core-imports-nothing-of-the-app',
      severity: 'error',
      comment:
        'core/ holds the vocabulary every part shares (targets such as owner/repo:branch, the names of secret ' +
        'keys). It imports nothing of the app, so any part may import it without pulling another part along.',
      from: { path: '^src/core/' },
      to: { path: '^src/', pathNot: '^src/core/' },
    },
    {
      name: 'periodic-loops-are-built-only-in-workers',
      severity: 'error',
      comment:
        'Background work has one home, workers/: a domain exposes a pass (or takes the PassLoop type to steer ' +
        'the loop that runs it), and only a worker builds the loop, names it and puts it on the lifecycle. ' +
        'Anything else may import core/periodic-passes.ts for its types alone. ' +
        'test/production/dependency-rules.test.ts also refuses `new PeriodicPasses` outside workers/.',
      from: { path: '^src/', pathNot: '^src/(workers/|core/periodic-passes\\.ts$)' },
      to: { path: '^src/core/periodic-passes\\.ts$', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'A cycle means neither module can be understood, tested or moved without the other, and ES modules ' +
        'in a cycle can see each other half-initialised. Break it by moving what both need into a third module.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'trunk-is-the-api-client-alone',
      severity: 'error',
      comment:
        "trunk/ is Trunk's API client: schemas, errors, retries, pagination. It imports only itself, core/ and " +
        'observability/: it knows nothing of Slack, of what a command means, or of where things are stored, ' +
        'so it can be reused and tested against the Trunk fake by itself, and a v2 client can replace it ' +
        'without touching the rest.',
      from: { path: '^src/trunk/' },
      to: { path: '^src/', pathNot: '^src/(trunk|core|observability)/' },
    },
    {
      name: 'trunk-knows-no-slack-package',
      severity: 'error',
      comment:
        'The API client must not speak Slack: an error keeps its kind and facts, and the words a person reads ' +
        'in Slack are written by the renderers in slack/.',
      from: { path: '^src/trunk/' },
      to: { path: 'node_modules/@slack/' },
    },
    {
      name: 'store-knows-no-domain-or-slack',
      severity: 'error',
      comment:
        'store/ is one interface over SQLite and PostgreSQL. It imports only itself and core/: it stores what ' +
        'it is given and knows nothing of how commands are parsed (queue/), what a digest is for (digest/), ' +
        'the services or how Slack is wired (slack/), so either database can be swapped or tested by the ' +
        'shared contract suite alone.',
      from: { path: '^src/store/' },
      to: { path: '^src/', pathNot: '^src/(store|core)/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'store-takes-only-types-from-trunk-and-observability',
      severity: 'error',
      comment:
        "The store may name trunk's data types and the Logger type in its signatures, but must not call " +
        "into the API client or depend on the logger's internals (such as its list of secret keys): a " +
        'logger is handed to it, and what counts as secret for the store is decided in the store.',
      from: { path: '^src/store/' },
      to: {
        path: '^src/',
        pathNot: '^src/(store|core|trunk|observability)/',
        dependencyTypes: ['type-only'],
      },
    },
    {
      name: 'store-knows-no-bolt',
      severity: 'error',
      comment:
        "Bolt's InstallationStore is a Slack concern: an adapter in slack/ implements it on top of the store, " +
        "so the store's interface is the app's own and does not change when Bolt's does.",
      from: { path: '^src/store/' },
      to: { path: 'node_modules/@slack/' },
    },
    {
      name: 'domain-imports-only-what-lies-below',
      severity: 'error',
      comment:
        'A domain (queue/, digest/, workspace/, watch/, freeze/, and any new folder of src/) is plain data in, ' +
        'plain data out: what a change means, who may run it, what a digest says. It imports only itself, ' +
        'core/, store/, trunk/ and observability/ (and another domain as domains-are-independent allows). ' +
        'Replies, Block Kit and Bolt belong to slack/, the application layer to services/, the assembly to ' +
        'the composition root (app.ts, main.ts, lifecycle.ts, config.ts, http/, cli/, workers/); each calls ' +
        'the domain, and the reverse arrow would make the domain untestable without them.',
      from: { path: DOMAIN },
      to: { path: '^src/', pathNot: [DOMAIN, BELOW_THE_DOMAINS] },
    },
    {
      name: 'domains-write-no-audit',
      severity: 'error',
      comment:
        'A domain decides and returns plain outcomes (ok, noop, failed with before/after and the error); the ' +
        'audit row of a change, no-op, refusal or failure is written by the application layer (services/, ' +
        "through the Actor's `audit`, or the composition root for a freeze window), which also claims a clicked " +
        'button once. store/audit-retrying.ts is the module that writes audit rows: no domain imports it, so a ' +
        'domain never audits itself and every row is written where the actor is known.',
      from: { path: DOMAIN },
      to: { path: '^src/store/audit-retrying\\.ts$' },
    },
    {
      name: 'domain-knows-no-slack-package',
      severity: 'error',
      comment:
        'A domain sees Slack only through ports it declares (the Notifier of core/notifier.ts, the ' +
        "DigestSurface), never Bolt's or Slack's packages.",
      from: { path: DOMAIN },
      to: { path: 'node_modules/@slack/' },
    },
    {
      name: 'domains-are-independent',
      severity: 'error',
      comment:
        'The domains are siblings: what they share (targets such as owner/repo:branch, local time) lives in ' +
        'core/, which all may import, so a change to one domain never ripples into another. freeze/ is the ' +
        "one automation built on another domain: a freeze window changes the queue through the queue's own " +
        "change flow (rule freeze-builds-only-on-queue). history/ is the queue's memory, which every domain " +
        'that learns a transition may record into (rule history-builds-on-nothing-else).',
      from: { path: DOMAIN },
      to: { path: DOMAIN, pathNot: ['^src/$1/', '^src/queue/', '^src/history/'] },
    },
    {
      name: 'history-builds-on-nothing-else',
      severity: 'error',
      comment:
        "history/ (the queue's memory: transitions, queue states, ETAs shown) lies under the other domains, " +
        'which record into it and read it; it imports no other domain, so none of them ripples into it.',
      from: { path: '^src/history/' },
      to: { path: DOMAIN, pathNot: '^src/history/' },
    },
    {
      name: 'freeze-builds-only-on-queue',
      severity: 'error',
      comment:
        'Only freeze/ may use the queue domain (to pause, drain and resume through the same audited flow as ' +
        'a person); the queue never knows about freeze windows, and no other domain reaches into it.',
      from: { path: DOMAIN, pathNot: '^src/(freeze|queue)/' },
      to: { path: '^src/queue/' },
    },
    {
      name: 'services-import-only-domains-and-below',
      severity: 'error',
      comment:
        'services/ is the application layer: who is asking, may they, the answer. It imports only itself, ' +
        'the domains and what lies below them; it sees Slack only through ports (services/ports.ts, the ' +
        'Actor of services/actor.ts) that slack/ implements, and never the composition root, so a service ' +
        'can be called from any surface and tested as a plain function.',
      from: { path: '^src/services/' },
      to: { path: '^src/', pathNot: ['^src/services/', DOMAIN, BELOW_THE_DOMAINS] },
    },
    {
      name: 'services-know-no-slack-package',
      severity: 'error',
      comment: "A service is called from any surface: Bolt's and Slack's packages belong to slack/.",
      from: { path: '^src/services/' },
      to: { path: 'node_modules/@slack/' },
    },
    {
      name: 'listeners-import-only-services-grammars-renderers',
      severity: 'error',
      comment:
        'A listener parses (slack/grammars/), calls a service (services/), renders (slack/blocks/) and ' +
        "replies; it imports only those, core/, observability/, Bolt's and Slack's types and the few " +
        'Slack-side helpers named in LISTENERS_MAY_IMPORT. A rule, a repository or a store query in a ' +
        'listener is a rule the next surface re-implements: move it into the service.',
      from: { path: '^src/slack/listeners/' },
      to: { pathNot: LISTENERS_MAY_IMPORT, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'listeners-name-only-plain-data-types',
      severity: 'error',
      comment:
        'A listener may name the plain data types it passes between a service and a renderer (a domain or ' +
        'trunk/ type, `import type`), but takes no other type from outside LISTENERS_MAY_IMPORT.',
      from: { path: '^src/slack/listeners/' },
      to: {
        pathNot: [...LISTENERS_MAY_IMPORT, DOMAIN, '^src/trunk/'],
        dependencyTypes: ['type-only'],
      },
    },
    {
      name: 'listeners-and-renderers-never-reach-the-store',
      severity: 'error',
      comment:
        'Listeners and renderers (slack/blocks/) never import store/ or a repository module, not even a ' +
        'type: every store access, permission and visibility rule lives in a service, and a renderer draws ' +
        'the plain data it is handed.',
      from: { path: '^src/slack/(listeners|blocks)/' },
      to: { path: ['^src/store/', ...REPOSITORY_MODULES] },
    },
    {
      name: 'outbox-knows-no-store',
      severity: 'error',
      comment:
        'The Slack outbox posts what it is given: what to remember about a post (a paused feed, a delivered ' +
        'event) is told to its caller through the outcome, not written to the store by the outbox.',
      from: { path: '^src/slack/outbox/' },
      to: { path: ['^src/store/', ...REPOSITORY_MODULES] },
    },
    {
      name: 'bolt-adapters-take-the-store-as-a-port',
      severity: 'error',
      comment:
        "Bolt's installation store and the replay guard are handed the narrow part of the store they use " +
        "(Store['installations'], Pick<Store, 'claimOnce'>); they name its types and call nothing else of it.",
      from: { path: '^src/slack/(installation-store|replay-guard)\\.ts$' },
      to: { path: ['^src/store/', ...REPOSITORY_MODULES], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'slack-takes-the-store-only-as-ports',
      severity: 'error',
      comment:
        "The Slack side (all of slack/: listeners, renderers, the outbox, Bolt's adapters, the workspace " +
        'clients, queue-event delivery) reaches the store only through narrow ports the composition root ' +
        '(app.ts, workers/) builds and hands in: it may name store/ types and repository types (`import ' +
        'type`) but never runs store code or builds a repository, so where and how rows are kept is decided ' +
        'in one place. SLACK_MAY_RUN_FROM_STORE names the exceptions, each with its reason (none today).',
      from: { path: '^src/slack/' },
      to: {
        path: ['^src/store/', ...REPOSITORY_MODULES],
        pathNot: SLACK_MAY_RUN_FROM_STORE,
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'product-never-imports-dev-tools',
      severity: 'error',
      comment:
        'dev/ (the fakes, the sandbox) is not in the image: product code that imported it would fail there, ' +
        'or ship a fake that could end up answering in place of Slack or Trunk. The one way in is ' +
        'src/main.ts loading the sandbox by path when sandbox mode starts (a computed import() this check ' +
        'cannot follow, which is why the build leaves dev/ out without complaint).',
      from: { path: '^src/' },
      to: { path: DEV_TOOLS },
    },
    {
      name: 'fakes-only-for-the-sandbox',
      severity: 'error',
      comment:
        'The fakes of Slack and Trunk serve the tests (test/ imports them) and the sandbox, which runs the ' +
        'real app against them; no other development tool should grow a dependency on them.',
      from: { path: DEV_TOOLS, pathNot: '^dev/(fakes|sandbox)/' },
      to: { path: '^dev/fakes/' },
    },
    {
      name: 'product-uses-no-dev-dependency',
      severity: 'error',
      comment:
        'The image installs with `npm ci --omit=dev`: a devDependency imported by product code works in ' +
        'tests and fails in production. Type-only imports are erased at build time and are fine.',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'An import that does not resolve is a typo or a missing package; it fails at run time.',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // The sandbox page's browser scripts are not Node modules of the app.
    exclude: { path: '^dev/sandbox/public/' },
    // Read `import type` too (marked type-only), so rules can tell a type reference from a call.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
