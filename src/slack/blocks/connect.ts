/**
 * The connect modal (Trunk API token, org slug, optional default repository) and its parser. The token field
 * is never prefilled and never echoed back: a stored token cannot be read out through Slack.
 */
import type { KnownBlock, ModalView } from '@slack/types';
import { formatTargetSpec, parseTarget, type TargetSpec } from '../../core/target.ts';
import { splitWebhookSecrets, webhookSecretsProblem } from '../../core/webhook-secrets.ts';
import type { ConnectInput } from '../../workspace/config.ts';
import { escTrim } from './format.ts';
import { CALLBACKS } from './ids.ts';
import { context, plain } from './kit.ts';
import { INPUT_ACTION, type SubmissionValues } from './settings.ts';

export const CONNECT_BLOCKS = {
  token: 'token',
  orgSlug: 'orgSlug',
  defaultRepo: 'defaultRepo',
  v2Key: 'v2Key',
  webhookSecrets: 'webhookSecrets',
} as const;

/** What to type in the v2 key field to remove a stored key. */
export const REMOVE_V2_KEY = 'remove';

export function buildConnectModal(
  current: {
    orgSlug?: string;
    defaultTarget?: TargetSpec;
    hasToken?: boolean;
    hasV2Key?: boolean;
    hasWebhookSecrets?: boolean;
  } = {},
): ModalView {
  const webhookSecrets: KnownBlock = {
    type: 'input',
    block_id: CONNECT_BLOCKS.webhookSecrets,
    label: plain('Trunk webhook signing secrets (optional)', 100),
    hint: plain(
      current.hasWebhookSecrets
        ? `Secrets are stored: leave empty to keep them, paste the full list (one per line or comma-separated) to replace them, or type "${REMOVE_V2_KEY}".`
        : "whsec_…, from each Trunk webhook endpoint's page (Merge Queue and Flaky Tests each have one), one per line: queue events then reach Slack within seconds.",
      300,
    ),
    optional: true,
    element: { type: 'plain_text_input', action_id: INPUT_ACTION, multiline: true, max_length: 2000 },
  };
  const v2Key: KnownBlock = {
    type: 'input',
    block_id: CONNECT_BLOCKS.v2Key,
    label: plain('Trunk v2 API key (optional)', 100),
    hint: plain(
      current.hasV2Key
        ? `A v2 key is stored: leave empty to keep it, paste a new one to replace it, or type "${REMOVE_V2_KEY}". It lets /mergequeue why and eta say why a PR was kicked and when it will merge.`
        : 'trunk_v2_…, from Trunk → Settings → Developer → API Keys (an org admin creates it). It lets /mergequeue why and eta say why a PR was kicked and when it will merge.',
      300,
    ),
    optional: true,
    element: { type: 'plain_text_input', action_id: INPUT_ACTION, max_length: 1100 },
  };
  const slug: KnownBlock = {
    type: 'input',
    block_id: CONNECT_BLOCKS.orgSlug,
    label: plain('Organization slug', 100),
    hint: plain('Trunk → Settings → Organization: the slug in your Trunk URLs.', 200),
    element: {
      type: 'plain_text_input',
      action_id: INPUT_ACTION,
      max_length: 200,
      ...(current.orgSlug ? { initial_value: current.orgSlug } : {}),
    },
  };
  const repo: KnownBlock = {
    type: 'input',
    block_id: CONNECT_BLOCKS.defaultRepo,
    label: plain('Default queue (optional)', 100),
    hint: plain(
      'owner/repo or owner/repo:branch, used when a command names none. The token is checked against it.',
      200,
    ),
    optional: true,
    element: {
      type: 'plain_text_input',
      action_id: INPUT_ACTION,
      max_length: 400,
      placeholder: plain('acme/web:main', 150),
      ...(current.defaultTarget?.repo ? { initial_value: formatTargetSpec(current.defaultTarget) } : {}),
    },
  };
  return {
    type: 'modal',
    callback_id: CALLBACKS.connect,
    title: plain('Connect Trunk', 24),
    submit: plain('Save', 24),
    close: plain('Cancel', 24),
    blocks: [
      context(
        current.hasToken
          ? 'A token is stored already; saving replaces it. It is kept encrypted and never shown again.'
          : 'The token is kept encrypted and never shown again.',
      ),
      {
        type: 'input',
        block_id: CONNECT_BLOCKS.token,
        label: plain('Trunk API token', 100),
        hint: plain('Trunk → Settings → Organization → API token.', 200),
        element: { type: 'plain_text_input', action_id: INPUT_ACTION, min_length: 8, max_length: 500 },
      },
      slug,
      repo,
      v2Key,
      webhookSecrets,
    ],
  };
}

export type ConnectSubmission =
  | { ok: true; input: ConnectInput }
  | { ok: false; errors: Record<string, string> };

export function parseConnectSubmission(values: SubmissionValues): ConnectSubmission {
  const get = (b: string) => values?.[b]?.[INPUT_ACTION]?.value?.trim() ?? '';
  const errors: Record<string, string> = {};
  const token = get(CONNECT_BLOCKS.token);
  const orgSlug = get(CONNECT_BLOCKS.orgSlug);
  const repoText = get(CONNECT_BLOCKS.defaultRepo);
  const v2Text = get(CONNECT_BLOCKS.v2Key);
  const secretsText = get(CONNECT_BLOCKS.webhookSecrets);
  if (!token) errors[CONNECT_BLOCKS.token] = 'Paste the API token from Trunk.';
  else if (token.length < 8 || token.length > 500 || /\s/.test(token))
    errors[CONNECT_BLOCKS.token] = 'That does not look like a Trunk API token (no spaces, 8–500 characters).';
  if (!/^[A-Za-z0-9_.-]{1,200}$/.test(orgSlug))
    errors[CONNECT_BLOCKS.orgSlug] = 'Enter the organization slug: letters, digits, "-", "_" and "." only.';
  let defaultTarget: TargetSpec | undefined;
  if (repoText) {
    const t = parseTarget(repoText);
    if (!t.ok) errors[CONNECT_BLOCKS.defaultRepo] = escTrim(t.error, 300);
    else if (!t.value.repo)
      errors[CONNECT_BLOCKS.defaultRepo] = 'Name a repository, like acme/web or acme/web:main.';
    else defaultTarget = t.value;
  }
  let v2Key: string | null | undefined;
  if (v2Text.toLowerCase() === REMOVE_V2_KEY) v2Key = null;
  else if (v2Text) {
    if (!/^trunk_v2_\S{1,1000}$/.test(v2Text))
      errors[CONNECT_BLOCKS.v2Key] =
        `That is not a Trunk v2 API key: it starts with trunk_v2_ (Trunk → Settings → Developer → API Keys). Leave it empty to skip, or type "${REMOVE_V2_KEY}".`;
    else v2Key = v2Text;
  }
  let webhookSecrets: string[] | null | undefined;
  if (secretsText.toLowerCase() === REMOVE_V2_KEY) webhookSecrets = null;
  else if (secretsText) {
    const list = splitWebhookSecrets(secretsText);
    const problem = webhookSecretsProblem(list);
    if (problem)
      errors[CONNECT_BLOCKS.webhookSecrets] =
        `${problem[0]?.toUpperCase()}${problem.slice(1)}. Leave it empty to skip, or type "${REMOVE_V2_KEY}".`;
    else webhookSecrets = list;
  }
  if (Object.keys(errors).length > 0) return { ok: false, errors };
  const input: ConnectInput = { token, orgSlug };
  if (defaultTarget) input.defaultTarget = defaultTarget;
  if (v2Key !== undefined) input.v2Key = v2Key;
  if (webhookSecrets !== undefined) input.webhookSecrets = webhookSecrets;
  return { ok: true, input };
}
