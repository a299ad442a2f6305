/**
 * Freeze windows and one claim row per (window, occurrence, start|end). The claim's primary key is what
 * makes a freeze start or end happen once however many replicas share the database; the row also keeps
 * what the start found and set, so the end (on any replica, after any restart) knows whether the queue
 * is still in the state the window put it in, and a window snapshot, so a removed window still ends.
 */
import type { Migration } from '../types.ts';

const sql = (bigint: string) => `
CREATE TABLE freeze_windows (
  id TEXT PRIMARY KEY,
  workspace_id TEXT NOT NULL,
  channel_id TEXT NOT NULL,
  created_by TEXT NOT NULL,
  created_at ${bigint} NOT NULL,
  target TEXT NOT NULL,                     -- host/owner/name:branch (host, owner and name lower case)
  start_minute INTEGER NOT NULL,
  end_minute INTEGER NOT NULL,
  tz TEXT NOT NULL,
  days TEXT NOT NULL,                       -- daily | weekdays | weekends | once
  once_date TEXT,                           -- YYYY-MM-DD when days = once
  action TEXT NOT NULL,                     -- pause | drain
  reason TEXT,
  skip_start_at ${bigint}                   -- the start of the one occurrence to skip
);
CREATE INDEX freeze_windows_workspace ON freeze_windows (workspace_id, target);
CREATE TABLE freeze_claims (
  window_id TEXT NOT NULL,
  occurrence_start ${bigint} NOT NULL,
  phase TEXT NOT NULL,                      -- start | end
  workspace_id TEXT NOT NULL,
  target TEXT NOT NULL,
  occurrence_end ${bigint} NOT NULL,
  window_json TEXT NOT NULL,                -- the window as it was when claimed
  status TEXT NOT NULL,                     -- running | retrying | done | failed
  outcome TEXT,
  owner TEXT NOT NULL,
  lease_until ${bigint} NOT NULL,           -- for retrying: when the next attempt is due
  attempts INTEGER NOT NULL DEFAULT 1,
  before_state TEXT,                        -- the queue's state read before changing it
  set_state TEXT,                           -- the state this window put the queue in (start)
  detail TEXT,
  claimed_at ${bigint} NOT NULL,
  finished_at ${bigint},
  PRIMARY KEY (window_id, occurrence_start, phase)
);
CREATE INDEX freeze_claims_lease ON freeze_claims (status, lease_until);
CREATE INDEX freeze_claims_target ON freeze_claims (workspace_id, target, occurrence_end);
`;

export const freezeMigration: Migration = {
  id: 7,
  name: 'freeze',
  sqlite: sql('INTEGER'),
  postgres: sql('BIGINT'),
  workspaceTables: ['freeze_claims', 'freeze_windows'],
};
