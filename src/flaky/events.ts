/**
 * Trunk's flaky-test webhook payloads (spec/trunk-webhooks.md §4), read with zod and tolerant: every field but
 * the test's id may be missing, unknown fields are ignored, statuses are kept as sent (compared upper-cased).
 * A payload this cannot read is undefined (the sink ignores it).
 */
import { z } from 'zod';
import type { TestCaseInfo } from './types.ts';

export const TEST_CASE_EVENT_TYPES = [
  'v2.test_case.status_changed',
  'test_case.monitor_status_changed',
  'test_case.investigation_completed',
  /** v1, legacy (Dec 2024): still sent to endpoints subscribed to it. */
  'test_case.status_changed',
] as const;

const text = z.string().max(20_000).optional().catch(undefined);

const testCaseSchema = z.object({
  id: z.string().min(1).max(200),
  name: text,
  classname: text,
  file_path: text,
  html_url: text,
  codeowners: z.array(z.unknown()).optional().catch(undefined),
  quarantined: z.boolean().optional().catch(undefined),
  quarantine: z.boolean().optional().catch(undefined),
  variant: text,
});

const repositorySchema = z
  .object({ id: text, html_url: text, host: text, owner: text, name: text })
  .optional()
  .catch(undefined);

const statusV2 = z.object({
  previous_status: text,
  new_status: z.string().min(1).max(200),
  repository: repositorySchema,
  test_case: testCaseSchema,
});

const statusV1 = z.object({
  status_change: z.object({
    previous_status: z
      .union([z.string(), z.object({ value: text })])
      .optional()
      .catch(undefined),
    current_status: z.union([z.string().min(1), z.object({ value: z.string().min(1) })]),
  }),
  repository: repositorySchema,
  // The v1 shape as Trunk's own transformations read it names no `id`: it is taken from the test's page.
  test_case: testCaseSchema.extend({ id: text, repository: repositorySchema }),
});

/** The test's id in a Trunk test page's URL (`…/flaky-tests/test/<id>`), when it has one. */
function idFromPage(url: string | undefined): string | undefined {
  const m = /\/test\/([A-Za-z0-9_-]{1,200})(?:[/?#]|$)/.exec(url ?? '');
  return m?.[1];
}

const monitor = z.object({
  monitor: z.object({ type: text, status: text }).optional().catch(undefined),
  repository: repositorySchema,
  test_case: testCaseSchema,
});

const investigation = z.object({
  markdown_summary: z.string().min(1).max(200_000),
  confidence: z.number().optional().catch(undefined),
  repository: repositorySchema,
  test_case: testCaseSchema,
});

export type TestCaseEvent =
  | { kind: 'status'; test: TestCaseInfo; repo?: string; previousStatus?: string; newStatus: string }
  | { kind: 'monitor'; test: TestCaseInfo; repo?: string; monitorType?: string; monitorStatus?: string }
  | { kind: 'investigation'; test: TestCaseInfo; repo?: string; summary: string; confidence?: number };

/** `owner/repo` of a repository URL such as https://github.com/acme/widgets (or {owner, name}). */
export function repoOf(r: z.infer<typeof repositorySchema>): string | undefined {
  if (!r) return undefined;
  if (r.owner && r.name) return `${r.owner}/${r.name}`;
  if (!r.html_url) return undefined;
  try {
    const parts = new URL(r.html_url).pathname.split('/').filter(Boolean);
    return parts.length >= 2 ? `${parts[0]}/${parts[1]!.replace(/\.git$/, '')}` : undefined;
  } catch {
    return undefined;
  }
}

function testOf(t: z.infer<typeof testCaseSchema>): TestCaseInfo {
  const info: TestCaseInfo = {
    id: t.id,
    codeowners: (t.codeowners ?? []).filter((c): c is string => typeof c === 'string' && c.length > 0),
  };
  if (t.name) info.name = t.name;
  if (t.classname) info.classname = t.classname;
  if (t.file_path) info.filePath = t.file_path;
  if (t.html_url && /^https?:\/\//i.test(t.html_url)) info.htmlUrl = t.html_url;
  const q = t.quarantined ?? t.quarantine;
  if (q !== undefined) info.quarantined = q;
  if (t.variant) info.variant = t.variant;
  return info;
}

const statusValue = (s: string | { value?: string | undefined } | undefined) =>
  typeof s === 'string' ? s : s?.value;

/** The event a delivery carries, or undefined when its type is not a test event or it cannot be read. */
export function readTestCaseEvent(type: string, payload: unknown): TestCaseEvent | undefined {
  switch (type) {
    case 'v2.test_case.status_changed': {
      const p = statusV2.safeParse(payload);
      if (!p.success) return undefined;
      const repo = repoOf(p.data.repository);
      return {
        kind: 'status',
        test: testOf(p.data.test_case),
        newStatus: p.data.new_status,
        ...(p.data.previous_status ? { previousStatus: p.data.previous_status } : {}),
        ...(repo ? { repo } : {}),
      };
    }
    case 'test_case.status_changed': {
      const p = statusV1.safeParse(payload);
      if (!p.success) return undefined;
      const id = p.data.test_case.id || idFromPage(p.data.test_case.html_url);
      if (!id) return undefined;
      const repo = repoOf(p.data.repository ?? p.data.test_case.repository);
      const previous = statusValue(p.data.status_change.previous_status);
      return {
        kind: 'status',
        test: testOf({ ...p.data.test_case, id }),
        newStatus: statusValue(p.data.status_change.current_status)!,
        ...(previous ? { previousStatus: previous } : {}),
        ...(repo ? { repo } : {}),
      };
    }
    case 'test_case.monitor_status_changed': {
      const p = monitor.safeParse(payload);
      if (!p.success) return undefined;
      const repo = repoOf(p.data.repository);
      return {
        kind: 'monitor',
        test: testOf(p.data.test_case),
        ...(p.data.monitor?.type ? { monitorType: p.data.monitor.type } : {}),
        ...(p.data.monitor?.status ? { monitorStatus: p.data.monitor.status } : {}),
        ...(repo ? { repo } : {}),
      };
    }
    case 'test_case.investigation_completed': {
      const p = investigation.safeParse(payload);
      if (!p.success) return undefined;
      const repo = repoOf(p.data.repository);
      return {
        kind: 'investigation',
        test: testOf(p.data.test_case),
        summary: p.data.markdown_summary,
        ...(p.data.confidence !== undefined ? { confidence: p.data.confidence } : {}),
        ...(repo ? { repo } : {}),
      };
    }
    default:
      return undefined;
  }
}
