// Blocks of tick columns read in order from chunks of a cache file, and the k-way merge of several sequences of
// blocks into one in time order: records of one instant come from the earlier sequence first, then in their order.
import { TickColumns, copyRows } from '../domain/tick-columns.js';
import type { ChunkEntry, TickChunkFile } from './tick-cache-file.js';

/** A sequence of blocks in time order; a block may be reused by the next call. */
export interface BlockSource {
  next(): TickColumns | null;
}

/** Rows [from, to) of a chunk. */
export interface ChunkSegment {
  chunk: ChunkEntry;
  from: number;
  to: number;
}

/** The rows of chunk segments of a file, in blocks of at most `blockRows` (one buffer, reused). */
export class ChunkBlocks implements BlockSource {
  private k = 0;
  private row: number;
  private readonly block: TickColumns;

  constructor(
    private readonly file: TickChunkFile,
    private readonly segments: readonly ChunkSegment[],
    blockRows: number,
    private readonly remap?: Uint16Array,
  ) {
    this.block = new TickColumns(Math.max(1, blockRows));
    this.row = segments[0]?.from ?? 0;
  }

  next(): TickColumns | null {
    while (this.k < this.segments.length) {
      const seg = this.segments[this.k]!;
      if (this.row >= seg.to) {
        this.k++;
        this.row = this.segments[this.k]?.from ?? 0;
        continue;
      }
      const to = Math.min(seg.to, this.row + this.block.capacity);
      this.file.readRows(seg.chunk, this.row, to, this.block, 0, this.remap);
      this.block.begin = 0;
      this.block.end = to - this.row;
      this.row = to;
      return this.block;
    }
    return null;
  }
}

/**
 * Several sequences merged in time order into blocks of at most `outRows`: a binary heap of the sequences by their
 * next record (time, then the sequence's place); the records of the first that come before every other's next one are
 * copied in one go.
 */
export class MergedBlocks implements BlockSource {
  private readonly heads: Array<TickColumns | null>;
  private readonly pos: number[];
  private readonly heap: number[] = [];
  private readonly out: TickColumns;

  constructor(
    private readonly sources: readonly BlockSource[],
    outRows: number,
  ) {
    this.out = new TickColumns(Math.max(1, outRows));
    this.heads = sources.map((s) => s.next());
    this.pos = this.heads.map((b) => b?.begin ?? 0);
    this.heads.forEach((b, i) => {
      if (b) this.heap.push(i);
    });
    for (let i = (this.heap.length >> 1) - 1; i >= 0; i--) this.siftDown(i);
  }

  next(): TickColumns | null {
    const { out, heap, heads, pos } = this;
    let n = 0;
    while (n < out.capacity && heap.length > 0) {
      const s = heap[0]!;
      const blk = heads[s]!;
      const i = pos[s]!;
      const limit = Math.min(blk.end, i + out.capacity - n);
      let j = limit;
      if (heap.length > 1) {
        const o = heap.length > 2 && this.less(heap[2]!, heap[1]!) ? heap[2]! : heap[1]!;
        const t2 = heads[o]!.ts[pos[o]!]!;
        j = i + 1;
        if (s < o) while (j < limit && blk.ts[j]! <= t2) j++;
        else while (j < limit && blk.ts[j]! < t2) j++;
      }
      copyRows(blk, i, j, out, n);
      n += j - i;
      pos[s] = j;
      if (j === blk.end) {
        const fresh = this.sources[s]!.next();
        if (fresh) {
          heads[s] = fresh;
          pos[s] = fresh.begin;
        } else {
          heads[s] = null;
          const lastOne = heap.pop()!;
          if (heap.length > 0) heap[0] = lastOne;
        }
      }
      if (heap.length > 0) this.siftDown(0);
    }
    out.begin = 0;
    out.end = n;
    return n > 0 ? out : null;
  }

  /** Whether sequence a's next record comes before sequence b's. */
  private less(a: number, b: number): boolean {
    const ta = this.heads[a]!.ts[this.pos[a]!]!;
    const tb = this.heads[b]!.ts[this.pos[b]!]!;
    return ta < tb || (ta === tb && a < b);
  }

  private siftDown(k: number): void {
    const heap = this.heap;
    for (;;) {
      const l = 2 * k + 1;
      if (l >= heap.length) return;
      const r = l + 1;
      const c = r < heap.length && this.less(heap[r]!, heap[l]!) ? r : l;
      if (!this.less(heap[c]!, heap[k]!)) return;
      [heap[c], heap[k]] = [heap[k]!, heap[c]!];
      k = c;
    }
  }
}
