/** Every listener of the app, registered on one Bolt App, after the middleware that builds each request's context. */
import type { App } from '@slack/bolt';
import { type RequestContext, requestContext } from '../context.ts';
import type { SlackDeps } from '../deps.ts';
import * as concurrencyButtons from './actions/concurrency.ts';
import * as homeConnectButton from './actions/connect.ts';
import * as linkButtons from './actions/links.ts';
import * as prButtons from './actions/pr-buttons.ts';
import * as refreshButton from './actions/refresh.ts';
import * as settingsButton from './actions/settings.ts';
import * as stateButtons from './actions/state.ts';
import * as testButtons from './actions/test-buttons.ts';
import * as mergequeue from './commands/mergequeue.ts';
import * as homeTab from './events/home.ts';
import * as linkUnfurls from './events/unfurl.ts';
import * as uninstall from './events/uninstall.ts';
import * as workflowSteps from './functions/index.ts';
import * as connectView from './views/connect.ts';
import * as prCancelView from './views/pr-cancel.ts';
import * as reasonView from './views/reason.ts';
import * as settingsView from './views/settings.ts';
import * as testTicketView from './views/test-ticket.ts';

export function registerListeners(app: App, deps: SlackDeps): void {
  // One context per request (actor, services, reply), built before any listener runs.
  app.use<RequestContext>(requestContext(deps));
  for (const m of [
    mergequeue,
    stateButtons,
    concurrencyButtons,
    refreshButton,
    settingsButton,
    linkButtons,
    prButtons,
    homeConnectButton,
    settingsView,
    prCancelView,
    reasonView,
    connectView,
    uninstall,
    homeTab,
    testButtons,
    testTicketView,
    linkUnfurls,
    workflowSteps,
  ]) {
    m.register(app, deps);
  }
}
