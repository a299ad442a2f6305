/**
 * The Dockerfile and .ci/run install with `npm ci`, which refuses a lockfile that leaves out any package
 * another one depends on, other platforms' optional binaries included. A lockfile written where the registry
 * serves only some platforms' binaries (as happened with @biomejs/biome 2.6) breaks every clean install, so
 * this checks the lockfile the way npm ci does, without the network.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/processes.ts';

interface LockEntry {
  version?: string;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, LockEntry>;
};
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** Whether `name`, required from the package at lock key `from`, resolves the way Node's lookup walks up. */
function resolves(from: string, name: string): boolean {
  let dir = from;
  for (;;) {
    if (lock.packages[`${dir ? `${dir}/` : ''}node_modules/${name}`]) return true;
    if (!dir) return false;
    const parent = dir.lastIndexOf('/node_modules/');
    dir = parent < 0 ? '' : dir.slice(0, parent);
  }
}

describe('package-lock.json', () => {
  it('lists every package each entry depends on, every platform binary included, so npm ci accepts it', () => {
    const missing: string[] = [];
    for (const [key, entry] of Object.entries(lock.packages)) {
      const wanted = {
        ...entry.dependencies,
        ...entry.optionalDependencies,
        ...(key === '' ? entry.devDependencies : {}),
      };
      for (const name of Object.keys(wanted))
        if (!resolves(key, name)) missing.push(`${key || '(root)'} → ${name}`);
    }
    expect(missing).toEqual([]);
  });

  it('records the same dependency ranges as package.json', () => {
    const root = lock.packages['']!;
    expect(root.dependencies).toEqual(pkg.dependencies);
    expect(root.devDependencies).toEqual(pkg.devDependencies);
  });
});
