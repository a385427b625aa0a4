/**
 * A small seeded pseudo-random generator for the dataset generator: sfc32 (Chris Doty-Humphrey's
 * "small fast counting" generator, 128-bit state, period >= 2^32) seeded through splitmix32.
 * Deterministic on every JavaScript engine: only 32-bit integer arithmetic (`Math.imul`, `>>>`).
 * It is part of the domain generator, not a security primitive.
 */
export class Prng {
  #a: number;
  #b: number;
  #c: number;
  #d: number;

  /**
   * Seeds the generator from a safe integer (negative and > 2^32 seeds are distinct).
   * Throws `RangeError` when `seed` is not a safe integer.
   */
  constructor(seed: number) {
    if (!Number.isSafeInteger(seed)) {
      throw new RangeError(`seed must be a safe integer, got ${String(seed)}`);
    }
    let s = (seed >>> 0) ^ Math.imul(Math.floor(seed / 0x1_0000_0000) >>> 0, 0x9e3779b9);
    const splitmix = (): number => {
      s = (s + 0x9e3779b9) | 0;
      let z = s;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.#a = splitmix();
    this.#b = splitmix();
    this.#c = splitmix();
    this.#d = splitmix();
    for (let i = 0; i < 12; i++) this.uint32();
  }

  /** The next unsigned 32-bit integer, in [0, 2^32). */
  uint32(): number {
    const t = (((this.#a + this.#b) | 0) + this.#d) | 0;
    this.#d = (this.#d + 1) | 0;
    this.#a = this.#b ^ (this.#b >>> 9);
    this.#b = (this.#c + (this.#c << 3)) | 0;
    this.#c = (this.#c << 21) | (this.#c >>> 11);
    this.#c = (this.#c + t) | 0;
    return t >>> 0;
  }

  /** A float in [0, 1) with 32 bits of randomness. */
  float(): number {
    return this.uint32() / 0x1_0000_0000;
  }

  /** An integer in [0, n); `n` is a positive integer below 2^32. */
  int(n: number): number {
    return Math.floor(this.float() * n);
  }

  /** An integer in [min, max], both inclusive. */
  between(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  /** `true` with probability `p` (0 never, 1 always). */
  chance(p: number): boolean {
    return this.float() < p;
  }

  /** A uniformly chosen element of a non-empty array. */
  pick<T>(items: readonly T[]): T {
    const item = items[this.int(items.length)];
    if (item === undefined) throw new RangeError('pick from an empty array');
    return item;
  }

  /** `length` lowercase hex characters. */
  hex(length: number): string {
    let out = '';
    while (out.length < length) out += this.uint32().toString(16).padStart(8, '0');
    return out.slice(0, length);
  }

  /** `length` characters drawn from `alphabet`. */
  chars(length: number, alphabet: string): string {
    let out = '';
    for (let i = 0; i < length; i++) out += alphabet[this.int(alphabet.length)];
    return out;
  }
}
