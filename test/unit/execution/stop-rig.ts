// A rig for the stop manager's and the order tracker's tests: the in-process simulator on a manual clock over a
// scripted market (prices the test sets), with the executor, the order tracker and the stop manager over one
// journal, every call to the venue recorded (and any method replaceable).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Decimal } from '../../../src/domain/decimal.js';
import type { ExecutionEvent } from '../../../src/domain/events.js';
import type { Instrument } from '../../../src/domain/market.js';
import type { ExchangeClient } from '../../../src/exchange/client.js';
import { Executor } from '../../../src/execution/executor.js';
import { OrderTracker } from '../../../src/execution/order-tracker.js';
import { RiskGate } from '../../../src/execution/risk.js';
import { StopManager, type StopSettings } from '../../../src/execution/stop-manager.js';
import { DEFAULT_INSTRUMENTS, toInstrument } from '../../../src/exchange/sim/instruments.js';
import { ReplayMarket } from '../../../src/exchange/sim/market.js';
import { SimulatedExchange } from '../../../src/exchange/sim/simulated-exchange.js';
import { SqliteJournal } from '../../../src/journal/sqlite-journal.js';
import { ManualClock } from '../../../src/util/clock.js';
import { silentLogger } from '../../../src/util/logger.js';
import { LOOSE_LIMITS } from '../../fixtures/bot.js';
import { recordingClient } from '../../fixtures/sim-core.js';

export const SYMBOL = 'cmt_btcusdt';
export const START_MS = 1_700_000_000_000;
export const d = (s: string) => Decimal.from(s);

/** The venue: one futures contract at a price the test sets, an account with room for any position. */
export function venue(price = '90000') {
  const spec = DEFAULT_INSTRUMENTS.find((s) => s.symbol === SYMBOL)!;
  const clock = new ManualClock(START_MS);
  const market = new ReplayMarket([spec], [{ ts: START_MS, symbol: SYMBOL, price, size: '1' }]);
  const sim = new SimulatedExchange(market, { spot: {}, futuresCollateral: '10000000', leverage: 20 }, undefined, clock);
  sim.advanceTo(START_MS);
  const instruments = new Map<string, Instrument>([[SYMBOL, toInstrument(spec)]]);
  let nextId = 0;
  return {
    clock,
    market,
    sim,
    instruments,
    /** The market trades at `price` `afterMs` from now (the clock moves there). */
    trade(price: string, afterMs = 1000): void {
      const ts = clock.now() + afterMs;
      market.append([{ ts, symbol: SYMBOL, price, size: '0.001' }]);
      sim.advanceTo(ts);
    },
    /** Someone (not the stop manager) changes the long position by `size` at market: positive opens, negative closes. */
    long(size: string): void {
      const n = d(size);
      const close = n.isNegative();
      const [r] = sim.engine.place('futures', SYMBOL, [
        {
          clientOid: `manual${nextId++}`,
          side: close ? 'sell' : 'buy',
          kind: 'market',
          timeInForce: 'ioc',
          size: n.abs(),
          positionSide: 'long',
          reduceOnly: close,
        },
      ]);
      if (!r?.ok) throw new Error(`position change refused: ${JSON.stringify(r)}`);
    },
    /** The stop orders resting at the venue: role, size and trigger price. */
    async stops(): Promise<Array<{ role: string | undefined; size: string; trigger: string }>> {
      return (await sim.triggerOrders(SYMBOL)).map((t) => ({
        role: sim.engine.rawOrder(t.orderId)?.role,
        size: t.size.toString(),
        trigger: t.triggerPrice!.toString(),
      }));
    },
  };
}

export type Venue = ReturnType<typeof venue>;

/** Every call to the venue by method name; `overrides` stand in for methods of the simulator. */
export const recording = recordingClient;

export const journalDir = mkdtempSync(join(tmpdir(), 'sextant-stops-'));
let journals = 0;

export interface CoreParts {
  journal: SqliteJournal;
  /** The journal's file (none when the caller gave the journal). */
  file: string | undefined;
  executor: Executor;
  tracker: OrderTracker;
  stops: StopManager;
  events: ExecutionEvent[];
  calls: string[];
  /** The positions and the ticker as the streams would report them now. */
  observe(): void;
}

/** The executor, the tracker and the stop manager over `v` (a new journal file, unless one is given: a restart). */
export function parts(
  v: Venue,
  opts: { journal?: SqliteJournal; overrides?: Partial<ExchangeClient>; settings?: StopSettings; strategyIds?: string[] } = {},
): CoreParts {
  const file = opts.journal ? undefined : join(journalDir, `j-${journals++}.sqlite`);
  const journal = opts.journal ?? new SqliteJournal(file!, { clientOidPrefix: 'sx' });
  const { client, calls } = recording(v.sim, opts.overrides);
  const risk = new RiskGate(LOOSE_LIMITS, journal, v.clock);
  const executor = new Executor({
    client,
    journal,
    risk,
    clock: v.clock,
    logger: silentLogger,
    instruments: v.instruments,
    reference: (s) => ({ price: v.sim.tickerNow(s)!.last!, atMs: v.clock.now() }),
  });
  executor.unfence();
  const events: ExecutionEvent[] = [];
  executor.events$.subscribe((e) => events.push(e));
  const tracker = new OrderTracker({
    client,
    journal,
    clock: v.clock,
    logger: silentLogger,
    graceMs: 0,
    lostAfterChecks: 2,
    symbols: { spot: [], futures: [SYMBOL] },
    events$: executor.events$,
  });
  executor.settleLeftOutWith(tracker);
  const stops = new StopManager({
    executor,
    tracker,
    journal,
    clock: v.clock,
    logger: silentLogger,
    instruments: v.instruments,
    strategyIds: opts.strategyIds ?? ['g'],
    settings: opts.settings ?? { maxModifiesPerMinute: 2, triggerPriceType: 'last' },
  });
  executor.keepProtectionWith(stops);
  const observe = () => {
    stops.observePositions(v.sim.positionsNow(SYMBOL), v.clock.now());
    stops.observeTickers(new Map([[SYMBOL, v.sim.tickerNow(SYMBOL)!]]));
  };
  return { journal, file, executor, tracker, stops, events, calls, observe };
}
