// A small seeded PRNG (mulberry32): integer-only, so the same seed gives the same stream on every machine.
export class Prng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  /** Uniform 32-bit unsigned integer. */
  u32(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }
  /** Integer in [0, n), n ≤ 2^32, by modulo: slightly biased for large n, and kept so (the simulator's seeded streams depend on it). */
  below(n: number): number {
    return this.u32() % n;
  }
  /** Uniform integer in [0, n), n up to 2^53, without modulo bias (rejection sampling). */
  uniformBelow(n: number): number {
    if (!Number.isSafeInteger(n) || n <= 0) throw new RangeError(`uniformBelow(${n}): expected a positive safe integer`);
    if (n <= 0x100000000) {
      const limit = 0x100000000 - (0x100000000 % n);
      for (;;) {
        const x = this.u32();
        if (x < limit) return x % n;
      }
    }
    // Above 2^32: 53 bits from two draws, rejection on the top.
    const span = 2 ** 53;
    const limit = span - (span % n);
    for (;;) {
      const x = (this.u32() >>> 11) * 0x100000000 + this.u32();
      if (x < limit) return x % n;
    }
  }
  /** True with probability ppm / 1,000,000. */
  chancePpm(ppm: number): boolean {
    return this.u32() % 1_000_000 < ppm;
  }
}

/** Derives independent stream seeds from one seed and a label (FNV-1a over the label). */
export function deriveSeed(seed: number, label: string): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < label.length; i++) {
    h ^= label.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}
