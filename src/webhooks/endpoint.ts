/** Where Trunk sends a workspace's webhooks (DESIGN's HTTP list): shown by `connect`, served by src/http/. */
export const TRUNK_WEBHOOKS_PATH = '/trunk/webhooks';

/** The endpoint's path for a workspace (its Slack team id, or the enterprise id of an org-wide install). */
export function webhookPath(workspaceId: string): string {
  return `${TRUNK_WEBHOOKS_PATH}/${workspaceId}`;
}
