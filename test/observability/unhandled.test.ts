/** A stray rejected promise is logged and counted, and the process keeps running (Node's default is to exit). */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { logLines, ROOT } from '../helpers/processes.ts';

const script = `
import { createLogger } from ${JSON.stringify(pathToFileURL(join(ROOT, 'src/observability/log.ts')).href)};
import { createMetrics } from ${JSON.stringify(pathToFileURL(join(ROOT, 'src/observability/metrics.ts')).href)};
import { trackUnhandledRejections } from ${JSON.stringify(pathToFileURL(join(ROOT, 'src/observability/unhandled.ts')).href)};
const metrics = createMetrics({ defaultMetrics: false });
trackUnhandledRejections(createLogger('info'), metrics);
Promise.reject(new Error('nobody awaited this; token xoxb-1-2-leak'));
Promise.reject('a bare string');
setTimeout(async () => {
  const text = await metrics.registry.metrics();
  console.log(JSON.stringify({ msg: 'still running', line: text.split('\\n').find((l) => l.startsWith('mergequeue_unhandled_rejections_total')) }));
}, 50);
`;

describe('unhandled rejections', () => {
  it('are logged (redacted) and counted, and do not stop the process', () => {
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 10_000,
    });
    const rows = logLines(out);
    const logged = rows.filter((r) => r['msg'] === 'unhandled promise rejection');
    expect(logged).toHaveLength(2);
    expect(logged[0]).toMatchObject({
      level: 'error',
      err: { message: 'nobody awaited this; token [redacted]' },
    });
    expect(logged[1]).toMatchObject({ err: { message: 'a bare string' } });
    expect(rows.at(-1)).toEqual({ msg: 'still running', line: 'mergequeue_unhandled_rejections_total 2' });
    expect(out).not.toContain('xoxb-1-2-leak');
  });
});
