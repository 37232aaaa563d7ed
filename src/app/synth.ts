// Synthetic market data files (JSON lines, the replay format) from the seeded synthetic market.
import { Decimal } from '../domain/decimal.js';
import type { SimInstrumentSpec } from '../exchange/sim/instruments.js';
import { SyntheticMarket } from '../exchange/sim/market.js';
import type { ReplayRecord } from '../domain/replay-record.js';
import { writeReplayFile } from '../data/replay-file.js';

export function synthesize(specs: SimInstrumentSpec[], o: { fromMs: number; toMs: number; intervalMs: number; seed: number; out: string }): number {
  const market = new SyntheticMarket(specs, { seed: o.seed, startMs: o.fromMs, tickIntervalMs: o.intervalMs });
  const records: ReplayRecord[] = [];
  const px = (ticks: number, tick: Decimal) => tick.mul(Decimal.fromInt(ticks)).toString();
  market.advanceTo(o.toMs, (m) => {
    records.push({ ts: m.ts, symbol: m.spec.symbol, price: px(m.last, m.tickSize), size: m.stepSize.mul(Decimal.fromInt(m.tradeSize)).toString(), bid: px(m.bid, m.tickSize), ask: px(m.ask, m.tickSize), buyerMaker: m.buyerMaker });
  });
  writeReplayFile(o.out, records);
  return records.length;
}
