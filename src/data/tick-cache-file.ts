// The binary tick cache's file layout: replay records as integer columns in chunks, a header (JSON) that says what
// source and units they were made from and indexes the chunks, and the chunk writer and reader. Numbers are in the
// machine's byte order, which the header names (a cache of the other order is stale).
//
//   prefix (24 bytes): magic "SXTICKS\0" | format (u32 LE) | header length (u32 LE) | header offset (f64 LE)
//   chunks, each: ts, last, bid, ask, size[, mark][, index] (f64 × count each), sym (u16 × count), maker (u8 × count),
//                 every column starting on an 8-byte boundary
//   header (JSON, written last)
import { closeSync, fsyncSync, openSync, readSync, writeSync } from 'node:fs';
import { endianness } from 'node:os';
import { TickColumns } from '../domain/tick-columns.js';

/** Bumped whenever the layout or the meaning of a column changes: a cache of another format is rebuilt. */
export const TICK_CACHE_FORMAT = 1;
const MAGIC = Buffer.from('SXTICKS\0', 'latin1');
const PREFIX_BYTES = 24;

/** One chunk of the cache: where it is, its rows and times, and where each of its symbols first appears. */
export interface ChunkEntry {
  offset: number;
  count: number;
  firstTs: number;
  lastTs: number;
  /** Whether the chunk stores the mark / index columns (absent: every row's is 0). */
  mark: boolean;
  index: boolean;
  /** Each symbol of the chunk (by its index in the header's symbols) with its first row. */
  firstRows: Array<[symbol: number, row: number]>;
}

/**
 * A symbol the source holds, with the units its records were converted in (a symbol without units is one the
 * simulator did not trade when the cache was built: its records were left out).
 */
export interface CacheSymbol {
  symbol: string;
  tickSize?: string;
  stepSize?: string;
}

/** A first record of a symbol as numbers: sym (header index), ts, last, bid, ask, size, maker, mark, index. */
export type FirstRecord = [number, number, number, number, number, number, number, number, number];

export interface TickCacheHeader {
  format: number;
  byteOrder: 'LE' | 'BE';
  /** The source the cache was made from, as it was then: any difference makes the cache stale. */
  source: { path: string; size: number; mtimeMs: number };
  symbols: CacheSymbol[];
  /** Records in all, and the times of the first and last (NaN-free: 0 when none). */
  count: number;
  firstTs: number;
  lastTs: number;
  /** Each symbol's first record. */
  firsts: FirstRecord[];
  chunks: ChunkEntry[];
}

/** Byte offsets of a chunk's columns. */
type F64Column = 'ts' | 'last' | 'bid' | 'ask' | 'size' | 'mark' | 'index';

function layout(count: number, mark: boolean, index: boolean): { f64: F64Column[]; sym: number; maker: number; bytes: number } {
  const f64: F64Column[] = ['ts', 'last', 'bid', 'ask', 'size'];
  if (mark) f64.push('mark');
  if (index) f64.push('index');
  const sym = f64.length * count * 8;
  const maker = sym + Math.ceil((count * 2) / 8) * 8;
  return { f64, sym, maker, bytes: maker + Math.ceil(count / 8) * 8 };
}

const bytesOf = (view: ArrayBufferView, from: number, rows: number, width: number): Buffer => Buffer.from(view.buffer, view.byteOffset + from * width, rows * width);

/** A cache that could not be written (a read-only folder, a full disk): the caller reads the source instead. */
export class TickCacheWriteError extends Error {}

function writing<T>(what: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw new TickCacheWriteError(`${what}: ${(err as Error).message}`);
  }
}

/** Writes chunks of columns to a new file, then its header. */
export class TickChunkWriter {
  readonly chunks: ChunkEntry[] = [];
  private readonly fd: number;
  private pos = PREFIX_BYTES;
  private readonly firsts = new Map<number, FirstRecord>();
  private count = 0;
  private readonly pad = Buffer.alloc(8);
  private closed = false;

  constructor(readonly path: string) {
    this.fd = writing(`cannot create ${path}`, () => openSync(path, 'wx', 0o644));
  }

  /** Writes the block's rows (in time order) as one chunk. */
  write(cols: TickColumns): ChunkEntry {
    const { begin, end } = cols;
    const count = end - begin;
    let mark = false;
    let index = false;
    const firstRows: Array<[number, number]> = [];
    const seen = new Set<number>();
    for (let i = begin; i < end; i++) {
      if (cols.mark[i] !== 0) mark = true;
      if (cols.index[i] !== 0) index = true;
      const s = cols.sym[i]!;
      if (seen.has(s)) continue;
      seen.add(s);
      firstRows.push([s, i - begin]);
      if (!this.firsts.has(s)) this.firsts.set(s, [s, cols.ts[i]!, cols.last[i]!, cols.bid[i]!, cols.ask[i]!, cols.size[i]!, cols.maker[i]!, cols.mark[i]!, cols.index[i]!]);
    }
    const lay = layout(count, mark, index);
    const entry: ChunkEntry = { offset: this.pos, count, firstTs: cols.ts[begin]!, lastTs: cols.ts[end - 1]!, mark, index, firstRows };
    writing(`cannot write ${this.path}`, () => {
      let at = this.pos;
      const put = (buf: Buffer) => {
        writeSync(this.fd, buf, 0, buf.length, at);
        const padded = Math.ceil(buf.length / 8) * 8;
        if (padded > buf.length) writeSync(this.fd, this.pad, 0, padded - buf.length, at + buf.length);
        at += padded;
      };
      for (const col of lay.f64) put(bytesOf(cols[col], begin, count, 8));
      put(bytesOf(cols.sym, begin, count, 2));
      put(bytesOf(cols.maker, begin, count, 1));
    });
    this.pos += lay.bytes;
    this.count += count;
    this.chunks.push(entry);
    return entry;
  }

  /** Writes the header and closes the file (flushed to disk). */
  finish(fields: Pick<TickCacheHeader, 'source' | 'symbols'>): void {
    const chunks = this.chunks;
    const header: TickCacheHeader = {
      format: TICK_CACHE_FORMAT, byteOrder: endianness(), ...fields, count: this.count,
      firstTs: chunks.length ? chunks[0]!.firstTs : 0, lastTs: chunks.length ? chunks[chunks.length - 1]!.lastTs : 0,
      firsts: [...this.firsts.values()], chunks,
    };
    writing(`cannot write ${this.path}`, () => {
      const json = Buffer.from(JSON.stringify(header), 'utf8');
      writeSync(this.fd, json, 0, json.length, this.pos);
      const prefix = Buffer.alloc(PREFIX_BYTES);
      MAGIC.copy(prefix, 0);
      prefix.writeUInt32LE(TICK_CACHE_FORMAT, 8);
      prefix.writeUInt32LE(json.length, 12);
      prefix.writeDoubleLE(this.pos, 16);
      writeSync(this.fd, prefix, 0, PREFIX_BYTES, 0);
      fsyncSync(this.fd);
    });
    this.close();
  }

  /** Closes the file (once: a file descriptor's number may be another file's once it is closed). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }
}

/** Reads rows of chunks of a file written by TickChunkWriter. */
export class TickChunkFile {
  private open = true;

  constructor(
    private readonly fd: number,
    readonly path: string,
  ) {}

  static open(path: string): TickChunkFile {
    return new TickChunkFile(openSync(path, 'r'), path);
  }

  /**
   * Reads rows [from, to) of a chunk into `into` from row `at` on (the caller makes room); `remap`, when given,
   * turns the file's symbol numbers into the reader's.
   */
  readRows(chunk: ChunkEntry, from: number, to: number, into: TickColumns, at: number, remap?: Uint16Array): void {
    const rows = to - from;
    if (rows <= 0) return;
    const lay = layout(chunk.count, chunk.mark, chunk.index);
    lay.f64.forEach((col, k) => this.read(bytesOf(into[col], at, rows, 8), chunk.offset + k * chunk.count * 8 + from * 8));
    if (!chunk.mark) into.mark.fill(0, at, at + rows);
    if (!chunk.index) into.index.fill(0, at, at + rows);
    this.read(bytesOf(into.sym, at, rows, 2), chunk.offset + lay.sym + from * 2);
    this.read(bytesOf(into.maker, at, rows, 1), chunk.offset + lay.maker + from);
    if (remap) for (let i = at; i < at + rows; i++) into.sym[i] = remap[into.sym[i]!]!;
  }

  /** The times of a chunk's rows. */
  readTs(chunk: ChunkEntry, into: Float64Array): void {
    this.read(bytesOf(into, 0, chunk.count, 8), chunk.offset);
  }

  /** The header of a cache file, or null when the file is not a whole cache of this format. */
  readHeader(): TickCacheHeader | null {
    const prefix = Buffer.alloc(PREFIX_BYTES);
    if (readSync(this.fd, prefix, 0, PREFIX_BYTES, 0) !== PREFIX_BYTES || !prefix.subarray(0, 8).equals(MAGIC)) return null;
    if (prefix.readUInt32LE(8) !== TICK_CACHE_FORMAT) return null;
    const length = prefix.readUInt32LE(12);
    const offset = prefix.readDoubleLE(16);
    if (!Number.isSafeInteger(offset) || offset < PREFIX_BYTES) return null;
    const json = Buffer.alloc(length);
    if (readSync(this.fd, json, 0, length, offset) !== length) return null;
    try {
      const header = JSON.parse(json.toString('utf8')) as TickCacheHeader;
      return header.format === TICK_CACHE_FORMAT && header.byteOrder === endianness() && Array.isArray(header.chunks) ? header : null;
    } catch {
      return null;
    }
  }

  close(): void {
    if (!this.open) return;
    this.open = false;
    closeSync(this.fd);
  }

  private read(buf: Buffer, position: number): void {
    let done = 0;
    while (done < buf.length) {
      const n = readSync(this.fd, buf, done, buf.length - done, position + done);
      if (n === 0) throw new RangeError(`${this.path}: the tick cache ends before its chunk at byte ${position}`);
      done += n;
    }
  }
}
