// Recordings of the venue's tape (spot trades, futures tickers) into tick files (data-file.ts), header first.
import { writeFileSync } from 'node:fs';
import type { Observable } from 'rxjs';
import { Decimal } from '../domain/decimal.js';
import type { PublicTrade } from '../domain/market.js';
import type { ReplayRecord } from '../domain/replay-record.js';
import type { Logger } from '../util/logger.js';
import { TAPE_TRADES_LIMIT, type MarketTape } from './market-data.js';
import { dataFileMeta } from './data-file.js';
import { appendReplayRecords, writeReplayFile } from './replay-file.js';

/**
 * Turns the polled tape into replay records, each one a trade with a size (never "0": a replay takes every record
 * for a trade, and a sample with no traded size would be a trade that never happened):
 * - a spot pair's public trades (S9) with their sizes and sides (`buyerMaker`), each once: successive reads
 *   overlap, so a trade is new when it is later than the last one recorded, or as late with an id not recorded;
 * - a futures ticker (F2; the interface has no futures trade tape) as one trade at its last price with its best
 *   bid and ask, sized by what its 24 h base volume grew since the symbol's previous sample. The venue's 24 h
 *   volume is a rolling window (trades also leave it), so that growth is at most what traded: a lower bound, never
 *   an invented size. A sample whose volume did not grow, the first sample of a symbol (nothing to compare with)
 *   and a ticker without a volume write nothing.
 */
export class TapeRecorder {
  private readonly spot = new Map<string, { lastTs: number; idsAtLastTs: Set<string> }>();
  private readonly futures = new Map<string, { ts: number; volume: Decimal | null }>();

  /**
   * The new records of one read, in time order, and the spot pairs whose read was full without reaching back to
   * the trades recorded before (trades between the two reads may be missing: poll faster).
   */
  take(tape: MarketTape): { records: ReplayRecord[]; gaps: string[] } {
    const records: ReplayRecord[] = [];
    const gaps: string[] = [];
    const bySymbol = new Map<string, PublicTrade[]>();
    for (const t of tape.trades) {
      const list = bySymbol.get(t.symbol);
      if (list) list.push(t);
      else bySymbol.set(t.symbol, [t]);
    }
    for (const [symbol, newestFirst] of bySymbol) {
      // Oldest first; trades of one instant keep the venue's order.
      const trades = [...newestFirst].reverse().sort((a, b) => a.timestampMs - b.timestampMs);
      const seen = this.spot.get(symbol);
      if (seen && trades.length >= TAPE_TRADES_LIMIT && trades[0]!.timestampMs > seen.lastTs) gaps.push(symbol);
      const st = seen ?? { lastTs: -Infinity, idsAtLastTs: new Set<string>() };
      this.spot.set(symbol, st);
      for (const t of trades) {
        if (t.timestampMs < st.lastTs || (t.timestampMs === st.lastTs && st.idsAtLastTs.has(t.tradeId))) continue;
        if (t.timestampMs > st.lastTs) {
          st.lastTs = t.timestampMs;
          st.idsAtLastTs = new Set();
        }
        st.idsAtLastTs.add(t.tradeId);
        if (!t.size.gt(Decimal.ZERO) || !t.price.gt(Decimal.ZERO)) continue;
        records.push({ ts: t.timestampMs, symbol, price: t.price.toString(), size: t.size.toString(), buyerMaker: t.buyerMaker });
      }
    }
    for (const t of tape.tickers) {
      const prev = this.futures.get(t.symbol);
      if (prev?.ts === t.timestampMs) continue; // the same sample again
      const volume = t.baseVolume24h;
      this.futures.set(t.symbol, { ts: t.timestampMs, volume });
      if (!t.last || !volume || !prev?.volume || !volume.gt(prev.volume)) continue;
      records.push({
        ts: t.timestampMs, symbol: t.symbol, price: t.last.toString(), size: volume.sub(prev.volume).toString(),
        ...(t.bestBid ? { bid: t.bestBid.toString() } : {}), ...(t.bestAsk ? { ask: t.bestAsk.toString() } : {}),
      });
    }
    records.sort((a, b) => a.ts - b.ts);
    return { records, gaps };
  }
}

/** What a recording's header says: its symbols, the venue recorded (`record <venue>`) and when it started. */
export interface RecordingHeader {
  symbols: string[];
  venue: string;
  startMs: number;
}

/**
 * Records the polled tape (see TapeRecorder) into a tick file until `stop` resolves; returns how many records. The
 * header (`sextant record` always gives one) is written first; its span has a start only: the file grows as the
 * recording goes.
 */
export async function record(
  data: { tape$: Observable<{ value: MarketTape }> },
  out: string,
  stop: Promise<void>,
  opts: { logger?: Logger; header?: RecordingHeader } = {},
): Promise<number> {
  const header = opts.header;
  const meta = header ? dataFileMeta({ kind: 'ticks', symbols: header.symbols, source: `record ${header.venue}`, fromMs: header.startMs }) : undefined;
  if (meta) writeReplayFile(out, meta, []);
  else writeFileSync(out, '');
  let n = 0;
  const recorder = new TapeRecorder();
  const log = opts.logger?.child({ component: 'recorder' });
  const sub = data.tape$.subscribe(({ value }) => {
    const { records, gaps } = recorder.take(value);
    for (const symbol of gaps) log?.warn({ symbol, endpoint: 'S9', limit: TAPE_TRADES_LIMIT }, 'trade tape gap: more trades between two reads than one read returns (poll faster)');
    appendReplayRecords(out, records);
    n += records.length;
  });
  await stop;
  sub.unsubscribe();
  return n;
}
