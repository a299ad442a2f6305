/**
 * Flaky tests in the fake's v2 (newer docs' `/v2/tests…`): a test read with its metrics, its quarantine
 * override set or cleared (403 INSUFFICIENT_PERMISSIONS naming "Quarantine tests" when the key was not given
 * it), a ticket linked by key or URL. Tests are what a test sets (`set`); every write is kept (`writes`) so a
 * test can check what Trunk was asked. Shapes follow the OpenAPI subset's Test, Ticket and request schemas.
 */

export const QUARANTINE_PERMISSION = 'Quarantine tests';

export interface FakeTest {
  id: string;
  name: string;
  testCollectionId?: string;
  repositoryId?: string;
  status?: 'healthy' | 'flaky' | 'broken';
  codeowners?: string[];
  failureRate?: number;
  runCount?: number;
  failureCount?: number;
  quarantined?: boolean;
  /** The override set through the API (alwaysQuarantine / neverQuarantine), undefined when cleared. */
  override?: { mode: string; reason: string | null; createdAt: string };
  ticket?: Record<string, unknown>;
}

export interface TestWrite {
  kind: 'quarantine' | 'ticket';
  testId: string;
  body: Record<string, unknown>;
  key: string;
}

type Reply = { status: number; json: unknown };

const err = (status: number, code: string, message: string): Reply => ({
  status,
  json: { error: { code, message } },
});

const MODES = ['alwaysQuarantine', 'neverQuarantine', 'clear'];

/** A ticket key (`PAY-123`) or URL the fake's ticketing "knows": anything but keys starting with `NOPE-`. */
function ticketOf(ref: string, now: string): Record<string, unknown> | undefined {
  const key = /^[A-Z][A-Z0-9]+-\d+$/.test(ref) ? ref : /\/([A-Z][A-Z0-9]+-\d+)\/?$/.exec(ref)?.[1];
  if (!key || key.startsWith('NOPE-')) return undefined;
  return {
    id: `5d4c3b2a-1f0e-4a1b-8c9d-${key.length.toString().padStart(12, '0')}`,
    provider: 'jiraCloud',
    key,
    url: ref.startsWith('https://') ? ref : `https://acme.atlassian.net/browse/${key}`,
    title: `[Flaky Test] ${key}`,
    status: 'To Do',
    assignee: null,
    syncedAt: now,
  };
}

export class V2Tests {
  readonly tests = new Map<string, FakeTest>();
  readonly writes: TestWrite[] = [];
  /** The ticketing connection's state: 'ok', or the 409/502/504 a link gets. */
  ticketing: 'ok' | 'not_configured' | 'upstream_error' | 'timeout' = 'ok';
  private readonly now: () => number;

  constructor(now: () => number) {
    this.now = now;
  }

  set(test: FakeTest): void {
    this.tests.set(test.id, { ...test });
  }

  reset(): void {
    this.tests.clear();
    this.writes.length = 0;
    this.ticketing = 'ok';
  }

  view(t: FakeTest, metrics: boolean) {
    return {
      id: t.id,
      testCollectionId: t.testCollectionId ?? 'aB3xY9kQ',
      repositoryId: t.repositoryId ?? '7a2b3c4d-5e6f-4a1b-8c9d-0e1f2a3b4c5d',
      name: t.name,
      url: `https://app.trunk.io/acme/flaky-tests/test/${t.id}`,
      status: t.status ?? 'flaky',
      quarantineState:
        t.quarantined || t.override?.mode === 'alwaysQuarantine' ? 'quarantined' : 'notQuarantined',
      quarantinedSince:
        t.quarantined || t.override?.mode === 'alwaysQuarantine' ? new Date(this.now()).toISOString() : null,
      codeowners: t.codeowners ?? [],
      quarantineOverride: t.override ?? null,
      ...(metrics
        ? {
            metrics: {
              failureRate: t.failureRate ?? 0,
              prsImpacted: 0,
              runCount: t.runCount ?? 0,
              failureCount: t.failureCount ?? 0,
              durationP95Ms: null,
              lastRunAt: null,
              lastFailureAt: null,
            },
          }
        : {}),
    };
  }

  get(id: string, q: URLSearchParams): Reply {
    const t = this.tests.get(id);
    if (!t) return err(404, 'TEST_NOT_FOUND', `No test found with ID ${id}`);
    const include = q.get('include');
    if (include !== null && include !== 'metrics')
      return err(400, 'VALIDATION_FAILED', 'include must be metrics');
    const period = q.get('period');
    if (include && !period) return err(400, 'VALIDATION_FAILED', 'period is required with include=metrics');
    if (period !== null && !['1d', '7d', '14d', '30d'].includes(period))
      return err(400, 'VALIDATION_FAILED', 'period must be one of 1d, 7d, 14d, 30d');
    return { status: 200, json: this.view(t, include === 'metrics') };
  }

  quarantine(id: string, body: unknown, key: string, permissions: ReadonlySet<string>): Reply {
    if (!permissions.has(QUARANTINE_PERMISSION))
      return err(
        403,
        'INSUFFICIENT_PERMISSIONS',
        `This API key lacks the "${QUARANTINE_PERMISSION}" permission required to set quarantine overrides`,
      );
    const b = (body ?? {}) as Record<string, unknown>;
    if (typeof b['mode'] !== 'string' || !MODES.includes(b['mode']))
      return err(400, 'VALIDATION_FAILED', `mode must be one of ${MODES.join(', ')}`);
    if (
      b['reason'] !== undefined &&
      (typeof b['reason'] !== 'string' || b['reason'].length < 1 || b['reason'].length > 1000)
    )
      return err(400, 'VALIDATION_FAILED', 'reason must be 1 to 1000 characters');
    const t = this.tests.get(id);
    if (!t) return err(404, 'TEST_NOT_FOUND', `No test found with ID ${id}`);
    this.writes.push({ kind: 'quarantine', testId: id, body: b, key });
    if (b['mode'] === 'clear') delete t.override;
    else
      t.override = {
        mode: b['mode'],
        reason: typeof b['reason'] === 'string' ? b['reason'] : null,
        createdAt: new Date(this.now()).toISOString(),
      };
    return { status: 200, json: this.view(t, false) };
  }

  linkTicket(id: string, body: unknown, key: string): Reply {
    const b = (body ?? {}) as Record<string, unknown>;
    const ref = b['externalTicketId'];
    if (typeof ref !== 'string' || ref.length < 1 || ref.length > 2048)
      return err(400, 'VALIDATION_FAILED', 'externalTicketId must be 1 to 2048 characters');
    const t = this.tests.get(id);
    if (!t) return err(404, 'TEST_NOT_FOUND', `No test found with ID ${id}`);
    this.writes.push({ kind: 'ticket', testId: id, body: b, key });
    if (this.ticketing === 'not_configured')
      return err(
        409,
        'TICKETING_NOT_CONFIGURED',
        'No ticketing integration is configured for this test collection',
      );
    if (this.ticketing === 'upstream_error')
      return err(502, 'UPSTREAM_ERROR', 'The ticketing provider failed');
    if (this.ticketing === 'timeout') return { status: 504, json: 'Gateway Timeout' };
    const ticket = ticketOf(ref, new Date(this.now()).toISOString());
    if (!ticket) return err(422, 'TICKET_NOT_FOUND', `No ticket ${ref} was found in the ticketing provider`);
    t.ticket = ticket;
    return { status: 201, json: ticket };
  }
}
