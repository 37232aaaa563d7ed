// Bars for the strategies, the same in every mode: one bar builder per symbol fed with the market's trades (live:
// the tape as a recording takes it — the spot pairs' public trades, the futures tickers; backtests: the replayed
// records), bars closed by their next trade or, with none, a delay after their end on the clock; and the warm-up
// from the venue's candles at start.
import { Subject, type Observable, type Subscription } from 'rxjs';
import { TIMEFRAME_MS, type Bar, type BarNeed, type Timeframe, type VenueCandle } from '../domain/candles.js';
import { Decimal } from '../domain/decimal.js';
import type { Instrument, PublicTrade, Ticker } from '../domain/market.js';
import type { ReplayRecord } from '../domain/replay-record.js';
import { candleTimeframes, type ExchangeClient } from '../exchange/client.js';
import { ExchangeError } from '../exchange/errors.js';
import type { Clock, ClockTimer } from '../util/clock.js';
import type { Logger } from '../util/logger.js';
import { BarBuilder, aggregateBars, barsFromCandles } from './bar-builder.js';
import type { Stamped } from './poll.js';
import { TapeRecorder } from './recorder.js';

export type { BarNeed };

/** The bars of a venue bound to the strategies: closed ones as they close, the forming one when asked. */
export interface BarSource {
  readonly bar$: Observable<Bar>;
  forming(symbol: string, timeframe: Timeframe): Bar | null;
  /** History before the start, per need (live: the venue's candles); none in a backtest. */
  warm?(): Promise<Array<{ need: BarNeed; bars: Bar[] }>>;
  /** Starts the closing timer (the feed is running). */
  start(): void;
  stop(): void;
}

export interface BarFeedOptions {
  needs: readonly BarNeed[];
  /** Tick and step sizes of each symbol (prices and sizes become integer ticks and steps). */
  units: ReadonlyMap<string, Pick<Instrument, 'tickSize' | 'stepSize'>>;
  clock: Clock;
  /** A bar with no later trade closes this long after its end. */
  closeDelayMs: number;
}

/** The builders of the needs and their closing timer. */
export class BarFeed implements BarSource {
  readonly bar$ = new Subject<Bar>();
  private readonly builders = new Map<string, BarBuilder>();
  private timer: ClockTimer | undefined;
  private readonly stepMs: number;

  constructor(private readonly opts: BarFeedOptions) {
    const bySymbol = new Map<string, Timeframe[]>();
    for (const n of opts.needs) {
      const tfs = bySymbol.get(n.symbol) ?? [];
      if (!tfs.includes(n.timeframe)) tfs.push(n.timeframe);
      bySymbol.set(n.symbol, tfs);
    }
    for (const [symbol, timeframes] of bySymbol) {
      const units = opts.units.get(symbol);
      if (!units) throw new RangeError(`bars for ${symbol}: no such instrument`);
      this.builders.set(symbol, new BarBuilder({ symbol, timeframes, tickSize: units.tickSize, stepSize: units.stepSize, onClose: (bar) => this.bar$.next(bar) }));
    }
    this.stepMs = Math.min(...opts.needs.map((n) => TIMEFRAME_MS[n.timeframe]));
  }

  needs(): readonly BarNeed[] {
    return this.opts.needs;
  }

  /** The builder of a symbol's bars, if it has any (the backtest feeds it replayed ticks directly). */
  builder(symbol: string): BarBuilder | undefined {
    return this.builders.get(symbol);
  }

  /** Trades as replay records: prices and sizes to ticks and steps as a replay reads them (a size at least one step). */
  take(records: readonly ReplayRecord[]): void {
    for (const r of records) {
      const b = this.builders.get(r.symbol);
      if (!b) continue;
      const units = this.opts.units.get(r.symbol)!;
      b.trade(r.ts, Decimal.stepsOf(r.price, units.tickSize), Math.max(1, Decimal.stepsOf(r.size, units.stepSize)));
    }
  }

  forming(symbol: string, timeframe: Timeframe): Bar | null {
    return this.builders.get(symbol)?.forming(timeframe) ?? null;
  }

  /** Closes what ended `closeDelayMs` ago or earlier, at each boundary of the shortest timeframe plus the delay. */
  start(): void {
    if (this.builders.size === 0 || this.timer) return;
    const arm = () => {
      const now = this.opts.clock.now();
      const next = Math.floor((now - this.opts.closeDelayMs) / this.stepMs + 1) * this.stepMs + this.opts.closeDelayMs;
      this.timer = this.opts.clock.setTimer(() => {
        const at = this.opts.clock.now() - this.opts.closeDelayMs;
        for (const b of this.builders.values()) b.closeUntil(at);
        arm();
      }, Math.max(1, next - now));
    };
    arm();
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = undefined;
  }

  /** Seeds the builders from warmed history: the last closed bar carries gaps; the forming one starts the next. */
  seed(need: BarNeed, closed: readonly Bar[], forming: Bar | null, asOfMs: number): void {
    this.builders.get(need.symbol)?.seed(need.timeframe, closed[closed.length - 1] ?? null, forming, asOfMs);
  }
}

/**
 * The bars of a live venue: the feed fed from the tape (the futures tickers and the spot pairs' public trades, turned
 * into records as a recording turns them, data/recorder.ts, so a backtest of the recording builds the same bars),
 * subscribed while the core runs; `warm` fills the history first.
 */
export function liveBars(
  feed: BarFeed,
  tape: { tickers$: Observable<Stamped<Map<string, Ticker>>>; trades$?: Observable<Stamped<PublicTrade[]>> | undefined; futuresSymbols: readonly string[] },
  warm?: () => Promise<Array<{ need: BarNeed; bars: Bar[] }>>,
): BarSource {
  let sub: Subscription | undefined;
  return {
    bar$: feed.bar$,
    forming: (symbol, tf) => feed.forming(symbol, tf),
    ...(warm ? { warm } : {}),
    start: () => {
      if (sub) return;
      const recorder = new TapeRecorder();
      const futures = new Set(tape.futuresSymbols);
      sub = tape.tickers$.subscribe(({ value }) => {
        const tickers = [...value.values()].filter((t) => futures.has(t.symbol));
        if (tickers.length) feed.take(recorder.take({ tickers, trades: [] }).records);
      });
      if (tape.trades$) sub.add(tape.trades$.subscribe(({ value }) => feed.take(recorder.take({ tickers: [], trades: value }).records)));
      feed.start();
    },
    stop: () => {
      sub?.unsubscribe();
      sub = undefined;
      feed.stop();
    },
  };
}

/**
 * The history of each need from the venue's candles (S10 spot, F10 futures; F11 pages further back when the
 * lookback is longer than one F10 answer; 2h, 6h and 8h futures bars from 1h candles), closed bars only, the
 * forming one seeding the feed. A need the venue cannot fill starts with what it got (logged).
 */
export async function warmFromVenue(feed: BarFeed, client: ExchangeClient, instruments: ReadonlyMap<string, Instrument>, clock: Clock, logger: Logger): Promise<Array<{ need: BarNeed; bars: Bar[] }>> {
  const log = logger.child({ component: 'bars' });
  const out: Array<{ need: BarNeed; bars: Bar[] }> = [];
  for (const need of feed.needs()) {
    const surface = instruments.get(need.symbol)?.surface ?? 'spot';
    const tf = need.timeframe;
    // A timeframe the venue has no candles of (futures 2h, 6h, 8h) is made from 1h candles.
    const source: Timeframe = candleTimeframes(surface).has(tf) ? tf : '1h';
    const per = TIMEFRAME_MS[tf] / TIMEFRAME_MS[source];
    // The bars wanted, one forming, and a source bar more so the first aggregate is whole.
    const rows = (need.lookback + 1) * per + per;
    try {
      const nowMs = clock.now();
      const candles = surface === 'futures' ? await futuresCandles(client, need.symbol, source, rows, nowMs) : await client.candles(need.symbol, source, { limit: rows });
      const asOfMs = clock.now();
      let { closed, forming } = barsFromCandles(need.symbol, source, candles, asOfMs);
      if (source !== tf) ({ closed, forming } = aggregateBars(closed, forming, tf));
      const bars = closed.slice(-need.lookback);
      if (bars.length < need.lookback) log.warn({ symbol: need.symbol, timeframe: tf, wanted: need.lookback, got: bars.length }, 'warm-up: the venue served fewer bars than the lookback');
      feed.seed(need, bars, forming, asOfMs);
      out.push({ need, bars });
    } catch (err) {
      log.warn({ symbol: need.symbol, timeframe: tf, err: err instanceof ExchangeError ? err.summary() : String(err) }, 'warm-up failed: the bars start from the live tape');
      out.push({ need, bars: [] });
    }
  }
  return out;
}

/** Futures candles: the latest (F10, up to 1000), then history pages (F11, 100 each) further back when needed. */
async function futuresCandles(client: ExchangeClient, symbol: string, tf: Timeframe, rows: number, nowMs: number): Promise<VenueCandle[]> {
  const latest = await client.candles(symbol, tf, { limit: Math.min(rows, 1000) });
  if (latest.length >= rows || latest.length === 0) return latest;
  const len = TIMEFRAME_MS[tf];
  const older: VenueCandle[] = [];
  let endMs = latest[0]!.openMs - 1;
  while (older.length + latest.length < rows && endMs > 0 && endMs > nowMs - 366 * 24 * 3600_000) {
    const page = await client.historyCandles(symbol, tf, { startMs: endMs - 100 * len, endMs, limit: 100 });
    if (page.length === 0) break;
    older.unshift(...page.filter((c) => c.openMs < latest[0]!.openMs && (older.length === 0 || c.openMs < older[0]!.openMs)));
    endMs = page[0]!.openMs - 1;
  }
  return [...older, ...latest];
}
