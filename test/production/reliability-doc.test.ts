/**
 * docs/reliability.md promises a test for every fault and attack it lists. Tests move as the code does, so
 * this keeps each row pointing at a test file that exists and at a test whose name that file still holds.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/processes.ts';

const doc = readFileSync(join(ROOT, 'docs/reliability.md'), 'utf8');

interface Row {
  file: string;
  /** The longest run of the test's name between the placeholders or ellipses the table shortens it with. */
  name: string;
}

function rows(): Row[] {
  const out: Row[] = [];
  for (const line of doc.split('\n')) {
    if (!line.startsWith('| ')) continue;
    const cells = line.split(' | ');
    const proof = cells[cells.length - 1] ?? '';
    const m = /`(test\/[^`]+\.ts)`\s*›\s*(.*)$/.exec(proof);
    if (!m) continue;
    // The last › segment is the test's own name; the table may shorten it with … or list several with ;.
    const last = m[2]!.split('›').pop()!.split(';')[0]!;
    const name = last
      .replace(/\s*\|\s*$/, '')
      .split(/…|%s|\.\.\.|\(|\)/)
      .map((part) => part.trim())
      .reduce((a, b) => (b.length > a.length ? b : a), '');
    out.push({ file: m[1]!, name });
  }
  return out;
}

describe('docs/reliability.md', () => {
  const listed = rows();

  it('lists the proofs of the trust work', () => {
    expect(listed.length).toBeGreaterThan(40);
  });

  it.each(listed.map((r) => [r.file, r.name] as const))('%s holds "%s"', (file, name) => {
    const path = join(ROOT, file);
    expect(existsSync(path), `${file} does not exist`).toBe(true);
    if (name.length >= 12) {
      const words = name.slice(0, 40);
      expect(readFileSync(path, 'utf8'), `${file} has no test named like "${words}"`).toContain(words);
    }
  });
});
