// report.json's trade list written from round-trips.csv's lines, as the run put the list together: each line becomes
// the item JSON.stringify(report, null, 2) writes for its trip (two levels deep; entryAt and exitAt are the ISO
// texts of the times), the items separated as it separates them. The columns after the strategy are numbers, a side
// or empty (a strategy may hold a comma: it is what is left of the line before them).
import { putText } from './byte-text.js';
import { putIsoTime } from './iso-time.js';
import { writeAll } from './spill-file.js';

const bytes = (s: string) => Buffer.from(s, 'latin1');
const OPEN = bytes('    {\n      "strategy": ');
const SYMBOL = bytes(',\n      "symbol": ');
const SIDE = bytes(',\n      "side": "');
const ENTRY_MS = bytes('",\n      "entryMs": ');
const ENTRY_AT = bytes(',\n      "entryAt": "');
const FILLS = bytes('",\n      "fills": ');
const ENTRY_PRICE = bytes(',\n      "entryPrice": "');
const EXIT_MS = bytes('",\n      "exitMs": ');
const EXIT_AT = bytes(',\n      "exitAt": ');
const EXIT_AT_TEXT = bytes(',\n      "exitAt": "');
const EXIT_PRICE = bytes(',\n      "exitPrice": ');
const EXIT_PRICE_TEXT = bytes(',\n      "exitPrice": "');
const DURATION = bytes(',\n      "durationMs": ');
const SIZE = bytes(',\n      "size": "');
const PNL = bytes('",\n      "pnl": "');
const FEES = bytes('",\n      "fees": "');
const MAE = bytes('",\n      "mae": "');
const MFE = bytes('",\n      "mfe": "');
const CLOSE = bytes('"\n    }');
const SEPARATOR = bytes(',\n');
const NULL = bytes('null');
const QUOTE = bytes('"');

/** Columns of a line after the strategy's. */
const AFTER_STRATEGY = 13;
/** The most bytes an item takes beyond its line's own (names, quotes, nulls, two ISO times). */
const ITEM_BYTES = 400;

export class TripJsonWriter {
  private out = Buffer.allocUnsafe(1 << 18);
  private used = 0;
  private items = 0;
  private header = true;
  /** A line a chunk ended in. */
  private carry: Buffer | null = null;
  /** Where the line's commas are. */
  private readonly commas = new Int32Array(AFTER_STRATEGY);

  /** `fd`: where the items go. */
  constructor(private readonly fd: number) {}

  /** The next bytes of round-trips.csv (its header first); lines may run across chunks. */
  chunk(buf: Uint8Array): void {
    let from = 0;
    if (this.carry) {
      const nl = buf.indexOf(10);
      if (nl < 0) {
        this.carry = Buffer.concat([this.carry, buf]);
        return;
      }
      const line = Buffer.concat([this.carry, buf.subarray(0, nl + 1)]);
      this.carry = null;
      this.line(line, 0, line.length - 1);
      from = nl + 1;
    }
    for (let i = from; i < buf.length; i++) {
      if (buf[i] !== 10) continue;
      this.line(buf, from, i);
      from = i + 1;
    }
    if (from < buf.length) this.carry = Buffer.from(buf.subarray(from));
  }

  /** Writes out what is left. */
  end(): void {
    if (this.carry) throw new Error('round-trips.csv ends inside a line');
    this.flush();
  }

  /** The line [from, end) of `buf` (end: its newline). */
  private line(buf: Uint8Array, from: number, end: number): void {
    if (this.header) {
      this.header = false;
      return;
    }
    const commas = this.commas;
    let k = AFTER_STRATEGY;
    for (let i = end - 1; k > 0 && i >= from; i--) if (buf[i] === 44) commas[--k] = i;
    if (k > 0) throw new Error(`round-trips.csv: a line of fewer than ${AFTER_STRATEGY + 1} columns`);
    const most = (end - from) * 6 + ITEM_BYTES;
    if (this.used + most > this.out.length) {
      this.flush();
      if (most > this.out.length) this.out = Buffer.allocUnsafe(most);
    }
    const out = this.out;
    // The columns' commas: symbol, side, entry_ts, entry_price, exit_ts, exit_price, duration_ms, size, pnl, fees, mae, mfe, fills.
    const symbol = commas[0]!;
    const side = commas[1]!;
    const entryTs = commas[2]!;
    const entryPrice = commas[3]!;
    const exitTs = commas[4]!;
    const exitPrice = commas[5]!;
    const duration = commas[6]!;
    const size = commas[7]!;
    const fills = commas[12]!;
    let at = this.used;
    if (this.items++ > 0) at = put(out, at, SEPARATOR);
    at = this.name(buf, from, symbol, put(out, at, OPEN));
    at = this.name(buf, symbol + 1, side, put(out, at, SYMBOL));
    at = copy(out, at, buf, side + 1, entryTs, SIDE);
    at = copy(out, at, buf, entryTs + 1, entryPrice, ENTRY_MS);
    at = putIsoTime(out, put(out, at, ENTRY_AT), int(buf, entryTs + 1, entryPrice));
    at = copy(out, at, buf, fills + 1, end, FILLS);
    at = copy(out, at, buf, entryPrice + 1, exitTs, ENTRY_PRICE);
    if (exitPrice > exitTs + 1) {
      at = copy(out, at, buf, exitTs + 1, exitPrice, EXIT_MS);
      at = put(out, putIsoTime(out, put(out, at, EXIT_AT_TEXT), int(buf, exitTs + 1, exitPrice)), QUOTE);
    } else at = put(out, put(out, put(out, put(out, at, EXIT_MS), NULL), EXIT_AT), NULL);
    at = duration > exitPrice + 1 ? put(out, copy(out, at, buf, exitPrice + 1, duration, EXIT_PRICE_TEXT), QUOTE) : put(out, put(out, at, EXIT_PRICE), NULL);
    at = size > duration + 1 ? copy(out, at, buf, duration + 1, size, DURATION) : put(out, put(out, at, DURATION), NULL);
    at = copy(out, at, buf, size + 1, commas[8]!, SIZE);
    at = copy(out, at, buf, commas[8]! + 1, commas[9]!, PNL);
    at = copy(out, at, buf, commas[9]! + 1, commas[10]!, FEES);
    at = copy(out, at, buf, commas[10]! + 1, commas[11]!, MAE);
    at = copy(out, at, buf, commas[11]! + 1, fills, MFE);
    this.used = put(out, at, CLOSE);
  }

  /** A name as JSON.stringify writes it: as it is between quotes when nothing in it is escaped, or beyond ASCII. */
  private name(buf: Uint8Array, from: number, to: number, at: number): number {
    for (let i = from; i < to; i++) {
      const b = buf[i]!;
      if (b < 0x20 || b > 0x7e || b === 0x22 || b === 0x5c)
        return putText(this.out, at, JSON.stringify(Buffer.from(buf.buffer, buf.byteOffset + from, to - from).toString('utf8')));
    }
    return put(this.out, copy(this.out, at, buf, from, to, QUOTE), QUOTE);
  }

  private flush(): void {
    writeAll(this.fd, this.out.subarray(0, this.used));
    this.used = 0;
  }
}

/** `piece` into `out` at `at`; the offset after it. */
function put(out: Buffer, at: number, piece: Buffer): number {
  for (let i = 0; i < piece.length; i++) out[at++] = piece[i]!;
  return at;
}

/** `before`, then bytes [from, to) of `buf`, into `out` at `at`; the offset after them. */
function copy(out: Buffer, at: number, buf: Uint8Array, from: number, to: number, before: Buffer): number {
  at = put(out, at, before);
  for (let i = from; i < to; i++) out[at++] = buf[i]!;
  return at;
}

/** The integer written at [from, to) of `buf`. */
function int(buf: Uint8Array, from: number, to: number): number {
  const neg = buf[from] === 45;
  let n = 0;
  for (let i = neg ? from + 1 : from; i < to; i++) n = n * 10 + (buf[i]! - 48);
  return neg ? -n : n;
}
