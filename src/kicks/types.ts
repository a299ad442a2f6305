/** The autopilot's settings as plain data (kept by repository.ts, shown by the Slack side). */
import type { KickClass } from './classify.ts';

export interface AutopilotSetting {
  workspaceId: string;
  /** WORKSPACE_WIDE for the workspace's row. */
  queueKey: string;
  /** Undefined on a queue's row: it follows the workspace's. */
  enabled: boolean | undefined;
  classes: KickClass[] | undefined;
  updatedBy: string;
  updatedAt: number;
}

export interface EffectiveAutopilot {
  enabled: boolean;
  classes: KickClass[];
  /** Where each part comes from: this queue's own row, or the workspace's. */
  enabledFrom: 'queue' | 'workspace';
  classesFrom: 'queue' | 'workspace';
}
