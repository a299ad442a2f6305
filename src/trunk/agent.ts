/**
 * One keep-alive connection pool for every Trunk client in the process. A deployment serving many
 * workspaces makes one client per workspace token; they all talk to the same host, so sharing the
 * undici Agent reuses TLS connections instead of opening one pool per workspace.
 */
import { Agent } from 'undici';

let shared: Agent | undefined;

export interface TrunkAgentOptions {
  /**
   * Sockets per origin; default 256. Each command or click holds one for its whole Trunk call, so this
   * caps the interactive calls in flight: with 16, a burst of 50 commands against a Trunk answering in
   * 2 s queued behind each other for many seconds.
   */
  connections?: number;
  /** How long an idle socket is kept for reuse; default 30 s. */
  keepAliveTimeoutMs?: number;
}

export function createTrunkAgent(opts: TrunkAgentOptions = {}): Agent {
  return new Agent({
    connections: opts.connections ?? 256,
    keepAliveTimeout: opts.keepAliveTimeoutMs ?? 30_000,
    keepAliveMaxTimeout: 10 * 60_000,
    connect: { timeout: 10_000 },
  });
}

/** The process-wide Agent, created on first use. Clients use it unless given a dispatcher. */
export function sharedTrunkAgent(): Agent {
  if (!shared || shared.closed || shared.destroyed) shared = createTrunkAgent();
  return shared;
}

/** Close the shared Agent at shutdown (idle sockets would otherwise keep the event loop alive briefly). */
export async function closeSharedTrunkAgent(): Promise<void> {
  const a = shared;
  shared = undefined;
  if (a && !a.closed) await a.close();
}
