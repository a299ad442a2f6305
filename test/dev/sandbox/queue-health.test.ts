/**
 * How the queue is doing, in the sandbox in a real browser (issue 28): the sandbox's fake Trunk has weeks
 * of history (acme/api:main's last hours slow), so `stats` draws its two charts, the channel hears that
 * acme/api:main turned slow, a health digest posts, and `dashboard` makes the channel's canvas. The
 * README's picture of "How is the queue doing?" is taken here (docs/queue-health.png; UPDATE_SCREENSHOTS=1
 * replaces it).
 */
import { copyFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../helpers/processes.ts';
import {
  artifactPath,
  type Browser,
  browserAvailable,
  launchBrowser,
  type SandboxProcess,
  startSandboxProcess,
} from './launch.ts';

const available = browserAvailable();

describe.skipIf(!available)('queue health in the sandbox', () => {
  let sandbox: SandboxProcess;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  const send = async (text: string) => {
    await page.fill('#command', text);
    await page.press('#command', 'Enter');
  };
  const channel = () => page.locator('#messages > .msg');

  beforeAll(async () => {
    [sandbox, browser] = await Promise.all([startSandboxProcess({}, 90_000), launchBrowser()]);
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    await page.goto(sandbox.url);
    await page.waitForSelector('body[data-ready="true"]');
    await page.check('input[name=who][value=operator]');
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await sandbox?.stop();
  });

  it('says the queue turned slow, with the figures', async () => {
    const slow = channel().filter({ hasText: 'acme/api:main is slow' }).last();
    await slow.waitFor({ timeout: 90_000 });
    expect(await slow.innerText()).toMatch(/median time in queue .+ over the last 6 h/);
  }, 100_000);

  it('answers `stats` with its figures and draws both charts', async () => {
    await send('stats acme/web:main');
    const stats = channel().filter({ hasText: 'How acme/web:main did' }).last();
    await stats.locator('[data-chart="line"]').waitFor({ timeout: 30_000 });
    expect(await stats.locator('[data-chart="bar"] rect').count()).toBeGreaterThan(7);
    expect(await stats.innerText()).toContain('Merged:');
    await stats.scrollIntoViewIfNeeded();
    const path = artifactPath('queue-health.png');
    await page.screenshot({ path });
    const docs = join(ROOT, 'docs', 'queue-health.png');
    if (!existsSync(docs) || process.env['UPDATE_SCREENSHOTS'] === '1') copyFileSync(path, docs);
  }, 40_000);

  it('posts a health digest', async () => {
    await send('digest add health acme/web:main 09:00 weekly');
    await channel().filter({ hasText: 'Added digest' }).last().waitFor();
    await page.click('#run-digest');
    const digest = channel().filter({ hasText: 'Queue health · acme/web:main' }).last();
    await digest.waitFor({ timeout: 30_000 });
    expect(await digest.locator('[data-chart="bar"]').count()).toBe(1);
    await page.screenshot({ path: artifactPath('health-digest.png') });
  }, 40_000);

  it('makes a dashboard canvas that shows the queue', async () => {
    await send('dashboard');
    await channel().filter({ hasText: 'started a dashboard of' }).last().waitFor({ timeout: 20_000 });
    await page.click('#nav-canvas');
    const canvas = page.locator('#canvas-body .canvas').first();
    await canvas.getByText('PRs in order').waitFor({ timeout: 20_000 });
    expect(await canvas.innerText()).toContain('Merge queue acme/web:main');
    await page.screenshot({ path: artifactPath('dashboard.png') });
    expect(pageErrors).toEqual([]);
  }, 40_000);
});
