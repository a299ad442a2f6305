import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  EncryptionKeyMissingError,
  EncryptionKeyUnknownError,
  keyIdInCiphertext,
  keyIdOf,
  SecretBox,
  SecretTamperedError,
} from '../../src/store/crypto.ts';

const ctx = { table: 'workspace_settings', workspaceId: 'T1', field: 'trunk_token' };

describe('SecretBox (AES-256-GCM)', () => {
  it('round-trips with a fresh nonce each time and the key id in the header', () => {
    const key = randomBytes(32);
    const box = new SecretBox([key]);
    const a = box.encrypt('tok-1', ctx);
    const b = box.encrypt('tok-1', ctx);
    expect(a).not.toBe(b);
    expect(a.split('.')[2]).not.toBe(b.split('.')[2]);
    expect(a).toMatch(/^v1\.[0-9a-f]{16}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
    expect(keyIdInCiphertext(a)).toBe(keyIdOf(key));
    expect(keyIdOf(key)).toHaveLength(16);
    expect(box.decrypt(a, ctx)).toBe('tok-1');
    expect(box.decrypt(box.encrypt('', ctx), ctx)).toBe('');
    expect(box.decrypt(box.encrypt('ünïcødé ✓', ctx), ctx)).toBe('ünïcødé ✓');
  });

  it('binds table, workspace and field as associated data', () => {
    const box = new SecretBox([randomBytes(32)]);
    const ct = box.encrypt('tok', ctx);
    for (const other of [
      { ...ctx, workspaceId: 'T2' },
      { ...ctx, field: 'bot_token' },
      { ...ctx, table: 'slack_installations' },
    ]) {
      expect(() => box.decrypt(ct, other)).toThrow(SecretTamperedError);
    }
  });

  it('decrypts with any configured key and encrypts with the first', () => {
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    const old = new SecretBox([oldKey]).encrypt('tok', ctx);
    const rotated = new SecretBox([newKey, oldKey]);
    expect(rotated.decrypt(old, ctx)).toBe('tok');
    expect(keyIdInCiphertext(rotated.encrypt('tok', ctx))).toBe(keyIdOf(newKey));
    const err = (() => {
      try {
        new SecretBox([newKey]).decrypt(old, ctx);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(EncryptionKeyUnknownError);
    expect((err as Error).message).toContain(keyIdOf(oldKey));
    expect((err as Error).message).not.toContain(oldKey.toString('base64'));
  });

  it('without a key: encrypting names ENCRYPTION_KEY', () => {
    expect(() => new SecretBox([]).encrypt('tok', ctx)).toThrow(EncryptionKeyMissingError);
    expect(() => new SecretBox([]).encrypt('tok', ctx)).toThrow(/ENCRYPTION_KEY is not set/);
  });

  it('a key id edited in the header does not decrypt (it is authenticated too)', () => {
    const k1 = randomBytes(32);
    const k2 = randomBytes(32);
    const box = new SecretBox([k1, k2]);
    const ct = box.encrypt('tok', ctx);
    const swapped = ct.replace(keyIdOf(k1), keyIdOf(k2));
    expect(() => box.decrypt(swapped, ctx)).toThrow(SecretTamperedError);
  });
});
