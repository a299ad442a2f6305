/** The app's Workflow Builder steps (custom functions, manifest.yml `functions`), one register for all. */
import type { App } from '@slack/bolt';
import type { SlackDeps } from '../../deps.ts';
import * as prSteps from './pr-steps.ts';
import * as queueSteps from './queue-steps.ts';
import * as unknownStep from './unknown-step.ts';
import * as waitForPr from './wait-for-pr.ts';

export function register(app: App, deps: SlackDeps): void {
  for (const m of [queueSteps, prSteps, waitForPr, unknownStep]) m.register(app, deps);
}
