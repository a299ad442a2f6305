/** The app's Workflow Builder steps (custom functions, manifest.yml `functions`), registered together. */
import type { App } from '@slack/bolt';
import type { SlackDeps } from '../../deps.ts';
import { registerPrSteps } from './pr-steps.ts';
import { registerQueueSteps } from './queue-steps.ts';
import { registerUnknownStep } from './unknown-step.ts';
import { registerWaitForPr } from './wait-for-pr.ts';

export function registerWorkflowSteps(app: App, deps: SlackDeps): void {
  registerQueueSteps(app, deps);
  registerPrSteps(app, deps);
  registerWaitForPr(app, deps);
  registerUnknownStep(app, deps);
}
