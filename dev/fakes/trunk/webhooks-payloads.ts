/**
 * Trunk's flaky-test webhook payloads (spec/trunk-webhooks.md §4) as the fake sends them: the sandbox's story
 * and the tests build them here, so both speak the one shape. `deliver` adds `type` and `timestamp`.
 */

export interface FakeTestCase {
  id: string;
  name: string;
  classname: string;
  file: string;
  codeowners: readonly string[];
  /** `owner/repo` on github.com. */
  repo: string;
  quarantined?: boolean;
}

/** The `repository` and `test_case` objects every flaky-test payload carries. */
export function testCaseParts(t: FakeTestCase) {
  return {
    repository: { id: '7a2b3c4d-5e6f-4a1b-8c9d-0e1f2a3b4c5d', html_url: `https://github.com/${t.repo}` },
    test_case: {
      id: t.id,
      name: t.name,
      classname: t.classname,
      file_path: t.file,
      html_url: `https://app.trunk.io/acme/flaky-tests/test/${t.id}?repo=${encodeURIComponent(t.repo)}`,
      codeowners: [...t.codeowners],
      quarantined: t.quarantined ?? false,
      variant: '',
    },
  };
}

/** `v2.test_case.status_changed`, as a failure-rate monitor triggers it. */
export function testStatusChanged(t: FakeTestCase, previous: string, next: string) {
  return {
    previous_status: previous,
    new_status: next,
    triggered_by: {
      monitor_id: '1a2b3c4d-5e6f-4a1b-8c9d-0e1f2a3b4c5d',
      monitor_type: 'failure_rate',
      monitor_status: 'active',
    },
    ...testCaseParts(t),
  };
}
