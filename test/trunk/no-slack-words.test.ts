/**
 * The Trunk client knows nothing of Slack (issue 11): an error keeps its kind and facts, and what to type
 * in Slack is written by the Slack renderers (`trunkHint` in src/slack/blocks/errors.ts). Imports are
 * checked by `npm run deps`; words are not, so this reads the client's sources.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const TRUNK_DIR = join(import.meta.dirname, '../../src/trunk');

describe('src/trunk/ speaks no Slack', () => {
  it('no source file names a /mergequeue command', () => {
    const files = readdirSync(TRUNK_DIR, { recursive: true, encoding: 'utf8' }).filter((f) =>
      f.endsWith('.ts'),
    );
    expect(files.length).toBeGreaterThan(5);
    const naming = files.filter((f) => readFileSync(join(TRUNK_DIR, f), 'utf8').includes('/mergequeue'));
    expect(naming).toEqual([]);
  });
});
