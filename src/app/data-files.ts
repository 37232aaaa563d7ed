// Market data files for backtests: OHLCV CSV import (with a documented intrabar path) into the replay format.
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import type { Observable } from 'rxjs';
import { Decimal } from '../domain/decimal.js';
import type { Ticker } from '../domain/market.js';
import type { ReplayRecord } from '../exchange/sim/market.js';

export class DataFileError extends Error {}

/**
 * Reads `timestamp,open,high,low,close,volume` rows (a header row is optional; timestamps in ms, s or ISO) and
 * turns each bar into four ticks: open, then the extreme the bar went to first, then the other, then close.
 * A bar that closes up is taken to have gone down first (open, low, high, close); one that closes down, up
 * first (open, high, low, close). The ticks sit at 0, ¼, ½ and ¾ of the bar, each with a quarter of its volume.
 */
export function importOhlcvCsv(file: string, symbol: string): ReplayRecord[] {
  const lines = readFileSync(file, 'utf8').split(/\r?\n/);
  const bars: Array<{ ts: number; o: Decimal; h: Decimal; l: Decimal; c: Decimal; v: Decimal; line: number }> = [];
  lines.forEach((text, i) => {
    if (text.trim() === '') return;
    const cols = text.split(',').map((c) => c.trim());
    if (i === 0 && !/^\d/.test(cols[0] ?? '')) return; // header
    const at = (col: number, what: string) => `${file}:${i + 1}:${text.split(',').slice(0, col).join(',').length + (col > 0 ? 2 : 1)}: ${what}`;
    if (cols.length < 6) throw new DataFileError(at(0, `expected 6 columns (timestamp,open,high,low,close,volume), got ${cols.length}`));
    const raw = cols[0]!;
    const ts = /^\d{13}$/.test(raw) ? Number(raw) : /^\d{10}$/.test(raw) ? Number(raw) * 1000 : Date.parse(raw);
    if (!Number.isFinite(ts)) throw new DataFileError(at(0, `timestamp ${JSON.stringify(raw)} is not ms, s or ISO`));
    const num = (col: number, name: string) => {
      const d = Decimal.parse(cols[col]!);
      if (!d || d.isNegative()) throw new DataFileError(at(col, `${name} ${JSON.stringify(cols[col])} is not a non-negative decimal`));
      return d;
    };
    const [o, h, l, c, v] = [num(1, 'open'), num(2, 'high'), num(3, 'low'), num(4, 'close'), num(5, 'volume')];
    if (h.lt(o) || h.lt(c) || h.lt(l) || l.gt(o) || l.gt(c)) throw new DataFileError(at(2, 'high and low do not bound open and close'));
    const prev = bars[bars.length - 1];
    if (prev && ts <= prev.ts) throw new DataFileError(at(0, 'timestamps must increase'));
    bars.push({ ts, o, h, l, c, v, line: i + 1 });
  });
  if (bars.length === 0) throw new DataFileError(`${file}: no rows`);
  const out: ReplayRecord[] = [];
  bars.forEach((b, k) => {
    const next = bars[k + 1];
    const span = next ? next.ts - b.ts : k > 0 ? b.ts - bars[k - 1]!.ts : 60_000;
    const path = b.c.gte(b.o) ? [b.o, b.l, b.h, b.c] : [b.o, b.h, b.l, b.c];
    const size = b.v.div(Decimal.fromInt(4), 12);
    path.forEach((p, j) => out.push({ ts: b.ts + Math.floor((span * j) / 4), symbol, price: p.toString(), size: size.isZero() ? '0.000001' : size.toString() }));
  });
  return out;
}

export function writeReplayFile(file: string, records: ReplayRecord[]): void {
  writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
}

/**
 * Records polled market data (futures tickers, spot last trades) as replay records until `stop` resolves.
 * Tickers carry no trade size: records say size "0", which a replay treats as one step.
 */
export async function record(
  data: { tickers$: Observable<{ value: Map<string, Ticker> }> },
  out: string,
  stop: Promise<void>,
): Promise<number> {
  writeFileSync(out, '');
  let n = 0;
  const seen = new Map<string, number>();
  const sub = data.tickers$.subscribe(({ value }) => {
    const lines: string[] = [];
    for (const t of value.values()) {
      if (!t.last || seen.get(t.symbol) === t.timestampMs) continue; // the same sample twice is recorded once
      seen.set(t.symbol, t.timestampMs);
      const r: ReplayRecord = {
        ts: t.timestampMs, symbol: t.symbol, price: t.last.toString(), size: '0',
        ...(t.bestBid ? { bid: t.bestBid.toString() } : {}), ...(t.bestAsk ? { ask: t.bestAsk.toString() } : {}),
      };
      lines.push(JSON.stringify(r));
    }
    if (lines.length) {
      appendFileSync(out, lines.join('\n') + '\n');
      n += lines.length;
    }
  });
  await stop;
  sub.unsubscribe();
  return n;
}
