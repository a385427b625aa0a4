/**
 * Generation stamps: marks indices as seen in the current generation without clearing an
 * array per use, so a "distinct" pass over `k` items costs `O(k)`, not `O(size)`.
 * `slot` is free scratch space per index, valid for marked indices of the current generation.
 */
export class Stamps {
  readonly mark: Int32Array;
  readonly slot: Int32Array;
  private gen = 0;
  constructor(size: number) {
    this.mark = new Int32Array(size);
    this.slot = new Int32Array(size);
  }
  /** Starts a new generation and returns its stamp (no index is marked with it yet). */
  next(): number {
    if (this.gen >= 0x7ffffff0) {
      this.mark.fill(0);
      this.gen = 0;
    }
    return ++this.gen;
  }
}
