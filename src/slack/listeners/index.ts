/** Every listener of the app, registered on one Bolt App, after the middleware that builds each request's context. */
import type { App } from '@slack/bolt';
import { type RequestContext, requestContext } from '../context.ts';
import type { SlackDeps } from '../deps.ts';
import { registerConcurrencyButtons } from './actions/concurrency.ts';
import { registerHomeConnectButton } from './actions/connect.ts';
import { registerLinkButtons } from './actions/links.ts';
import { registerPrButtons } from './actions/pr-buttons.ts';
import { registerRefreshButton } from './actions/refresh.ts';
import { registerSettingsButton } from './actions/settings.ts';
import { registerStateButtons } from './actions/state.ts';
import { registerTestButtons } from './actions/test-buttons.ts';
import { registerMergequeue } from './commands/mergequeue.ts';
import { registerHomeTab } from './events/home.ts';
import { registerLinkUnfurls } from './events/unfurl.ts';
import { registerUninstall } from './events/uninstall.ts';
import { registerWorkflowSteps } from './functions/index.ts';
import { registerConnectView } from './views/connect.ts';
import { registerPrCancelView } from './views/pr-cancel.ts';
import { registerReasonView } from './views/reason.ts';
import { registerSettingsView } from './views/settings.ts';
import { registerTestTicketView } from './views/test-ticket.ts';

export function registerListeners(app: App, deps: SlackDeps): void {
  // One context per request (actor, services, reply), built before any listener runs.
  app.use<RequestContext>(requestContext(deps));
  registerMergequeue(app, deps);
  registerStateButtons(app, deps);
  registerConcurrencyButtons(app, deps);
  registerRefreshButton(app, deps);
  registerSettingsButton(app, deps);
  registerLinkButtons(app, deps);
  registerPrButtons(app, deps);
  registerHomeConnectButton(app, deps);
  registerSettingsView(app, deps);
  registerPrCancelView(app, deps);
  registerReasonView(app, deps);
  registerConnectView(app, deps);
  registerUninstall(app, deps);
  registerHomeTab(app, deps);
  registerTestButtons(app, deps);
  registerTestTicketView(app, deps);
  registerLinkUnfurls(app, deps);
  registerWorkflowSteps(app, deps);
}
