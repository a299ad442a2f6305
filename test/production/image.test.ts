/**
 * Images cannot be built here, so this test replays the Dockerfile: the build stage's COPY and RUN lines
 * in a scratch folder (the repo's node_modules stands in for its full install), the deps stage for real
 * (`npm ci --omit=dev` against the registry), the runtime stage's COPY lines, then the runtime CMD and
 * HEALTHCHECK against the fakes.
 */
import { execFileSync, execSync, spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type SlackFake, startSlackFake } from '../../dev/fakes/slack/server.ts';
import { signedHeaders, slashCommandBody } from '../../dev/fakes/slack/signing.ts';
import { startTrunkFake, type TrunkFake } from '../../dev/fakes/trunk/index.ts';
import { type Child, ROOT, spawnChild } from '../helpers/processes.ts';
import { copyPaths, instructions, parseDockerfile, type Stage, stage } from './dockerfile.ts';

const df = parseDockerfile(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
const runtime = df.stages.at(-1)!;
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

describe('Dockerfile', () => {
  it('is multi-stage on Node 24 slim, with production dependencies only in the final image', () => {
    expect(df.stages.map((s) => s.name)).toEqual(['build', 'deps', 'runtime']);
    for (const s of df.stages) expect(s.from).toBe('node:24-slim');
    const run = (s: Stage) => instructions(s, 'RUN').map((i) => i.args);
    expect(run(stage(df, 'build'))).toContain('npm run build');
    // npm ci, never npm install: both installs take exactly the committed lockfile.
    expect(run(stage(df, 'build')).some((r) => /^npm ci\b/.test(r))).toBe(true);
    expect(run(stage(df, 'deps')).some((r) => /^npm ci\b.*--omit=dev/.test(r))).toBe(true);
    expect(df.stages.flatMap(run).some((r) => /\bnpm (install|i)\b/.test(r))).toBe(false);
    // The final stage installs nothing and takes only built output, production modules and package.json.
    expect(run(runtime).some((r) => /\bnpm (ci|install|i)\b/.test(r))).toBe(false);
    const copies = instructions(runtime, 'COPY').map((i) => ({ from: i.flags['from'], ...copyPaths(i) }));
    expect(copies).toEqual([
      { from: 'deps', sources: ['/app/node_modules'], dest: './node_modules' },
      { from: 'build', sources: ['/app/dist'], dest: './dist' },
      { from: undefined, sources: ['package.json'], dest: './' },
    ]);
    // No npm (nor TypeScript, which only the build stage has) left to run in the final image.
    expect(run(runtime).join(' ')).toMatch(/rm -rf \/usr\/local\/lib\/node_modules\/npm/);
  });

  it('runs as a non-root user, checks /healthz and starts dist/main.js', () => {
    const user = instructions(runtime, 'USER');
    expect(user).toHaveLength(1);
    expect(user[0]!.args).not.toMatch(/^(root|0)(:|$)/);
    const health = instructions(runtime, 'HEALTHCHECK');
    expect(health).toHaveLength(1);
    expect(health[0]!.exec?.join(' ')).toContain('/healthz');
    expect(instructions(runtime, 'CMD')[0]?.exec).toEqual(['node', 'dist/main.js']);
    expect(instructions(runtime, 'STOPSIGNAL')[0]?.args).toBe('SIGTERM');
  });

  it('has a .dockerignore that keeps secrets, modules and build output out of the context', () => {
    const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n');
    for (const p of ['.git', '.env', 'node_modules', 'dist', 'data', 'test', 'dev'])
      expect(ignored).toContain(p);
  });

  it('builds from src/ alone: the development tools in dev/ are never copied into any stage', () => {
    const sources = df.stages.flatMap((s) =>
      instructions(s, 'COPY')
        .filter((i) => !i.flags['from'])
        .flatMap((i) => copyPaths(i).sources),
    );
    expect(sources).toContain('src');
    expect(sources.filter((p) => /^(\.\/)?(dev|test|bench)(\/|$)/.test(p))).toEqual([]);
  });
});

/** Every file under dir, as paths relative to it. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1));
}

describe('the image, replayed', () => {
  let tmp: string;
  let slack: SlackFake;
  let trunk: TrunkFake;
  let proc: (Child & { url: string }) | undefined;
  const stageDir = (name: string) => join(tmp, name);

  /** Executes a stage's COPY (from the repo or an earlier stage) and, if asked, its RUN lines. */
  function replay(s: Stage, opts: { runLines: boolean }) {
    const dir = stageDir(s.name);
    mkdirSync(dir, { recursive: true });
    for (const i of s.instructions) {
      if (i.op === 'COPY') {
        const { sources, dest } = copyPaths(i);
        for (const src of sources) {
          const from = i.flags['from']
            ? join(stageDir(i.flags['from']), src.replace(/^\/app\/?/, ''))
            : join(ROOT, src);
          const to = dest.endsWith('/') ? join(dir, dest, src.split('/').at(-1)!) : join(dir, dest);
          mkdirSync(dirname(to), { recursive: true });
          cpSync(from, to, { recursive: true, verbatimSymlinks: true });
        }
      } else if (i.op === 'RUN' && opts.runLines) {
        if (/^npm ci\b/.test(i.args) && !i.args.includes('--omit=dev')) {
          // The full install equals the repo's own node_modules (same lockfile).
          symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
          continue;
        }
        runLine(i.args, dir);
      }
    }
  }

  function runLine(line: string, cwd: string) {
    const env = {
      ...process.env,
      PATH: `${join(cwd, 'node_modules', '.bin')}:${process.env['PATH']}`,
      npm_config_prefer_offline: 'true',
    };
    try {
      execSync(line, { cwd, stdio: 'pipe', env });
    } catch (err) {
      const stderr = `${String((err as { stdout?: Buffer }).stdout ?? '')}${String((err as { stderr?: Buffer }).stderr ?? '')}`;
      throw new Error(`RUN ${line} failed:\n${stderr.slice(0, 4000)}`);
    }
  }

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'mq-image-'));
    // The bot token belongs to the workspace the signed command below comes from (auth.test says so).
    slack = await startSlackFake({ defaultTeamId: 'T0IMAGE001' });
    trunk = await startTrunkFake({ tokens: ['image-token'] });
    trunk.addQueue('acme/web', 'main');
  }, 60_000);

  afterAll(async () => {
    await proc?.stop();
    await slack?.close();
    await trunk?.close();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('builds, installs production dependencies alone, starts, answers /healthz and a command', async () => {
    replay(stage(df, 'build'), { runLines: true });
    expect(existsSync(join(stageDir('build'), 'dist', 'main.js'))).toBe(true);
    // No fake and no sandbox in the built output: not as files, and not as code under another name.
    const dist = join(stageDir('build'), 'dist');
    const built = filesUnder(dist);
    expect(built.length).toBeGreaterThan(20);
    expect(built.filter((f) => /(^|\/)(fakes|sandbox|dev)(\/|$)/.test(f))).toEqual([]);
    const leaked = built.filter((f) =>
      /startSlackFake|startTrunkFake|createSandboxRoutes|seedTrunk/.test(readFileSync(join(dist, f), 'utf8')),
    );
    expect(leaked).toEqual([]);
    replay(stage(df, 'deps'), { runLines: true });
    const modules = join(stageDir('deps'), 'node_modules');
    for (const dep of Object.keys(pkg.dependencies)) expect(existsSync(join(modules, dep)), dep).toBe(true);
    // Packages the lockfile marks dev-only (TypeScript, vitest, biome, the node binary...) are absent.
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { dev?: boolean }>;
    };
    const devOnly = Object.keys(pkg.devDependencies).filter((d) => lock.packages[`node_modules/${d}`]?.dev);
    expect(devOnly).toEqual(expect.arrayContaining(['typescript', 'vitest', 'node']));
    for (const dev of devOnly) expect(existsSync(join(modules, dev)), dev).toBe(false);
    replay(runtime, { runLines: false });
    const app = stageDir('runtime');
    expect(existsSync(join(app, 'src'))).toBe(false);

    const env: Record<string, string> = {};
    for (const i of instructions(runtime, 'ENV'))
      for (const m of i.args.matchAll(/(\w+)=(\S+)/g)) env[m[1]!] = m[2]!;
    const signingSecret = 'image-signing-secret';
    Object.assign(env, {
      PORT: '0',
      SLACK_SIGNING_SECRET: signingSecret,
      SLACK_BOT_TOKEN: 'xoxb-image-test',
      SLACK_API_URL: slack.url,
      TRUNK_API_URL: trunk.url,
      TRUNK_API_TOKEN: 'image-token',
      TRUNK_ORG_SLUG: 'acme',
      DEFAULT_REPO: 'acme/web:main',
      DATABASE_URL: `sqlite:${join(tmp, 'image.db')}`,
      SCHEDULER_ENABLED: 'false',
    });
    const [cmd, ...args] = instructions(runtime, 'CMD')[0]!.exec!;
    expect(cmd).toBe('node');
    // The base image's node is Node 24; so is the one running this test (the pinned devDependency).
    expect(process.versions.node.split('.')[0]).toBe('24');
    const started = spawnChild(process.execPath, args, { cwd: app, env });
    proc = { ...started, url: await started.listening() };

    const health = await fetch(`${proc.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${proc.url}/readyz`);
    expect(ready.status).toBe(200);

    // The HEALTHCHECK command itself, as Docker would run it inside the container.
    const port = new URL(proc.url).port;
    const [hcCmd, ...hcArgs] = instructions(runtime, 'HEALTHCHECK')[0]!.exec!;
    expect(hcCmd).toBe('node');
    execFileSync(process.execPath, hcArgs, { cwd: app, env: { ...env, PORT: port }, timeout: 5000 });

    // The compiled app does real work: a signed command reads the queue from Trunk and posts its status.
    const responseUrl = slack.responseUrl({ channel: 'C0IMAGE001', user: 'U0IMAGE001' });
    const body = slashCommandBody({
      teamId: 'T0IMAGE001',
      userId: 'U0IMAGE001',
      channelId: 'C0IMAGE001',
      text: 'status',
      responseUrl,
    });
    const res = await fetch(`${proc.url}/slack/events`, {
      method: 'POST',
      headers: { ...signedHeaders(signingSecret, body) },
      body,
    });
    expect(res.status).toBe(200);
    const posted = await slack.waitFor(
      () => slack.callsTo('chat.postMessage').find((c) => JSON.stringify(c.args).includes('acme/web')),
      10_000,
    );
    expect(posted.status).toBe(200);
    expect(trunk.requests.some((r) => r.operation === 'getQueue' && r.status === 200)).toBe(true);

    proc.child.kill('SIGTERM');
    expect(await proc.exited).toBe(0);

    // Without NODE_ENV=production and without Slack variables, the image's entry would be in sandbox mode:
    // it has no sandbox to load, and says so in one line instead of a module-not-found stack trace.
    const bare = spawnSync(process.execPath, args, {
      cwd: app,
      env: { PATH: process.env['PATH'] ?? '', PORT: '0' },
      encoding: 'utf8',
      timeout: 15_000,
    });
    expect(bare.status, bare.stderr).toBe(1);
    expect(bare.stderr).toContain('has no dev/sandbox/');
    expect(bare.stderr).toContain('Set the Slack variables');
    expect(bare.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
  }, 240_000);
});
