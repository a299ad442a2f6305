/**
 * Small deterministic random numbers for the fake: the same seed gives the same data and the same
 * fault sequence, so a failing soak or pagination test can be replayed exactly.
 */

export type Rng = () => number;

/** mulberry32: fast, 32-bit state, good enough for test data (not for anything secret). */
export function createRng(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Mixes a seed with an index so row i can be generated on its own (lazy pages) and still match. */
export function mixSeed(seed: number, index: number): number {
  let h = (seed ^ Math.imul(index + 0x9e3779b9, 0x85ebca6b)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d) >>> 0;
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

/** A 32-bit hash of a string (FNV-1a), to fold repo names into seeds. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export function pick<T>(rng: Rng, items: readonly T[]): T {
  return items[Math.floor(rng() * items.length)] as T;
}

export function intBetween(rng: Rng, min: number, max: number): number {
  return min + Math.floor(rng() * (max - min + 1));
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

function hex32(x: number): string {
  return (
    (HEX[(x >>> 24) & 0xff] as string) +
    (HEX[(x >>> 16) & 0xff] as string) +
    (HEX[(x >>> 8) & 0xff] as string) +
    (HEX[x & 0xff] as string)
  );
}

/** A UUID v4 shaped string drawn from the rng (deterministic, unlike crypto.randomUUID). */
export function uuidFrom(rng: Rng): string {
  const a = hex32(Math.floor(rng() * 4294967296));
  const b = hex32(Math.floor(rng() * 4294967296));
  const c = hex32(Math.floor(rng() * 4294967296));
  const d = hex32(Math.floor(rng() * 4294967296));
  const variant = '89ab'[Number.parseInt(c[0] as string, 16) & 0x3] as string;
  return `${a}-${b.slice(0, 4)}-4${b.slice(5, 8)}-${variant}${c.slice(1, 4)}-${c.slice(4)}${d}`;
}

export function hexFrom(rng: Rng, length: number): string {
  let out = '';
  while (out.length < length)
    out += Math.floor(rng() * 4294967296)
      .toString(16)
      .padStart(8, '0');
  return out.slice(0, length);
}
