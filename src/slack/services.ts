/**
 * The application services for this app's deps, built once per deps object (app.ts builds one SlackDeps
 * per app): the store, the workspaces' Trunk access and the deployment's defaults, handed over as ports.
 */
import { createServices, type Services } from '../services/index.ts';
import type { SlackDeps } from './deps.ts';

const built = new WeakMap<SlackDeps, Services>();

export function servicesOf(deps: SlackDeps): Services {
  let services = built.get(deps);
  if (!services) {
    services = createServices({
      store: deps.store,
      trunk: deps.workspaces,
      logger: deps.logger,
      webhooks: webhookSecretsOf(deps),
      defaults: () => ({
        defaultTarget: deps.config.defaultTarget,
        mode: deps.config.slack.mode,
        hasEnvTrunkToken: Boolean(deps.config.trunk.token),
        envOrgSlug: deps.config.trunk.orgSlug,
        canStoreSecrets: deps.config.encryptionKeys.length > 0,
        auditRetentionDays: deps.config.auditRetentionDays,
        trunkAppUrl: deps.config.trunk.appUrl,
      }),
    });
    built.set(deps, services);
  }
  return services;
}

/**
 * Where Trunk's webhook signing secrets are: TRUNK_WEBHOOK_SECRET in single-workspace mode, and those
 * entered in `connect` (stored encrypted with the workspace's settings).
 */
function webhookSecretsOf(deps: SlackDeps) {
  return {
    hasWebhookSecret: async (workspaceId: string) =>
      (deps.config.slack.mode === 'single' && (deps.config.trunk.webhookSecrets?.length ?? 0) > 0) ||
      (await deps.store.getWorkspace(workspaceId))?.hasTrunkWebhookSecrets === true,
  };
}
