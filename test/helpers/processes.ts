/**
 * Child processes for every test and benchmark that runs the app (or the sandbox, or the built image) as a
 * separate process: start, collect output, wait until it listens, stop. Each child gets its own process
 * group, because `npm start` runs node under npm: stopping signals the whole group and waits until every
 * member is gone, so no app outlives its test whichever way it was started.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export interface Child {
  child: ChildProcess;
  /** stdout and stderr so far, interleaved. */
  output(): string;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or the signal's name) once the process has exited. */
  exited: Promise<number | string>;
  /** undefined while it runs. */
  exitCode(): number | string | undefined;
  /** Resolves with the first match of `pattern` in stdout (default: the app's `"url":"http://…"`). */
  listening(opts?: { timeoutMs?: number; pattern?: RegExp }): Promise<string>;
  /** SIGTERM to the process group, SIGKILL after `timeoutMs`; resolves with the exit code. */
  stop(timeoutMs?: number): Promise<number | string>;
}

/** The app's listening log line, `{"url":"http://127.0.0.1:PORT",…}`. */
export const LISTENING = /"url":"(http:\/\/[^"]+)"/;

/** Starts `command args`; env is all it gets besides PATH (a test says what the process may see). */
export function spawnChild(
  command: string,
  args: string[],
  opts: { env: Record<string, string>; cwd?: string },
): Child {
  const child = spawn(command, args, {
    cwd: opts.cwd ?? ROOT,
    env: { PATH: process.env['PATH'] ?? '', ...opts.env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let stdout = '';
  let stderr = '';
  // `out` interleaves the two streams by whole lines: a pipe hands a line over in pieces under load, and a
  // stderr piece landing inside a stdout line would break that line for logLines().
  const partial = { stdout: '', stderr: '' };
  const toOut = (stream: 'stdout' | 'stderr', text: string) => {
    const joined = partial[stream] + text;
    const cut = joined.lastIndexOf('\n') + 1;
    out += joined.slice(0, cut);
    partial[stream] = joined.slice(cut);
  };
  child.stdout?.on('data', (d: Buffer) => {
    toOut('stdout', d.toString());
    stdout += d.toString();
  });
  child.stderr?.on('data', (d: Buffer) => {
    toOut('stderr', d.toString());
    stderr += d.toString();
  });
  let code: number | string | undefined;
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (c, signal) => {
      code = c ?? signal ?? -1;
      resolve(code);
    });
  });
  const signalGroup = (sig: NodeJS.Signals): void => {
    try {
      if (child.pid) process.kill(-child.pid, sig);
    } catch {
      // the group is already gone
    }
  };
  const handle: Child = {
    child,
    output: () => out + partial.stdout + partial.stderr,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    exitCode: () => code,
    async listening({ timeoutMs = 20_000, pattern = LISTENING } = {}) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const m = pattern.exec(stdout);
        if (m) return m[1] ?? m[0];
        if (code !== undefined)
          throw new Error(
            `process exited with ${code} before listening:\n${out + partial.stdout + partial.stderr}`,
          );
        if (Date.now() > deadline) {
          signalGroup('SIGKILL');
          throw new Error(
            `process did not start within ${timeoutMs} ms:\n${out + partial.stdout + partial.stderr}`,
          );
        }
        await sleep(20);
      }
    },
    async stop(timeoutMs = 10_000) {
      const pgid = child.pid;
      if (pgid && groupMembers(pgid).length > 0) signalGroup('SIGTERM');
      const deadline = Date.now() + timeoutMs;
      // npm may exit before node has finished its graceful shutdown: wait for the whole group.
      while (pgid && groupMembers(pgid).length > 0 && Date.now() < deadline) await sleep(50);
      if (pgid && groupMembers(pgid).length > 0) signalGroup('SIGKILL');
      return exited;
    },
  };
  started.set(child, handle);
  return handle;
}

/** Children started here, so stopChild also takes the bare ChildProcess a caller kept. */
const started = new WeakMap<ChildProcess, Child>();

/** `node script` (default src/main.ts) with env; resolves once it logs the URL it listens on. */
export async function startChild(
  env: Record<string, string>,
  opts: { timeoutMs?: number; args?: string[]; script?: string; scriptArgs?: string[] } = {},
): Promise<Child & { url: string }> {
  const script = opts.script ?? join(ROOT, 'src/main.ts');
  const c = spawnChild(process.execPath, [...(opts.args ?? []), script, ...(opts.scriptArgs ?? [])], { env });
  return { ...c, url: await c.listening({ timeoutMs: opts.timeoutMs ?? 15_000 }) };
}

/** Stops a child started here (its handle or its ChildProcess) and resolves with its exit code. */
export function stopChild(c: Child | ChildProcess, timeoutMs?: number): Promise<number | string> {
  const handle = 'stop' in c ? c : started.get(c);
  if (!handle) throw new Error('stopChild: not a process started by test/helpers/processes.ts');
  return handle.stop(timeoutMs);
}

/** Environment a newcomer would have: PATH, HOME, TMPDIR, LANG and only the variables given. */
export function newcomerEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of ['PATH', 'HOME', 'TMPDIR', 'LANG']) {
    const v = process.env[k];
    if (v !== undefined) env[k] = v;
  }
  return { ...env, ...extra };
}

/** Polls the app's /healthz until it answers 200; fails early, with the output, if the process exits. */
export async function waitForHealthy(c: Child & { url: string }, timeoutMs = 40_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (c.exitCode() !== undefined)
      throw new Error(`app exited with ${c.exitCode()} before /healthz answered:\n${c.output()}`);
    try {
      const r = await fetch(`${c.url}/healthz`, { signal: AbortSignal.timeout(1000) });
      if (r.status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(150);
  }
  throw new Error(`app did not answer /healthz within ${timeoutMs} ms:\n${c.output()}`);
}

/** Process ids in a process group (Linux /proc); zombies do not count. */
export function groupMembers(pgid: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid && fields[0] !== 'Z') out.push(Number(name));
    } catch {
      // process gone
    }
  }
  return out;
}

/** The app's node process under `npm start` (same process group, runs main.ts). */
export function nodePidInGroup(pgid: number): number | undefined {
  for (const pid of groupMembers(pgid)) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (/(^|\/)node$/.test(cmd[0] ?? '') && cmd.some((a) => /main\.[tj]s$/.test(a))) return pid;
    } catch {
      // process gone
    }
  }
  return undefined;
}

/** JSON log lines of a process's output (non-JSON lines ignored). */
export function logLines(output: string): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      rows.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // a partial line at the end of the buffer
    }
  }
  return rows;
}

export type NpmApp = Child & { port: number; url: string; signingSecret: string };

/**
 * `npm start` as a newcomer runs it (README), on `port`: the process as the documentation describes it,
 * for the black-box suite. It is also an AppEndpoint for slack-requests.ts, signed with its own secret.
 */
export function npmStart(env: Record<string, string>, port: number): NpmApp {
  const child = spawnChild('npm', ['start'], { env });
  return {
    ...child,
    port,
    url: `http://127.0.0.1:${port}`,
    signingSecret: env['SLACK_SIGNING_SECRET'] ?? '',
  };
}

/** A port free right now on 127.0.0.1, for a process that must be told its port up front. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}
