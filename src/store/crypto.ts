/**
 * Secrets at rest: AES-256-GCM with a fresh 96-bit nonce per value.
 *
 * Format: `v1.<keyId>.<nonce>.<ciphertext+tag>` (keyId hex, the rest base64url). The key id is the first
 * 8 bytes of SHA-256 of the key, so a reader knows which configured key to use (rotation) and start-up can
 * tell which keys are missing without ever printing one. The row's identity (table, workspace, field) and
 * the header are the associated data: a ciphertext copied into another row or field does not decrypt.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** Where a secret lives; bound into the ciphertext as associated data. */
export interface SecretContext {
  table: string;
  workspaceId: string;
  field: string;
  /** The row within the workspace, for tables with many rows per workspace (a step's execution id). */
  row?: string;
}

export type SecretErrorCode = 'ENCRYPTION_KEY_MISSING' | 'ENCRYPTION_KEY_UNKNOWN' | 'SECRET_INVALID';

/** Every failure of the secret layer. Messages name key ids and rows, never key material or plaintext. */
export class SecretError extends Error {
  readonly code: SecretErrorCode;
  constructor(code: SecretErrorCode, message: string) {
    super(message);
    this.name = 'SecretError';
    this.code = code;
  }
}

/** No ENCRYPTION_KEY configured, but a secret must be stored or read. */
export class EncryptionKeyMissingError extends SecretError {
  constructor(what: string) {
    super(
      'ENCRYPTION_KEY_MISSING',
      `ENCRYPTION_KEY is not set, but it is required to ${what}. Generate one with: openssl rand -base64 32, and set ENCRYPTION_KEY to it.`,
    );
    this.name = 'EncryptionKeyMissingError';
  }
}

/** Stored ciphertexts were written with key ids that ENCRYPTION_KEY does not contain. */
export class EncryptionKeyUnknownError extends SecretError {
  readonly neededKeyIds: string[];
  readonly configuredKeyIds: string[];
  constructor(neededKeyIds: string[], configuredKeyIds: string[]) {
    const have = configuredKeyIds.length ? configuredKeyIds.join(', ') : 'none (ENCRYPTION_KEY is not set)';
    super(
      'ENCRYPTION_KEY_UNKNOWN',
      `ENCRYPTION_KEY does not contain the key that encrypted the stored secrets: key id(s) ${neededKeyIds.join(', ')} are needed, configured key id(s): ${have}. ` +
        'Add the previous key to ENCRYPTION_KEY (comma-separated, new key first), start once and run `npx node src/cli/rotate-keys.ts` before removing it. Nothing was changed.',
    );
    this.name = 'EncryptionKeyUnknownError';
    this.neededKeyIds = neededKeyIds;
    this.configuredKeyIds = configuredKeyIds;
  }
}

/** A stored value failed authentication: tampered, truncated, or copied from another row or field. */
export class SecretTamperedError extends SecretError {
  readonly context: SecretContext;
  constructor(ctx: SecretContext, why: string) {
    super(
      'SECRET_INVALID',
      `The stored secret ${ctx.table}.${ctx.field} of workspace ${ctx.workspaceId} cannot be decrypted: ${why}. It was altered or copied from another row; store it again.`,
    );
    this.name = 'SecretTamperedError';
    this.context = ctx;
  }
}

/** First 8 bytes of SHA-256 of the key, hex: identifies a key without revealing it. */
export function keyIdOf(key: Buffer): string {
  return createHash('sha256').update(key).digest().subarray(0, 8).toString('hex');
}

/** The key id written in a ciphertext, or undefined when the value is not in our format. */
export function keyIdInCiphertext(value: string): string | undefined {
  const parts = value.split('.');
  if (parts.length !== 4 || parts[0] !== VERSION) return undefined;
  return /^[0-9a-f]{16}$/.test(parts[1]!) ? parts[1] : undefined;
}

function aad(keyId: string, ctx: SecretContext): Buffer {
  // JSON keeps the parts unambiguous whatever characters ids contain.
  const parts = [VERSION, keyId, ctx.table, ctx.workspaceId, ctx.field];
  // Only tables with many rows per workspace name the row: older ciphertexts keep their associated data.
  if (ctx.row !== undefined) parts.push(ctx.row);
  return Buffer.from(JSON.stringify(parts), 'utf8');
}

export class SecretBox {
  readonly #keys: Map<string, Buffer>;
  readonly #currentKeyId: string | undefined;

  /** keys: decoded ENCRYPTION_KEY entries, newest first; [0] encrypts. May be empty. */
  constructor(keys: readonly Buffer[]) {
    this.#keys = new Map();
    for (const key of keys) {
      if (key.length !== 32)
        throw new SecretError('ENCRYPTION_KEY_MISSING', 'ENCRYPTION_KEY: each key must be 32 bytes');
      this.#keys.set(keyIdOf(key), key);
    }
    this.#currentKeyId = keys[0] ? keyIdOf(keys[0]) : undefined;
  }

  get currentKeyId(): string | undefined {
    return this.#currentKeyId;
  }

  get keyIds(): string[] {
    return [...this.#keys.keys()];
  }

  hasKey(keyId: string): boolean {
    return this.#keys.has(keyId);
  }

  encrypt(plaintext: string, ctx: SecretContext): string {
    const keyId = this.#currentKeyId;
    if (keyId === undefined)
      throw new EncryptionKeyMissingError(`store the secret ${ctx.table}.${ctx.field}`);
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#keys.get(keyId)!, nonce, { authTagLength: TAG_BYTES });
    cipher.setAAD(aad(keyId, ctx));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${VERSION}.${keyId}.${nonce.toString('base64url')}.${body.toString('base64url')}`;
  }

  decrypt(value: string, ctx: SecretContext): string {
    const parts = value.split('.');
    if (parts.length !== 4 || parts[0] !== VERSION)
      throw new SecretTamperedError(ctx, 'it is not in the v1 ciphertext format');
    const [, keyId, nonceText, bodyText] = parts as [string, string, string, string];
    if (!/^[0-9a-f]{16}$/.test(keyId)) throw new SecretTamperedError(ctx, 'its key id is malformed');
    const key = this.#keys.get(keyId);
    if (!key) {
      if (this.#keys.size === 0)
        throw new EncryptionKeyMissingError(`read the secret ${ctx.table}.${ctx.field}`);
      throw new EncryptionKeyUnknownError([keyId], this.keyIds);
    }
    const nonce = Buffer.from(nonceText, 'base64url');
    const body = Buffer.from(bodyText, 'base64url');
    if (nonce.length !== NONCE_BYTES || body.length < TAG_BYTES)
      throw new SecretTamperedError(ctx, 'it is truncated');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
      decipher.setAAD(aad(keyId, ctx));
      decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
      return Buffer.concat([
        decipher.update(body.subarray(0, body.length - TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      throw new SecretTamperedError(ctx, 'authentication failed');
    }
  }
}
