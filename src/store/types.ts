/**
 * Everything the app remembers, behind one interface with two engines (SQLite via node:sqlite, PostgreSQL
 * via pg). Domain modules that need their own tables (digest) use the small `Db` seam with portable SQL
 * and add a migration file; nothing that matters lives only in one process's memory, so many replicas
 * can share one PostgreSQL.
 *
 * Conventions for portable SQL: placeholders are `$1, $2…` (the SQLite adapter rewrites them);
 * timestamps are BIGINT epoch milliseconds (returned as JS numbers by both engines); booleans are
 * stored as INTEGER 0/1; ids are TEXT; use `INSERT … ON CONFLICT … DO …` and `RETURNING`, which both
 * engines support.
 */
import type { InstallationRecord } from '../core/installation.ts';
import type { TargetSpec } from '../core/target.ts';
import type { Logger } from '../observability/log.ts';

export type SqlValue = string | number | bigint | boolean | null | Uint8Array;
export type Row = Record<string, unknown>;

export interface DbExecutor {
  /** Rows of a SELECT (or of a statement with RETURNING). */
  query<T extends Row = Row>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  /** A statement without rows; resolves to the number of rows changed. */
  execute(sql: string, params?: readonly SqlValue[]): Promise<number>;
}

export interface Db extends DbExecutor {
  readonly dialect: 'sqlite' | 'postgres';
  /** Runs fn in one transaction (serialised per connection on SQLite); rolls back if it throws. */
  transaction<T>(fn: (tx: DbExecutor) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** A forward-only schema step. Migrations are listed in migrations/index.ts and applied in id order. */
export interface Migration {
  id: number;
  name: string;
  sqlite: string;
  postgres: string;
  /**
   * Tables this migration creates that hold one workspace's data in a `workspace_id TEXT` column:
   * `deleteWorkspace` removes their rows, in one transaction: later migrations' tables first, each migration's
   * in the order listed (so list referencing tables before the ones they reference). Never list the audit log.
   */
  workspaceTables?: readonly string[];
  /**
   * The subset of `workspaceTables` whose rows only work with the workspace's bot token (they post as the
   * bot): `deleteBotData` removes them when the bot token is revoked, while settings and credentials stay.
   */
  botTables?: readonly string[];
  /** Tables of earlier migrations this one drops: no longer emptied by `deleteWorkspace` or `deleteBotData`. */
  dropsTables?: readonly string[];
}

/** Who may change queues, beyond workspace admins/owners and the installing user. */
export interface Operator {
  kind: 'user' | 'usergroup';
  id: string;
  addedBy: string;
  addedAt: number;
}

export interface TrunkCredentials {
  token: string;
  orgSlug: string;
}

export interface WorkspaceSettings {
  workspaceId: string;
  defaultTarget?: TargetSpec;
  /** Whether Trunk credentials are stored (the token itself is only read with getTrunkCredentials). */
  hasTrunkCredentials: boolean;
  /** Whether a Trunk v2 API key is stored (read with getTrunkV2Key). */
  hasTrunkV2Key?: boolean;
  /** Whether Trunk webhook signing secrets are stored (read with getTrunkWebhookSecrets). */
  hasTrunkWebhookSecrets?: boolean;
  trunkOrgSlug?: string;
  trunkCredentialsUpdatedBy?: string;
  trunkCredentialsUpdatedAt?: number;
  /** The Slack user who installed the app (an operator by right). */
  installerUserId?: string;
}

export type { InstallationRecord };

export type AuditOutcome = 'ok' | 'refused' | 'failed' | 'noop';

export interface AuditEntry {
  id?: number;
  workspaceId: string;
  userId: string;
  /** e.g. `pause`, `concurrency`, `settings`, `config.operators.add`, `digest.add`. */
  action: string;
  /** e.g. `github.com/acme/web:main`; empty for workspace-level actions. */
  target: string;
  outcome: AuditOutcome;
  /** Free-form, secret-free detail: reason, before/after, refusal cause. */
  detail: Record<string, unknown>;
  /** First seen. */
  at: number;
  /** Refusals of one person and action within REFUSAL_COLLAPSE_MS share a row: how many, and the latest. */
  count?: number;
  lastAt?: number;
}

/**
 * Leases (leases.ts, migration 009): the one way work is claimed across replicas. A lease names a piece of
 * work (`kind` and `key`, chosen by the caller; the store gives them no meaning), who holds it, until when,
 * and a fence: a number bumped by every acquisition, so a holder that stalled past its lease and was taken
 * over presents an old fence (or is no longer the holder) and its late writes are refused.
 *
 * States: `held` (someone works on it; free to take once `expiresAt` has passed), `released` (given up;
 * free to take from `expiresAt`, which may be now or later), `finished` (done for good, never taken again,
 * kept with its `result` until pruned). A lease is expired when `expiresAt < now`.
 */
export type LeaseState = 'held' | 'released' | 'finished';

export interface LeaseId {
  kind: string;
  key: string;
}

export interface Lease extends LeaseId {
  /** The workspace the work belongs to ('' when none): deleteWorkspace removes its leases. */
  workspaceId: string;
  holder: string;
  fence: number;
  state: LeaseState;
  expiresAt: number;
  /** How many times it was acquired (1 for the first claim; each takeover or retry adds one). */
  attempts: number;
  /** What `finish` recorded (free text, e.g. JSON), for the work's readers. */
  result?: string;
  createdAt: number;
  finishedAt?: number;
}

/** What a holder presents on every write: refused unless it still holds the lease (at `fence`, when given). */
export interface LeaseHold extends LeaseId {
  holder: string;
  fence?: number;
  /** When given, a lease that expired before this instant is refused too, even if nobody took it over yet. */
  liveAt?: number;
}

export interface LeaseClaimRequest extends LeaseId {
  holder: string;
  ttlMs: number;
  now: number;
  workspaceId?: string;
  /**
   * `free` (default): take the lease when nobody has it, when its holder let it expire, or when it was
   * released and is due. `renew`: the same, and a holder claiming its own live lease renews it (a lease
   * held for as long as the holder keeps claiming it). `new`: only when no lease exists at all (the first
   * claim of a one-off piece of work; recovering it is `takeOver`'s job).
   */
  mode?: 'free' | 'renew' | 'new';
}

export type LeaseClaim =
  | { acquired: true; fence: number; attempts: number; takenOver: boolean; lease: Lease }
  | { acquired: false; lease?: Lease };

export interface Leases {
  /** Acquires (see LeaseClaimRequest.mode). One statement: two claimants racing cannot both win. */
  claim(req: LeaseClaimRequest, tx?: DbExecutor): Promise<LeaseClaim>;
  /**
   * Compare-and-set on the lease as the caller saw it (fence and expiry, from `available` or `get`): exactly
   * one of several replicas taking over the same lapsed or due lease wins. Returns the new fence.
   */
  takeOver(
    req: LeaseId & { holder: string; expiresAt: number; seen: { fence: number; expiresAt: number } },
    tx?: DbExecutor,
  ): Promise<number | undefined>;
  /**
   * Extends a held lease to `expiresAt`; without it, only confirms the hold (and, inside a transaction,
   * locks the lease until commit, so a fenced write and a takeover cannot interleave). False when fenced off.
   */
  heartbeat(hold: LeaseHold & { expiresAt?: number }, tx?: DbExecutor): Promise<boolean>;
  /** The work is done for good: never taken again. `result` is kept for readers. False when fenced off. */
  finish(hold: LeaseHold & { now: number; result?: string }, tx?: DbExecutor): Promise<boolean>;
  /** Gives a held lease up: anyone may take it from `availableAt` (default: at once). False when fenced off. */
  release(hold: LeaseHold & { availableAt?: number }, tx?: DbExecutor): Promise<boolean>;
  /**
   * A lease step and the caller's own record write in one transaction, all or nothing: `lease` runs first
   * (a claim, takeover, heartbeat, finish or release on `tx`) and returns what it got, or undefined/false
   * when refused; `record` then writes the caller's row and returns how many rows it changed. Unless that
   * is exactly one, the lease step is undone too. Resolves to what `lease` got, or undefined.
   */
  together<T>(
    lease: (tx: DbExecutor) => Promise<T | undefined | false>,
    record: (tx: DbExecutor, got: T) => Promise<number>,
  ): Promise<T | undefined>;
  get(id: LeaseId, tx?: DbExecutor): Promise<Lease | undefined>;
  /** The leases of `kind` among `keys`, by key (absent keys have none). */
  getMany(kind: string, keys: readonly string[]): Promise<Map<string, Lease>>;
  /**
   * Closes a lease whose work is gone (its record was deleted), as `available` listed it, so it is not
   * listed again: a takeover (so a live holder is never overridden) and a finish. False when it moved on.
   */
  abandon(lease: Lease, now: number): Promise<boolean>;
  /** Leases of `kind` a claim could take now (held but expired, or released and due), the longest waiting first. */
  available(q: { kind: string; now: number; limit: number }): Promise<Lease[]>;
  /**
   * Forgets leases of `kind` created before `before` that are finished, or whose expiry (or, released, the
   * time they were free from) is before `before` too: nothing live or still due. Returns how many.
   */
  prune(q: { kind: string; before: number }): Promise<number>;
}

/** What a domain repository of claimed work is built from: the store's rows and its one lease service. */
export type LeaseStore = Pick<Store, 'db' | 'leases'>;

export interface Store {
  readonly dialect: 'sqlite' | 'postgres';
  /** The low-level seam for domain repositories (see digest/). */
  readonly db: Db;
  /** Claims with a lease, heartbeat, takeover, fencing, finish and prune (see Leases). */
  readonly leases: Leases;

  /** Store reachable and every migration applied (for /readyz). */
  ready(): Promise<{ ok: boolean; schemaVersion: number; detail?: string }>;
  close(): Promise<void>;

  /** Slack installations (OAuth mode): tokens encrypted; keyed by the workspace id (see InstallationRecord). */
  readonly installations: {
    /** Replaces the workspace's installation; records its installer (an operator by right) only if none is. */
    save(record: InstallationRecord): Promise<void>;
    load(workspaceId: string): Promise<InstallationRecord | undefined>;
    /** Used by uninstall handling; removes bot and user tokens of that team or enterprise. */
    delete(workspaceId: string): Promise<void>;
    /** The bot user of the workspace's installation (undefined without one). */
    botUserId(workspaceId: string): Promise<string | undefined>;
    /** tokens_revoked naming users: forgets the installer's user token if named; returns how many. */
    revokeUserTokens(workspaceId: string, userIds: readonly string[]): Promise<number>;
  };

  // ---- workspace settings. workspaceId is the team id (or enterprise id for org-wide installs).
  getWorkspace(workspaceId: string): Promise<WorkspaceSettings | undefined>;
  setWorkspaceDefaultTarget(
    workspaceId: string,
    target: TargetSpec | undefined,
    updatedBy?: string,
  ): Promise<void>;
  setInstaller(workspaceId: string, userId: string): Promise<void>;
  /**
   * Encrypts and stores (replacing any previous). Requires ENCRYPTION_KEY (EncryptionKeyMissingError otherwise);
   * input failing checkTrunkCredentials (trunk-credentials.ts) throws InvalidStoreInputError. Nothing changes on error.
   */
  setTrunkCredentials(workspaceId: string, creds: TrunkCredentials, updatedBy: string): Promise<void>;
  getTrunkCredentials(workspaceId: string): Promise<TrunkCredentials | undefined>;
  /**
   * Encrypts and stores the workspace's Trunk v2 API key, replacing any; `undefined` removes it. A value that
   * is not shaped `trunk_v2_…` throws InvalidStoreInputError. Requires ENCRYPTION_KEY like the v1 token.
   */
  setTrunkV2Key(workspaceId: string, key: string | undefined, updatedBy: string): Promise<void>;
  getTrunkV2Key(workspaceId: string): Promise<string | undefined>;
  /**
   * Encrypts and stores the workspace's Trunk webhook signing secrets (`whsec_…`, one per Trunk endpoint),
   * replacing the list; an empty list removes them. A value not shaped `whsec_<base64>` throws
   * InvalidStoreInputError. Requires ENCRYPTION_KEY like the v1 token.
   */
  setTrunkWebhookSecrets(workspaceId: string, secrets: readonly string[], updatedBy: string): Promise<void>;
  /** The stored signing secrets (empty when none). */
  getTrunkWebhookSecrets(workspaceId: string): Promise<string[]>;
  /** Whether pasted GitHub PR links unfurl (`config unfurl github on|off`); false until set. */
  getUnfurlGithub(workspaceId: string): Promise<boolean>;
  setUnfurlGithub(workspaceId: string, on: boolean, updatedBy: string): Promise<void>;
  /** Uninstall: tokens, credentials, settings, channels, operators and digests of the workspace. Audit stays. */
  deleteWorkspace(workspaceId: string): Promise<void>;
  /**
   * The bot token was revoked: its installation (every Slack token) and what only works with it (rows of
   * the migrations' `botTables`: digests) are deleted. Trunk credentials, defaults, operators and audit stay.
   */
  deleteBotData(workspaceId: string): Promise<void>;

  // ---- channel defaults
  getChannelDefault(workspaceId: string, channelId: string): Promise<TargetSpec | undefined>;
  /** `undefined` clears the channel's default. */
  setChannelDefault(
    workspaceId: string,
    channelId: string,
    target: TargetSpec | undefined,
    updatedBy?: string,
  ): Promise<void>;

  // ---- operators
  listOperators(workspaceId: string): Promise<Operator[]>;
  /** Returns false when already present. */
  addOperator(workspaceId: string, op: Omit<Operator, 'addedAt'>): Promise<boolean>;
  /** Returns false when not present. */
  removeOperator(workspaceId: string, kind: Operator['kind'], id: string): Promise<boolean>;

  // ---- audit
  /** A refusal repeating one within REFUSAL_COLLAPSE_MS (same person, action) is counted into that row. */
  appendAudit(entry: Omit<AuditEntry, 'id' | 'at' | 'count' | 'lastAt'> & { at?: number }): Promise<void>;
  /** Deletes audit rows last seen before `before` (epoch ms); returns how many. */
  pruneAudit(before: number): Promise<number>;
  listAudit(workspaceId: string, opts?: { limit?: number; target?: string }): Promise<AuditEntry[]>;

  /**
   * Request dedupe (store/request-claims.ts, `idempotency_claims`): marks `key` seen once across every
   * replica (a signature, an Events API event_id, a button delivery). True for the first caller; false
   * while an unexpired mark exists. Expired marks are reclaimable. Not a lease: no holder, fence or
   * heartbeat; work that can be taken over uses `leases`.
   */
  claimOnce(key: string, ttlMs: number): Promise<boolean>;
  /** Gives a claim back (the work it covered was not done), so the next caller can claim `key` at once. */
  releaseClaim(key: string): Promise<void>;

  /**
   * A Workflow Builder step waiting for a PR (migration 016), with the function execution token Slack gave it
   * (encrypted, the execution id in its associated data). False when that execution is stored already.
   */
  addStepWait(wait: NewStepWait): Promise<boolean>;
  /** The waiting step's execution token, decrypted; undefined when no such row. */
  stepWaitToken(workspaceId: string, executionId: string): Promise<string | undefined>;

  /** Re-encrypts every stored secret under the current key (ENCRYPTION_KEY's first entry). Returns the count. */
  reencryptAll(): Promise<number>;
  /** Key ids (see crypto.ts keyIdOf) that stored secrets use, with how many values each. Never key material. */
  keyIdsInUse(): Promise<Record<string, number>>;
}

/** What a waiting Workflow Builder step stores (see watch/waits.ts for its reads and transitions). */
export interface NewStepWait {
  executionId: string;
  workspaceId: string;
  callbackId: string;
  /** watch's queueKeyOf(target): how events name the queue. */
  queueKey: string;
  target: { repo: { host: string; owner: string; name: string }; branch: string };
  prNumber: number;
  /** Where the step's outcome may be announced; absent when the workflow named none. */
  channelId?: string;
  /** The interactor who started the workflow, when one did. */
  userId?: string;
  /** The function execution token (`bot_access_token` of function_executed): stored encrypted. */
  token: string;
  deadlineAt: number;
  createdAt: number;
}

export interface OpenStoreOptions {
  database: { kind: 'sqlite'; path: string } | { kind: 'postgres'; url: string };
  /** Decoded ENCRYPTION_KEY entries, newest first; may be empty until a secret must be stored. */
  encryptionKeys: Buffer[];
  /** Extra migrations (tests), applied after the app's own from migrations/index.ts. */
  extraMigrations?: Migration[];
  now?: () => number;
  /** Start-up, migration and key-check messages (never secrets). */
  logger?: Logger;
  /** PostgreSQL pool size (default 10). */
  poolSize?: number;
  /** How long to wait for the database (see config.ts DatabaseTimeouts); defaults 5 s each. */
  timeouts?: { connectMs: number; queryMs: number };
}
