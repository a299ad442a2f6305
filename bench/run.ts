/**
 * `npm run bench` runs every benchmark; `npm run bench -- NAME` one of them. Each bench/*.bench.ts
 * exports `benchmark: Benchmark`. Prints a table and writes bench/results/latest.json.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { BenchFigure, Benchmark } from './types.ts';

const here = dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));

const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .sort();
const benches: Benchmark[] = [];
for (const f of files) {
  const mod = (await import(pathToFileURL(join(here, f)).href)) as { benchmark: Benchmark };
  benches.push(mod.benchmark);
}
const selected = wanted.length ? benches.filter((b) => wanted.includes(b.name)) : benches;
if (selected.length === 0) {
  console.error(`No benchmark named ${wanted.join(', ')}. Known: ${benches.map((b) => b.name).join(', ')}`);
  process.exit(2);
}

const results: BenchFigure[] = [];
for (const b of selected) {
  console.log(`\n▶ ${b.name}: ${b.description}`);
  const figures = await b.run();
  for (const f of figures) {
    console.log(
      `  ${f.ok ? 'ok  ' : 'MISS'} ${f.id.padEnd(44)} ${String(round(f.value)).padStart(12)} ${f.unit.padEnd(8)} ${f.target}`,
    );
  }
  results.push(...figures);
}

const out = join(here, 'results');
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`);
const missed = results.filter((r) => !r.ok);
console.log(
  `\n${results.length - missed.length}/${results.length} figures on target; written to bench/results/latest.json`,
);
process.exitCode = missed.length ? 1 : 0;

function round(n: number): number {
  return Math.abs(n) >= 100 ? Math.round(n) : Math.round(n * 1000) / 1000;
}
