// trades.csv: every execution of a run (fills and liquidation closes) with its realised PnL, and the funding
// settlements, in time order (executions before the funding of the same instant). A run writes the executions' lines
// as they happen (as bytes, straight into the spill's buffer); the funding rows, known at the end, are merged in when
// the file is put together.
import { closeSync, openSync } from 'node:fs';
import type { Fill } from '../domain/market.js';
import type { FillKind, TradeCsvRow } from './futures.js';
import { putByte, putInt, putText, textBytes } from './byte-text.js';
import { writeAll, type SpillFile } from './spill-file.js';

/**
 * trades.csv's columns: those of a fill, then the row's kind (fill, liquidation or funding), the position side
 * (futures) and a funding row's rate.
 */
export const TRADES_CSV_HEADER = 'ts,symbol,order_id,fill_id,side,price,size,amount,fee,realized_pnl,kind,position_side,rate';

/**
 * A trades.csv line. A fill or a liquidation's close: the execution with its realised PnL at average cost, fees
 * included, and the position side (futures). A funding settlement: its signed amount (a change of collateral:
 * negative when paid) as amount and realised PnL, no fee, the rate where it is certain and the side it implies.
 */
export function tradesCsvLine(r: TradeCsvRow): string {
  if (r.kind === 'funding') return [r.timestampMs, r.symbol, '', '', '', '', '', r.amount, '0', r.amount, r.kind, r.positionSide ?? '', r.rate ?? ''].join(',');
  const t = r.trade;
  return [t.timestampMs, t.symbol, t.orderId, t.fillId, t.side, t.price, t.size, t.amount, t.fee, t.realizedPnl, r.kind, r.positionSide ?? '', ''].join(',');
}

/** An execution's line (tradesCsvLine's), from the fill, its realised PnL as text and how it was made. */
export function executionCsvLine(f: Fill, realizedPnl: string, kind: FillKind | undefined): string {
  return `${f.timestampMs},${f.symbol},${f.orderId},${f.fillId},${f.side},${f.price.toString()},${f.size.toString()},${f.amount.toString()},${f.fee.toString()},${realizedPnl},${kind?.liquidation ? 'liquidation' : 'fill'},${kind?.positionSide ?? ''},`;
}

/** What writes an execution's realised PnL into a line: the most bytes it takes, and the text written at `at`. */
export interface RealizedText {
  realizedBytes(): number;
  putRealized(buf: Buffer, at: number): number;
}

/** The most bytes an execution's line (and its newline) takes, its realised PnL's apart. */
export const executionCsvBytes = (f: Fill): number =>
  textBytes(f.symbol) +
  textBytes(f.orderId) +
  textBytes(f.fillId) +
  textBytes(f.price.toString()) +
  textBytes(f.size.toString()) +
  textBytes(f.amount.toString()) +
  textBytes(f.fee.toString()) +
  64;

/** executionCsvLine() and its newline, the realised PnL as `realized` writes it, into `buf` at `at`; the offset after it. */
export function putExecutionCsvLine(buf: Buffer, at: number, f: Fill, realized: RealizedText, kind: FillKind | undefined): number {
  at = putByte(buf, putInt(buf, at, f.timestampMs), 44);
  at = putByte(buf, putText(buf, at, f.symbol), 44);
  at = putByte(buf, putText(buf, at, f.orderId), 44);
  at = putByte(buf, putText(buf, at, f.fillId), 44);
  at = putByte(buf, putText(buf, at, f.side), 44);
  at = putByte(buf, putText(buf, at, f.price.toString()), 44);
  at = putByte(buf, putText(buf, at, f.size.toString()), 44);
  at = putByte(buf, putText(buf, at, f.amount.toString()), 44);
  at = putByte(buf, putText(buf, at, f.fee.toString()), 44);
  at = putByte(buf, realized.putRealized(buf, at), 44);
  at = putByte(buf, putText(buf, at, kind?.liquidation ? 'liquidation' : 'fill'), 44);
  if (kind?.positionSide) at = putText(buf, at, kind.positionSide);
  return putByte(buf, putByte(buf, at, 44), 10);
}

/** The time of the line starting at `at` (its first column). */
function lineTs(buf: Buffer, at: number): number {
  let ts = 0;
  for (let i = at; i < buf.length; i++) {
    const c = buf[i]!;
    if (c < 48 || c > 57) break;
    ts = ts * 10 + (c - 48);
  }
  return ts;
}

/**
 * Where each of `times` (in order) goes in the spilled executions: the offset of the first line (after the header)
 * of a later time, or the end.
 */
function cutPoints(executions: SpillFile, times: readonly number[]): number[] {
  const cuts: number[] = [];
  let j = 0;
  let header = true;
  // The bytes of a line a chunk ended in, and where it starts.
  let carry = Buffer.alloc(0);
  let carryAt = 0;
  executions.scan((chunk, at) => {
    if (j >= times.length) return;
    const buf = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
    const base = carry.length > 0 ? carryAt : at;
    let pos = 0;
    for (let nl = buf.indexOf(10, pos); nl >= 0 && j < times.length; nl = buf.indexOf(10, pos)) {
      if (header) header = false;
      else for (const ts = lineTs(buf, pos); j < times.length && ts > times[j]!; j++) cuts.push(base + pos);
      pos = nl + 1;
    }
    carry = Buffer.from(buf.subarray(pos));
    carryAt = base + pos;
  });
  while (cuts.length < times.length) cuts.push(executions.offset());
  return cuts;
}

/**
 * Writes trades.csv at `file` from `executions` (the header line, then the executions' lines in time order) and the
 * funding rows (in time order): each funding row after the executions of its instant and before any later one.
 */
export function writeTradesCsv(file: string, executions: SpillFile, funding: readonly TradeCsvRow[]): void {
  if (funding.length === 0) return executions.moveTo(file);
  const cuts = cutPoints(
    executions,
    funding.map((r) => (r.kind === 'funding' ? r.timestampMs : r.trade.timestampMs)),
  );
  const fd = openSync(file, 'w');
  try {
    let from = 0;
    funding.forEach((r, i) => {
      executions.copyTo(fd, from, cuts[i]!);
      writeAll(fd, Buffer.from(`${tradesCsvLine(r)}\n`, 'utf8'));
      from = cuts[i]!;
    });
    executions.copyTo(fd, from);
  } finally {
    closeSync(fd);
  }
}
