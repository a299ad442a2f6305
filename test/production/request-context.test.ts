/**
 * One context per request, one reply (docs/adr/0009-one-request-context.md), checked over the source:
 * - no file under src/slack/ imports src/store/, not even a type: the Slack side is handed ports
 *   (src/slack/ports.ts) by the composition root (src/app-services.ts);
 * - Slack's write methods are called only by the outbox (what the app says on its own initiative) and the
 *   reply (answers to a person's own action);
 * - there is no service locator: the services are built once, in the composition root.
 * Every listener file stays under 120 lines.
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

/** The code of a file without its comments (a comment may name a method or a path without using it). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

const files = sourceFiles(join(ROOT, 'src')).map((file) => ({
  path: relative(ROOT, file).split('\\').join('/'),
  text: readFileSync(file, 'utf8'),
}));

/** Every import or re-export specifier of a file, resolved against it, relative to the repository root. */
function importsOf(path: string, text: string): string[] {
  const specs = [...code(text).matchAll(/(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]/g)].map(
    (m) => m[1] ?? '',
  );
  const dir = path.split('/').slice(0, -1);
  return specs
    .filter((s) => s.startsWith('.'))
    .map((s) => {
      const parts = [...dir];
      for (const seg of s.split('/')) {
        if (seg === '..') parts.pop();
        else if (seg !== '.') parts.push(seg);
      }
      return parts.join('/');
    });
}

const WRITE_METHOD =
  /\b(?:chat\.(?:postMessage|update|postEphemeral|unfurl|delete)|views\.(?:publish|open|update|push)|functions\.(?:completeSuccess|completeError))\b\s*\(|apiCall\(\s*['"`](?:chat|views|functions)\.(?:postMessage|update|postEphemeral|unfurl|delete|publish|open|push|completeSuccess|completeError)['"`]/;

describe('one context per request, one reply', () => {
  it('no file under src/slack/ imports src/store/, types included', () => {
    const importing = files
      .filter((f) => f.path.startsWith('src/slack/'))
      .flatMap((f) =>
        importsOf(f.path, f.text)
          .filter((to) => to.startsWith('src/store/'))
          .map((to) => `${f.path} → ${to}`),
      );
    expect(importing).toEqual([]);
  });

  it("Slack's write methods are called only by the outbox and the reply", () => {
    const allowed = new Set(['src/slack/outbox/outbox.ts', 'src/slack/reply.ts']);
    const calling = files.flatMap((f) =>
      code(f.text)
        .split('\n')
        .filter((line) => WRITE_METHOD.test(line))
        .map((line) => `${f.path}: ${line.trim()}`),
    );
    expect(calling.length).toBeGreaterThan(0);
    expect(calling.filter((c) => !allowed.has(c.slice(0, c.indexOf(':'))))).toEqual([]);
  });

  it('there is no service locator: no servicesOf anywhere in src/', () => {
    expect(files.filter((f) => /\bservicesOf\b/.test(f.text)).map((f) => f.path)).toEqual([]);
  });

  it('every listener file is under 120 lines', () => {
    const long = files
      .filter((f) => f.path.startsWith('src/slack/listeners/'))
      .map((f) => ({ path: f.path, lines: f.text.split('\n').length - (f.text.endsWith('\n') ? 1 : 0) }))
      .filter((f) => f.lines >= 120)
      .map((f) => `${f.path}: ${f.lines} lines`);
    expect(long).toEqual([]);
  });
});
