/**
 * Every schema migration, in order. Forward-only: never edit a migration that has shipped; add one.
 * Each file owns one concern: 001 the core (store/), 002 digests (digest/).
 *
 * To add one: create `NNN_name.ts` exporting a `Migration` (`id` one more than the last, `sqlite` and
 * `postgres` scripts, and `workspaceTables` naming its tables with a `workspace_id` column so that
 * `deleteWorkspace` removes their rows), then append it to this list.
 */
import type { Migration } from '../types.ts';
import { coreMigration } from './001_core.ts';
import { digestsMigration } from './002_digests.ts';
import { trustMigration } from './005_trust.ts';
import { freezeMigration } from './007_freeze.ts';

export const migrations: Migration[] = [coreMigration, digestsMigration, trustMigration, freezeMigration];
