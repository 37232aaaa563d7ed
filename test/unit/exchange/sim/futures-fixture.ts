// A futures venue for the simulator's money-model tests: the engine over a replay of scripted ticks, in virtual
// time, with helpers to place market orders and read the ledger. Prices and sizes are decimal strings.
import { Decimal } from '../../../../src/domain/decimal.js';
import type { Fill, PositionSide } from '../../../../src/domain/market.js';
import { MatchingEngine, type SimAccounts, type SimOrder } from '../../../../src/exchange/sim/engine.js';
import { DEFAULT_SIM_FUTURES, type SimFuturesOptions } from '../../../../src/exchange/sim/futures-views.js';
import { DEFAULT_INSTRUMENTS, type SimInstrumentSpec } from '../../../../src/exchange/sim/instruments.js';
import { ReplayMarket, type RecordedPrices } from '../../../../src/exchange/sim/market.js';
import type { ReplayRecord } from '../../../../src/domain/replay-record.js';
import { ManualClock } from '../../../../src/util/clock.js';

export const d = (s: string) => Decimal.from(s);
export const ETH = 'cmt_ethusdt';
export const BTC = 'cmt_btcusdt';
export const SOL = 'cmt_solusdt';

/** A tick where a buy takes `price` and a sell gets `price` (bid = ask = last would cross; ask one tick above for buys). */
export function tick(ts: number, symbol: string, price: string, extra: Partial<ReplayRecord & RecordedPrices> = {}): ReplayRecord & RecordedPrices {
  return { ts, symbol, price, size: '10', bid: price, ask: price, ...extra };
}

export interface FuturesVenue {
  engine: MatchingEngine;
  replay: ReplayMarket;
  clock: ManualClock;
  fills: Array<{ fill: Fill; order: SimOrder }>;
  /** Replays every tick up to `ts`. */
  to(ts: number): void;
  /** A market order opening (or closing, `reduce`) a side; throws when refused. */
  market(symbol: string, side: PositionSide, size: string, reduce?: boolean): SimOrder;
}

let seq = 0;

export function futuresVenue(
  records: Array<ReplayRecord & RecordedPrices>,
  opts: { collateral?: string; leverage?: number; futures?: Partial<SimFuturesOptions>; specs?: SimInstrumentSpec[]; startMs?: number } = {},
): FuturesVenue {
  const replay = new ReplayMarket(opts.specs ?? DEFAULT_INSTRUMENTS, records);
  const clock = new ManualClock(opts.startMs ?? replay.now);
  const accounts: SimAccounts = { spot: {}, futuresCollateral: opts.collateral ?? '100', leverage: opts.leverage ?? 50 };
  const engine = new MatchingEngine(replay.symbols, accounts, clock, undefined, 0, { ...DEFAULT_SIM_FUTURES, ...opts.futures });
  const fills: FuturesVenue['fills'] = [];
  engine.onFill = (fill, order) => fills.push({ fill, order });
  return {
    engine,
    replay,
    clock,
    fills,
    to(ts) {
      replay.advanceTo(ts, (m) => {
        clock.set(m.ts);
        engine.onTick(m);
      });
      clock.set(Math.max(clock.now(), ts));
    },
    market(symbol, side, size, reduce = false) {
      const clientOid = `m${++seq}`;
      const [r] = engine.place('futures', symbol, [
        {
          clientOid,
          side: (side === 'long') !== reduce ? 'buy' : 'sell',
          kind: 'market',
          timeInForce: 'ioc',
          size: d(size),
          positionSide: side,
          reduceOnly: reduce,
        },
      ]);
      if (!r!.ok) throw new Error(`refused: ${r!.refusal.message}`);
      return engine.rawOrder(r!.orderId)!;
    },
  };
}
