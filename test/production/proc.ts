/** Child processes for the production tests: start, wait for the listening line, collect output, stop. */
import { type ChildProcess, spawn } from 'node:child_process';

export interface Proc {
  child: ChildProcess;
  url: string;
  output(): string;
  /** Resolves with the exit code (or signal name) once the process has exited. */
  exited: Promise<number | string>;
}

/** Starts `cmd args` and resolves once it logs `"url":"http://…"` (the app's listening line). */
export async function startProcess(
  cmd: string,
  args: string[],
  opts: { cwd: string; env: Record<string, string>; timeoutMs?: number },
): Promise<Proc> {
  const child = spawn(cmd, args, {
    cwd: opts.cwd,
    env: { PATH: process.env['PATH'] ?? '', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (c: Buffer) => {
    out += c.toString();
  });
  child.stderr?.on('data', (c: Buffer) => {
    out += c.toString();
  });
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? signal ?? -1));
  });
  const timeoutMs = opts.timeoutMs ?? 20_000;
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      clearInterval(poll);
      child.kill('SIGKILL');
      reject(new Error(`process did not start within ${timeoutMs} ms:\n${out}`));
    }, timeoutMs);
    const poll = setInterval(() => {
      const m = /"url":"(http:\/\/[^"]+)"/.exec(out);
      if (m) {
        clearTimeout(timer);
        clearInterval(poll);
        resolve(m[1]!);
      }
    }, 20);
    void exited.then((code) => {
      clearTimeout(timer);
      clearInterval(poll);
      reject(new Error(`process exited with ${code} before listening:\n${out}`));
    });
  });
  return { child, url, output: () => out, exited };
}

/** SIGKILL if still running (test clean-up). */
export async function killProcess(p: Proc | undefined): Promise<void> {
  if (!p || p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.child.kill('SIGKILL');
  await p.exited;
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

/** The repository root. */
export const ROOT = new URL('../../', import.meta.url).pathname.replace(/\/$/, '');
