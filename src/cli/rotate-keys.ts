/**
 * Re-encrypts every stored secret under the current key (the first ENCRYPTION_KEY entry).
 *
 *   ENCRYPTION_KEY=<new>,<old> DATABASE_URL=… npx node src/cli/rotate-keys.ts
 *
 * Then ENCRYPTION_KEY=<new> is enough. Reads configuration from the environment like the app; prints
 * counts and key ids, never secrets or keys. Exit code 0 on success, 1 on any error.
 */
import { ConfigError, loadConfig } from '../config.ts';
import { keyIdOf } from '../store/crypto.ts';
import { openStore } from '../store/open.ts';

export async function rotateKeys(env: NodeJS.ProcessEnv, out: (line: string) => void): Promise<number> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig(env, { tool: true });
  } catch (err) {
    out(err instanceof ConfigError ? err.message : `Invalid configuration: ${(err as Error).message}`);
    return 1;
  }
  const current = config.encryptionKeys[0];
  if (!current) {
    out('ENCRYPTION_KEY is not set: set it to the new key first, then the old one(s), separated by commas.');
    return 1;
  }
  try {
    const store = await openStore({ database: config.database, encryptionKeys: config.encryptionKeys });
    try {
      const before = await store.keyIdsInUse();
      const count = await store.reencryptAll();
      const after = await store.keyIdsInUse();
      const total = Object.values(after).reduce((a, b) => a + b, 0);
      out(`Current key id: ${keyIdOf(current)}`);
      out(`Secrets by key id before: ${formatCounts(before)}`);
      out(`Re-encrypted ${count} of ${total} stored secret(s).`);
      out(`Secrets by key id now: ${formatCounts(after)}`);
      const old = config.encryptionKeys.slice(1).map(keyIdOf);
      if (old.length > 0 && old.every((id) => !after[id]))
        out('No secret uses the older key(s) any more: ENCRYPTION_KEY can be set to the first key alone.');
    } finally {
      await store.close();
    }
    return 0;
  } catch (err) {
    out(`Key rotation failed: ${(err as Error).message}`);
    return 1;
  }
}

function formatCounts(counts: Record<string, number>): string {
  const entries = Object.entries(counts);
  return entries.length ? entries.map(([id, n]) => `${id}=${n}`).join(', ') : 'none';
}

if (import.meta.main) {
  process.exitCode = await rotateKeys(process.env, (line) => console.log(line));
}
