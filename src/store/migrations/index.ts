/**
 * Every schema migration, in order. Forward-only: never edit a migration that has shipped; add one.
 * Each file owns one concern: 001 the core (store/), 002 digests (digest/).
 */
import type { Migration } from '../types.ts';

export const migrations: Migration[] = [];
