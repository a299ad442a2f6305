/**
 * Which part of src/ (and dev/) may import which: the README's picture,
 * `slack → (queue, digest, workspace, watch, freeze) → trunk` with `store` beside them and `core` under
 * everything, written as rules a build can check. `npm test` runs it (`npm run deps`); it prints each import
 * that runs the wrong way as `from → to` with the rule's name, and exits non-zero. No import breaks a rule
 * today, and there is no list of exceptions.
 *
 * How to read a rule: `from` is the importing file, `to` the imported one; paths are regular expressions
 * over paths relative to the repository root. `dependencyTypesNot: ['type-only']` exempts `import type`.
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
        "trunk/ is Trunk's API client: schemas, errors, retries, pagination. It knows nothing of Slack, of " +
        'what a command means, or of where things are stored, so it can be reused and tested against the ' +
        'Trunk fake by itself, and a v2 client can replace it without touching the rest.',
      from: { path: '^src/trunk/' },
      to: {
        path: ['^src/(slack|queue|digest|workspace|store|http|cli)/', '^src/(app|main|lifecycle)\\.ts$'],
      },
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
        'store/ is one interface over SQLite and PostgreSQL. It stores what it is given and knows nothing of ' +
        'how commands are parsed (queue/), what a digest is for (digest/) or how Slack is wired (slack/), ' +
        'so either database can be swapped or tested by the shared contract suite alone.',
      from: { path: '^src/store/' },
      to: {
        path: ['^src/(slack|queue|digest|workspace|http|cli)/', '^src/(app|main|lifecycle)\\.ts$'],
      },
    },
    {
      name: 'store-takes-only-types-from-trunk-and-observability',
      severity: 'error',
      comment:
        "The store may name trunk's data types and the Logger type in its signatures, but must not call " +
        "into the API client or depend on the logger's internals (such as its list of secret keys): a " +
        'logger is handed to it, and what counts as secret for the store is decided in the store.',
      from: { path: '^src/store/' },
      to: { path: '^src/(trunk|observability)/', dependencyTypesNot: ['type-only'] },
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
      name: 'domain-never-imports-slack',
      severity: 'error',
      comment:
        'queue/, digest/, workspace/, watch/ and freeze/ are the domain: plain data in, plain data out (what a change means, who may ' +
        'run it, what a digest says). Replies, Block Kit and Bolt types belong to slack/, which calls the ' +
        'domain; the reverse arrow would make the domain untestable without Slack.',
      from: { path: '^src/(queue|digest|workspace|watch|freeze)/' },
      to: { path: ['^src/slack/', 'node_modules/@slack/'] },
    },
    {
      name: 'services-never-import-slack',
      severity: 'error',
      comment:
        'services/ is the application layer: who is asking, may they, the answer. It sees Slack only through ' +
        'ports (services/ports.ts, the Actor of services/actor.ts) that slack/ implements, so a service can be ' +
        'called from any surface and tested as a plain function.',
      from: { path: '^src/services/' },
      to: {
        path: ['^src/slack/', 'node_modules/@slack/', '^src/(http|cli)/', '^src/(app|main|lifecycle)\\.ts$'],
      },
    },
    {
      name: 'domain-never-imports-the-composition-root',
      severity: 'error',
      comment:
        'app.ts, main.ts, lifecycle.ts and http/ assemble the parts; a domain module that imported any of ' +
        'them would pull the whole app into its tests.',
      from: { path: '^src/(queue|digest|workspace|watch|freeze)/' },
      to: { path: ['^src/(http|cli)/', '^src/(app|main|lifecycle)\\.ts$'] },
    },
    {
      name: 'domains-are-independent',
      severity: 'error',
      comment:
        'queue/, digest/, workspace/ and watch/ are siblings: what they share (targets such as owner/repo:branch, ' +
        'local time) lives in core/, which all may import, so a change to one domain never ripples into another. ' +
        'freeze/ is the one automation built on another domain: a freeze window changes the queue through ' +
        "the queue's own change flow (rule freeze-builds-only-on-queue).",
      from: { path: '^src/(queue|digest|workspace|watch|freeze)/' },
      to: { path: '^src/(queue|digest|workspace|watch|freeze)/', pathNot: ['^src/$1/', '^src/queue/'] },
    },
    {
      name: 'freeze-builds-only-on-queue',
      severity: 'error',
      comment:
        'Only freeze/ may use the queue domain (to pause, drain and resume through the same audited flow as ' +
        'a person); the queue never knows about freeze windows, and no other domain reaches into it.',
      from: { path: '^src/(digest|workspace|watch)/' },
      to: { path: '^src/queue/' },
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
