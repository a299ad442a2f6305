/**
 * A fixed-size Bloom filter of test ids: what a digest remembers of the previous run so the next one can
 * say what is new and what recovered, in 32 KiB whatever the repository's size. False positives (a new
 * test taken for a known one, so "new" and "recovered" counts read slightly low) stay below 1 in 100,000
 * up to 5,000 tests and about 0.5% at 20,000.
 */
const BITS = 1 << 18;
const HASHES = 5;

function fnv1a(s: string, seed: number): number {
  let h = seed >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  // final avalanche so nearby ids spread over the whole bit array
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h >>> 0;
}

export class Bloom {
  readonly bits: Uint8Array;
  constructor(bits?: Uint8Array) {
    this.bits = bits ?? new Uint8Array(BITS / 8);
  }

  static fromBase64(b64: string): Bloom | undefined {
    const buf = Buffer.from(b64, 'base64');
    return buf.length === BITS / 8 ? new Bloom(new Uint8Array(buf)) : undefined;
  }

  toBase64(): string {
    return Buffer.from(this.bits).toString('base64');
  }

  #positions(id: string): number[] {
    const a = fnv1a(id, 0x811c9dc5);
    const b = fnv1a(id, 0x9747b28c) | 1;
    const out: number[] = [];
    for (let i = 0; i < HASHES; i++) out.push(((a + Math.imul(i, b)) >>> 0) % BITS);
    return out;
  }

  has(id: string): boolean {
    return this.#positions(id).every((p) => (this.bits[p >>> 3]! & (1 << (p & 7))) !== 0);
  }

  /** Adds id; returns false when it (probably) was there already. */
  add(id: string): boolean {
    let fresh = false;
    for (const p of this.#positions(id)) {
      const mask = 1 << (p & 7);
      if ((this.bits[p >>> 3]! & mask) === 0) {
        fresh = true;
        this.bits[p >>> 3]! |= mask;
      }
    }
    return fresh;
  }
}
