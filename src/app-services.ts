/**
 * The composition root's half of the Slack side: the application services, built once and eagerly from the
 * store, the workspaces' Trunk access and the deployment's configuration (no service locator), and the
 * narrow ports the Slack side is handed instead of the whole `Store` and `Config` (src/slack/ports.ts).
 * app.ts calls it once per app.
 */
import type { Config } from './config.ts';
import type { Logger } from './observability/log.ts';
import type { Metrics } from './observability/metrics.ts';
import { createActor } from './services/actor.ts';
import { createServices, type Services } from './services/index.ts';
import type { TrunkAccess } from './services/ports.ts';
import type { ActorFactory, InstalledTokens, SlackSettings } from './slack/ports.ts';
import type { AuditLost } from './store/audit-retrying.ts';
import type { Store } from './store/types.ts';

export interface SlackSide {
  services: Services;
  settings: SlackSettings;
  actors: ActorFactory;
  tokens: InstalledTokens;
}

export function buildSlackSide(o: {
  config: Config;
  store: Store;
  trunk: TrunkAccess;
  logger: Logger;
  metrics: Metrics;
  now: () => number;
}): SlackSide {
  const { config, store, logger } = o;
  const services = createServices({
    store,
    trunk: o.trunk,
    logger,
    webhooks: {
      // TRUNK_WEBHOOK_SECRET in single-workspace mode, and those entered in `connect` (stored encrypted).
      hasWebhookSecret: async (workspaceId: string) =>
        (config.slack.mode === 'single' && (config.trunk.webhookSecrets?.length ?? 0) > 0) ||
        (await store.getWorkspace(workspaceId))?.hasTrunkWebhookSecrets === true,
    },
    defaults: () => ({
      defaultTarget: config.defaultTarget,
      mode: config.slack.mode,
      hasEnvTrunkToken: Boolean(config.trunk.token),
      envOrgSlug: config.trunk.orgSlug,
      canStoreSecrets: config.encryptionKeys.length > 0,
      auditRetentionDays: config.auditRetentionDays,
      trunkAppUrl: config.trunk.appUrl,
    }),
  });
  const auditLost = auditLostSink(o.logger, o.metrics);
  return {
    services,
    settings: {
      mode: config.slack.mode === 'oauth' ? 'oauth' : 'single',
      apiUrl: config.slack.apiUrl,
      trunkAppUrl: config.trunk.appUrl,
    },
    actors: (a) => createActor({ ...a, now: o.now, store, auditLost }),
    tokens: {
      botUserId: (workspaceId) => store.installations.botUserId(workspaceId),
      revokeUserTokens: (workspaceId, users) => store.installations.revokeUserTokens(workspaceId, users),
      deleteBotData: (workspaceId) => store.deleteBotData(workspaceId),
    },
  };
}

/** An audit entry lost after its retries: logged at error and counted; the change it records stands. */
function auditLostSink(logger: Logger, metrics: Metrics): AuditLost {
  return (err, entry) => {
    metrics.auditFailures.inc({ action: entry.action });
    logger.error(
      {
        err,
        audit: {
          workspaceId: entry.workspaceId,
          userId: entry.userId,
          action: entry.action,
          target: entry.target,
          outcome: entry.outcome,
        },
      },
      'audit entry lost: the store refused it after retries (the change itself was applied)',
    );
  };
}
