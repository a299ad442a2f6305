/**
 * Names that say what they hold: no two modules of src/ export the same name. Two `createWatchService`s or
 * two `DigestService`s with different shapes send a newcomer (and an editor's auto-import) to the wrong one.
 * Re-exports (`export { x } from`) are not definitions and are not counted.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/processes.ts';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

const DEFINITION =
  /^export (?:declare )?(?:default )?(?:async )?(?:abstract )?(?:function\*?|class|const|let|var|interface|type|enum) +([A-Za-z0-9_$]+)/gm;

describe('exported names', () => {
  it('are each defined in one module of src/', () => {
    const homes = new Map<string, string[]>();
    for (const file of sourceFiles(join(ROOT, 'src'))) {
      const path = relative(ROOT, file).split('\\').join('/');
      for (const m of readFileSync(file, 'utf8').matchAll(DEFINITION)) {
        const name = m[1] as string;
        homes.set(name, [...(homes.get(name) ?? []), path]);
      }
    }
    expect(homes.size).toBeGreaterThan(100);
    const twice = [...homes]
      .filter(([, files]) => files.length > 1)
      .map(([name, files]) => `${name}: ${files.join(', ')}`);
    expect(twice).toEqual([]);
  });
});
