/**
 * Starts `npm start`'s code path as a child process with no Slack configuration (so it opens the sandbox),
 * and a headless Chromium (Debian's, driven by playwright-core) with a fresh profile.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { type Child, ROOT, spawnChild } from '../../helpers/processes.ts';

export const ARTIFACTS = join(ROOT, 'test-artifacts', 'sandbox');
export const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

/** In CI the browser must be there (.ci/run installs it); elsewhere the suite is skipped with a notice. */
export function browserAvailable(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.env['CI'] === 'true') throw new Error(`Chromium not found at ${CHROMIUM}; .ci/run installs it`);
  console.warn(`[sandbox] SKIPPED browser tests: no Chromium at ${CHROMIUM} (apt-get install -y chromium)`);
  return false;
}

export type SandboxProcess = Child & { url: string };

/** `node src/main.ts` with every Slack, Trunk and database variable removed. */
export async function startSandboxProcess(
  extraEnv: Record<string, string> = {},
  /** How long it may take to listen (a busy machine reads the seeded history back slower); default 20 s. */
  timeoutMs = 20_000,
): Promise<SandboxProcess> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined) continue;
    if (/^(SLACK_|TRUNK_|DATABASE_URL|ENCRYPTION_KEY|DEFAULT_REPO|PORT$|SANDBOX_)/.test(k)) continue;
    env[k] = v;
  }
  // The story moves only when a test clicks "Move the queues", so every run sees the same thing.
  Object.assign(env, { PORT: '0', LOG_LEVEL: 'info', SANDBOX_ACTIVITY_SECONDS: '0', ...extraEnv });
  const child = spawnChild(process.execPath, ['src/main.ts'], { env });
  // The sandbox logs the page to open; the first listening line is the bare server's.
  return {
    ...child,
    url: await child.listening({ timeoutMs, pattern: /"url":"(http:\/\/[^"]+\/sandbox)"/ }),
  };
}

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'mq-sandbox-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
    viewport: { width: 1280, height: 860 },
    timezoneId: 'Europe/Berlin',
    locale: 'en-US',
  });
  return {
    context,
    close: async () => {
      await context.close().catch(() => undefined);
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Screenshots of the previous run are removed so the folder shows this run only. */
export function clearArtifacts(): void {
  rmSync(ARTIFACTS, { recursive: true, force: true });
  mkdirSync(ARTIFACTS, { recursive: true });
}

export function artifactPath(name: string): string {
  mkdirSync(ARTIFACTS, { recursive: true });
  return join(ARTIFACTS, name);
}
