/**
 * The only randomness the demo data uses: sfc32 seeded with the first 16 bytes of SHA-256 of a text seed.
 * @module
 */
import { createHash } from "node:crypto";

/** A deterministic pseudo-random generator seeded through SHA-256. */
export class SeededRandom {
  #a: number;
  #b: number;
  #c: number;
  #d: number;

  constructor(seed: string) {
    const digest = createHash("sha256").update(seed, "utf8").digest();
    this.#a = digest.readUInt32LE(0);
    this.#b = digest.readUInt32LE(4);
    this.#c = digest.readUInt32LE(8);
    this.#d = digest.readUInt32LE(12);
    for (let i = 0; i < 12; i++) this.nextUint32();
  }

  nextUint32(): number {
    const t = (((this.#a + this.#b) | 0) + this.#d) | 0;
    this.#d = (this.#d + 1) | 0;
    this.#a = this.#b ^ (this.#b >>> 9);
    this.#b = (this.#c + (this.#c << 3)) | 0;
    this.#c = (this.#c << 21) | (this.#c >>> 11);
    this.#c = (this.#c + t) | 0;
    return t >>> 0;
  }

  next(): number {
    return this.nextUint32() / 4294967296;
  }

  /** Fills `out` with `Math.floor(this.next() * n)` draws, as `out.length` calls of {@link next} would. */
  fillBelow(out: Uint32Array, n: number): void {
    let a = this.#a;
    let b = this.#b;
    let c = this.#c;
    let d = this.#d;
    for (let i = 0; i < out.length; i++) {
      const t = (((a + b) | 0) + d) | 0;
      d = (d + 1) | 0;
      a = b ^ (b >>> 9);
      b = (c + (c << 3)) | 0;
      c = (c << 21) | (c >>> 11);
      c = (c + t) | 0;
      out[i] = Math.floor(((t >>> 0) / 4294967296) * n);
    }
    this.#a = a;
    this.#b = b;
    this.#c = c;
    this.#d = d;
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      [out[i], out[j]] = [out[j], out[i]];
    }
    return out;
  }
}
