/**
 * Validates what the app sends to Slack: the community Block Kit JSON Schema (TightknitAI/slack-block-kit-validator,
 * MIT licence; a copy in test/fixtures, see its README) plus the limits the schema does not enforce, as Slack
 * documents them: 50 blocks a message, 100 a modal, section text 3000, header 150,
 * button text 75, button value 2000, action_id/block_id 255, unique block ids.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const here = dirname(fileURLToPath(import.meta.url));
const schemaPath = join(here, '../fixtures/slack-block-kit.schema.json');
if (!existsSync(schemaPath)) throw new Error(`Block Kit schema not found at ${schemaPath}`);
const schema = JSON.parse(readFileSync(schemaPath, 'utf8')) as { $id: string };

const ajv = new Ajv2020({ allErrors: true, strict: false });
// ajv-formats ships CommonJS; its default export is the function under ESM interop in some set-ups.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  a: Ajv2020,
) => void;
addFormats(ajv);
ajv.addSchema(schema);
const blocksValidator = ajv.getSchema(schema.$id) as ValidateFunction;
const modalValidator = ajv.compile({ $ref: `${schema.$id}#/$defs/modal_view` });
const homeValidator = ajv.compile({ $ref: `${schema.$id}#/$defs/home_view` });

export const SLACK_LIMITS = {
  messageBlocks: 50,
  modalBlocks: 100,
  homeBlocks: 100,
  sectionText: 3000,
  headerText: 150,
  buttonText: 75,
  buttonValue: 2000,
  id: 255,
} as const;

function describe(v: ValidateFunction): string {
  return (v.errors ?? [])
    .slice(0, 8)
    .map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`)
    .join('\n');
}

/** Limits checked by walking every object in the payload, wherever it sits. */
export function limitProblems(root: unknown): string[] {
  const problems: string[] = [];
  const blockIds = new Set<string>();
  const walk = (node: unknown, path: string): void => {
    if (Array.isArray(node)) {
      for (const [i, n] of node.entries()) walk(n, `${path}[${i}]`);
      return;
    }
    if (typeof node !== 'object' || node === null) return;
    const o = node as Record<string, unknown>;
    const text = (o.text as { text?: unknown } | undefined)?.text;
    if (o.type === 'section' && typeof text === 'string' && text.length > SLACK_LIMITS.sectionText)
      problems.push(`${path}: section text ${text.length} > ${SLACK_LIMITS.sectionText}`);
    if (o.type === 'header' && typeof text === 'string' && text.length > SLACK_LIMITS.headerText)
      problems.push(`${path}: header text ${text.length} > ${SLACK_LIMITS.headerText}`);
    if (o.type === 'button') {
      if (typeof text === 'string' && text.length > SLACK_LIMITS.buttonText)
        problems.push(`${path}: button text ${text.length} > ${SLACK_LIMITS.buttonText}`);
      if (typeof o.value === 'string' && o.value.length > SLACK_LIMITS.buttonValue)
        problems.push(`${path}: button value ${o.value.length} > ${SLACK_LIMITS.buttonValue}`);
    }
    for (const k of ['action_id', 'block_id'] as const) {
      const id = o[k];
      if (typeof id === 'string' && (id.length === 0 || id.length > SLACK_LIMITS.id))
        problems.push(`${path}: ${k} length ${id.length} not in 1..${SLACK_LIMITS.id}`);
    }
    if (typeof o.block_id === 'string') {
      if (blockIds.has(o.block_id)) problems.push(`${path}: duplicate block_id ${o.block_id}`);
      blockIds.add(o.block_id);
    }
    for (const [k, v] of Object.entries(o)) walk(v, `${path}.${k}`);
  };
  walk(root, '');
  return problems;
}

/**
 * What the schema cannot say of charts (spec/README.md): at most two `data_visualization` blocks a message,
 * unique series names, and every series one point per category, with labels among them.
 */
export function chartProblems(blocks: unknown[]): string[] {
  const problems: string[] = [];
  const charts = blocks.filter((b) => (b as { type?: unknown })?.type === 'data_visualization') as Array<{
    chart?: {
      series?: Array<{ name: string; data: Array<{ label: string }> }>;
      axis_config?: { categories?: string[] };
    };
  }>;
  if (charts.length > 2) problems.push(`${charts.length} data_visualization blocks > 2 per message`);
  for (const [i, c] of charts.entries()) {
    const series = c.chart?.series ?? [];
    const categories = c.chart?.axis_config?.categories;
    if (new Set(series.map((s) => s.name)).size !== series.length)
      problems.push(`chart ${i}: series names repeat`);
    if (!categories) continue;
    for (const s of series) {
      const labels = s.data.map((d) => d.label);
      if (labels.length !== categories.length || labels.some((l, j) => l !== categories[j]))
        problems.push(`chart ${i}: series ${s.name} is not one point per category`);
    }
  }
  return problems;
}

/** Throws with every problem found; returns nothing when the blocks may be posted as a message. */
export function assertValidMessage(blocks: unknown): void {
  if (!Array.isArray(blocks) || blocks.length === 0) throw new Error('a message needs at least one block');
  const problems: string[] = [];
  if (blocks.length > SLACK_LIMITS.messageBlocks)
    problems.push(`${blocks.length} blocks > ${SLACK_LIMITS.messageBlocks} per message`);
  if (!blocksValidator(blocks)) problems.push(`schema:\n${describe(blocksValidator)}`);
  problems.push(...limitProblems(blocks), ...chartProblems(blocks));
  if (problems.length > 0) throw new Error(`invalid Block Kit message:\n${problems.join('\n')}`);
}

/** A reply as handlers return it: fallback text plus valid blocks. */
export function assertValidReply(reply: { text: unknown; blocks?: unknown }): void {
  if (typeof reply.text !== 'string' || reply.text.trim() === '')
    throw new Error('a reply needs fallback text');
  if (reply.text.length > 40_000) throw new Error(`fallback text ${reply.text.length} > 40000`);
  if (reply.blocks !== undefined) assertValidMessage(reply.blocks);
}

export function assertValidModal(view: unknown): void {
  const problems: string[] = [];
  const blocks = (view as { blocks?: unknown[] } | null)?.blocks;
  if (Array.isArray(blocks) && blocks.length > SLACK_LIMITS.modalBlocks)
    problems.push(`${blocks.length} blocks > ${SLACK_LIMITS.modalBlocks} per modal`);
  if (!modalValidator(view)) problems.push(`schema:\n${describe(modalValidator)}`);
  const hasInput = Array.isArray(blocks) && blocks.some((b) => (b as { type?: string }).type === 'input');
  if (hasInput && !(view as { submit?: unknown }).submit)
    problems.push('a modal with inputs needs a submit button');
  problems.push(...limitProblems(view));
  if (problems.length > 0) throw new Error(`invalid modal:\n${problems.join('\n')}`);
}

/** A Home tab view (views.publish): the schema's home_view, at most 100 blocks, and the per-block limits. */
export function assertValidHome(view: unknown): void {
  const problems: string[] = [];
  const blocks = (view as { blocks?: unknown[] } | null)?.blocks;
  if (Array.isArray(blocks) && blocks.length > SLACK_LIMITS.homeBlocks)
    problems.push(`${blocks.length} blocks > ${SLACK_LIMITS.homeBlocks} per Home view`);
  if (!homeValidator(view)) problems.push(`schema:\n${describe(homeValidator)}`);
  problems.push(...limitProblems(view));
  if (problems.length > 0) throw new Error(`invalid Home view:\n${problems.join('\n')}`);
}
