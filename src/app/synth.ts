// Synthetic market data files (tick files with their header) from the seeded synthetic market.
import { Decimal } from '../domain/decimal.js';
import type { SimInstrumentSpec } from '../exchange/sim/instruments.js';
import { SyntheticMarket } from '../exchange/sim/market.js';
import type { ReplayRecord } from '../domain/replay-record.js';
import { dataFileMeta } from '../data/data-file.js';
import { writeReplayFile } from '../data/replay-file.js';

export function synthesize(
  specs: SimInstrumentSpec[],
  opts: { fromMs: number; toMs: number; intervalMs: number; seed: number; out: string; revertHalfLifeMs?: number },
): number {
  const market = new SyntheticMarket(specs, {
    seed: opts.seed,
    startMs: opts.fromMs,
    tickIntervalMs: opts.intervalMs,
    ...(opts.revertHalfLifeMs ? { revertHalfLifeMs: opts.revertHalfLifeMs } : {}),
  });
  const records: ReplayRecord[] = [];
  const price = (ticks: number, tickSize: Decimal) => tickSize.mul(Decimal.fromInt(ticks)).toString();
  market.advanceTo(opts.toMs, (tick) => {
    records.push({
      ts: tick.ts,
      symbol: tick.spec.symbol,
      price: price(tick.last, tick.tickSize),
      size: tick.stepSize.mul(Decimal.fromInt(tick.tradeSize)).toString(),
      bid: price(tick.bid, tick.tickSize),
      ask: price(tick.ask, tick.tickSize),
      buyerMaker: tick.buyerMaker,
    });
  });
  const meta = dataFileMeta({
    kind: 'ticks',
    symbols: specs.map((spec) => spec.symbol),
    source: `synth seed ${opts.seed}${opts.revertHalfLifeMs ? ` revert ${opts.revertHalfLifeMs} ms` : ''}`,
    fromMs: opts.fromMs,
    toMs: opts.toMs,
  });
  writeReplayFile(opts.out, meta, records);
  return records.length;
}
