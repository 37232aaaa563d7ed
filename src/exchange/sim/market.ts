// Market sources for the simulator: a seeded synthetic price process (random walk in integer ticks with
// volatility regimes and jumps, a spread, public trades with sizes, and a seeded past before its start) or a
// replay of recorded ticks. Prices are integer ticks and sizes integer steps of the instrument; the same seed gives
// the same market.
import { Decimal } from '../../domain/decimal.js';
import { Prng, deriveSeed } from '../../util/prng.js';
import type { SimInstrumentSpec } from './instruments.js';
import type { ReplayRecord } from '../../domain/replay-record.js';
import { TickColumns, copyRows, putRecord, sortByTime, type TickFeed, type TickUnits } from '../../domain/tick-columns.js';
import { SyntheticPast } from './synthetic-past.js';

/** The state of one symbol's market after its latest tick; updated in place (no allocation per tick). */
export class SymbolMarket {
  ts = 0;
  bid = 0;
  ask = 0;
  /** Price and size of the latest public trade; buyerMaker true when the aggressor sold (trade at the bid). */
  last = 0;
  tradeSize = 0;
  buyerMaker = false;
  /** Size resting at the best bid/ask, in steps (what a taker can fill at that level). */
  topSize = 0;
  /** Count of ticks seen. */
  ticks = 0;
  /**
   * Mark and index price of the tick in ticks, when the data gives them (a replay that recorded them); 0: absent,
   * the simulator's mark model derives them from the last price (mark-model.ts).
   */
  markTicks = 0;
  indexTicks = 0;
  /** Candle history before the first tick (a synthetic market's seeded past); null for a replay. */
  past: SyntheticPast | null = null;
  constructor(
    readonly index: number,
    readonly spec: SimInstrumentSpec,
    readonly tickSize: Decimal,
    readonly stepSize: Decimal,
  ) {}
}

/** A replayed record may carry the contract's mark and index price as the venue showed them. */
export interface RecordedPrices {
  mark?: string;
  index?: string;
}

export interface MarketSource {
  readonly symbols: SymbolMarket[];
  /** Emits every tick up to and including `ts`, in time order. */
  advanceTo(ts: number, onTick: (m: SymbolMarket) => void): void;
  /** Time of the latest tick emitted. */
  readonly now: number;
  /** The seed of a synthetic market (what else the simulator derives, like funding rates, follows it too). */
  readonly seed?: number;
}

function ticksOf(price: Decimal, tick: Decimal): number {
  return price.steps(tick, 'half-up');
}

function symbolMarkets(specs: SimInstrumentSpec[]): SymbolMarket[] {
  return specs.map((s, i) => new SymbolMarket(i, s, Decimal.of(BigInt(s.priceEndStep), s.priceDecimals), Decimal.of(1n, s.sizeDecimals)));
}

export interface SyntheticMarketOptions {
  seed: number;
  startMs: number;
  tickIntervalMs: number;
  /**
   * Mean reversion: how long the distance of each price from where it started takes to halve, on top of the walk (a
   * range-bound market). Absent: a plain random walk. It draws nothing from the PRNG, so a seed's moves stay its own.
   */
  revertHalfLifeMs?: number;
}

/** Random walk with calm/active regimes and rare jumps, per symbol, each from its own PRNG stream. */
export class SyntheticMarket implements MarketSource {
  readonly symbols: SymbolMarket[];
  private readonly rng: Prng[];
  private readonly mid: number[];
  private readonly regime: number[];
  private readonly minSteps: number[];
  /** Each symbol's starting price in ticks (what mean reversion pulls towards). */
  private readonly anchor: number[];
  /** The share of the distance to the anchor taken back each tick (0: none). */
  private readonly pull: number;
  now: number;

  constructor(
    specs: SimInstrumentSpec[],
    private readonly opts: SyntheticMarketOptions,
  ) {
    this.symbols = symbolMarkets(specs);
    this.rng = specs.map((s) => new Prng(deriveSeed(opts.seed, s.symbol)));
    this.mid = this.symbols.map((m) => ticksOf(Decimal.from(m.spec.startPrice), m.tickSize));
    this.anchor = [...this.mid];
    this.pull = opts.revertHalfLifeMs ? 1 - Math.pow(0.5, opts.tickIntervalMs / opts.revertHalfLifeMs) : 0;
    this.regime = specs.map(() => 1);
    this.minSteps = this.symbols.map((m) => Math.max(1, Decimal.from(m.spec.minSize).steps(m.stepSize, 'up')));
    this.now = opts.startMs;
    for (const m of this.symbols) {
      this.tick(m, opts.startMs);
      m.past = new SyntheticPast({
        seed: opts.seed,
        symbol: m.spec.symbol,
        startMs: opts.startMs,
        firstTicks: m.last,
        volBps: m.spec.volBps,
        ticksPerMinute: Math.max(1, Math.round(60_000 / opts.tickIntervalMs)),
        minSteps: this.minSteps[m.index]!,
      });
    }
  }

  get seed(): number {
    return this.opts.seed;
  }

  advanceTo(ts: number, onTick: (m: SymbolMarket) => void): void {
    const step = this.opts.tickIntervalMs;
    while (this.now + step <= ts) {
      this.now += step;
      for (const m of this.symbols) {
        this.tick(m, this.now);
        onTick(m);
      }
    }
  }

  /** Moves a symbol's price by `ticks` from its next tick on (a scripted jump, for tests and scenarios). */
  shift(symbol: string, ticks: number): void {
    const m = this.symbols.find((x) => x.spec.symbol === symbol);
    if (!m) throw new RangeError(`unknown symbol ${symbol}`);
    this.mid[m.index] = Math.max(10, this.mid[m.index]! + ticks);
  }

  private tick(m: SymbolMarket, ts: number): void {
    const i = m.index;
    const r = this.rng[i]!;
    // Regime: calm (1) or active (3), switching rarely.
    if (r.chancePpm(200)) this.regime[i] = this.regime[i] === 1 ? 3 : 1;
    const mid = this.mid[i]!;
    const vol = Math.max(1, Math.floor((mid * m.spec.volBps * this.regime[i]!) / 10_000));
    // Irwin-Hall: the sum of four uniforms, centred: roughly normal with unit variance.
    const z = ((r.u32() + r.u32() + r.u32() + r.u32()) / 4294967296 - 2) * 1.7320508075688772;
    let move = Math.round(z * vol);
    if (r.chancePpm(50)) move += (r.below(2) === 0 ? -1 : 1) * vol * (10 + r.below(20));
    if (this.pull > 0) move += Math.round((this.anchor[i]! - mid) * this.pull);
    let next = mid + move;
    if (next < 10) next = 10;
    this.mid[i] = next;
    const spread = 1 + (r.chancePpm(100_000) ? r.below(4) : 0);
    m.ts = ts;
    m.bid = next;
    m.ask = next + spread;
    m.buyerMaker = r.below(2) === 0;
    m.last = m.buyerMaker ? m.bid : m.ask;
    const min = this.minSteps[i]!;
    m.tradeSize = min * (1 + r.below(500));
    m.topSize = min * (1000 + r.below(10_000));
    m.ticks++;
  }
}

/**
 * A whole number of ticks or steps read from a column, as a small integer when it is one: the engine's fields keep
 * their integer representation (a float read from a typed array would turn them into boxed doubles, everywhere).
 */
function small(v: number): number {
  return (v | 0) === v ? v | 0 : v;
}

/** A block with no rows (the replay of a market with nothing to replay). */
const NO_ROWS = new TickColumns(0);

/**
 * Replays recorded trades through the same interface, from integer columns (prices in ticks, sizes in steps): from a
 * feed (a backtest's data files, a block at a time: memory does not grow with the length of the data), or from
 * records added in memory (tests, the simulator's replay file, dry-run's followed tickers). Replaying a record is a
 * few assignments: no parsing, no allocation.
 */
export class ReplayMarket implements MarketSource {
  readonly symbols: SymbolMarket[];
  /** Each symbol's units, by market index (what a feed is opened with). */
  readonly units: TickUnits[];
  private readonly bySymbol = new Map<string, SymbolMarket>();
  /** Records added in memory; the replay unless a feed was taken. */
  private readonly held: TickColumns;
  /** The block being replayed and its next row. */
  private cols: TickColumns;
  private row = 0;
  /** Records replayed before the block's first row (and, in memory, dropped once replayed). */
  private before = 0;
  private feed: TickFeed | null = null;
  /** The feed's records in all and its last time (null: the replay is in memory). */
  private streamed: { count: number; lastTs: number } | null = null;
  private lastAddedTs = Number.NaN;
  /** A number from the start (a field first undefined would box every time stored in it). */
  now = 0;

  constructor(specs: SimInstrumentSpec[], records: ReplayRecord[] = []) {
    this.symbols = symbolMarkets(specs);
    this.units = this.symbols.map((m) => ({ symbol: m.spec.symbol, tickSize: m.tickSize, stepSize: m.stepSize }));
    for (const m of this.symbols) this.bySymbol.set(m.spec.symbol, m);
    for (let i = 1; i < records.length; i++) {
      if (records[i]!.ts < records[i - 1]!.ts) throw new RangeError(`replay records out of time order at #${i}`);
    }
    this.held = new TickColumns(Math.max(64, records.length));
    this.cols = this.held;
    for (const r of records) this.add(r);
    if (records.length) this.begin();
  }

  /**
   * Takes the records added so far as the replay: in time order (a stable sort: records of one instant keep the
   * order they came in), every symbol's book seeded with its first record so it is never empty (the record
   * itself is replayed, as a trade, when time reaches it).
   */
  begin(): void {
    const held = this.held;
    sortByTime(held);
    this.cols = held;
    this.row = held.begin;
    if (held.end > held.begin) this.lastAddedTs = held.ts[held.end - 1]!;
    this.now = held.end > held.begin ? held.ts[held.begin]! : 0;
    this.seedBooks(held);
  }

  /**
   * Takes `feed` as the replay, read a block at a time as time advances (the records added in memory are left
   * aside): every symbol's book seeded with its first record, as `begin` does.
   */
  replay(feed: TickFeed): void {
    this.feed?.close();
    this.feed = feed;
    this.streamed = { count: feed.count, lastTs: feed.lastTs };
    this.seedBooks(feed.firsts);
    this.cols = NO_ROWS;
    this.row = 0;
    this.before = 0;
    this.load();
    this.now = this.nextTs === Number.POSITIVE_INFINITY ? 0 : this.nextTs;
  }

  /** Records to replay in all (replayed or not). */
  get length(): number {
    return this.streamed ? this.streamed.count : this.before + this.held.end;
  }

  /** Time of the last record (NaN when none). */
  get lastTs(): number {
    return this.streamed ? this.streamed.lastTs : this.lastAddedTs;
  }

  /** Time of the next record to replay (Infinity when all are replayed). */
  get nextTs(): number {
    return this.row < this.cols.end ? this.cols.ts[this.row]! : Number.POSITIVE_INFINITY;
  }

  advanceTo(ts: number, onTick: (m: SymbolMarket) => void): void {
    const symbols = this.symbols;
    for (;;) {
      // The block's columns, read once: a record replayed is a few loads and stores (those of `apply`, written out).
      const { ts: times, sym, last, bid, ask, size, maker, mark, index, end } = this.cols;
      let i = this.row;
      while (i < end && times[i]! <= ts) {
        const m = symbols[sym[i]!]!;
        m.ts = times[i]!;
        m.last = small(last[i]!);
        m.buyerMaker = maker[i] === 1;
        m.bid = small(bid[i]!);
        m.ask = small(ask[i]!);
        m.tradeSize = small(size[i]!);
        m.topSize = m.tradeSize * 10;
        m.markTicks = small(mark[i]!);
        m.indexTicks = small(index[i]!);
        m.ticks++;
        this.row = ++i;
        this.now = m.ts;
        onTick(m);
      }
      // A block replayed: the next one is read before returning (the next record's time is always known).
      if (i < end || !this.feed || !this.load()) break;
    }
    if (ts > this.now) this.now = ts;
  }

  get done(): boolean {
    return this.row >= this.cols.end;
  }

  /** Records replayed so far. */
  get replayed(): number {
    return this.before + this.row;
  }

  /** Adds records as they arrive (dry-run: polled live data); they must not go back in time. */
  append(records: ReplayRecord[]): void {
    for (const r of records) {
      if (r.ts < this.lastAddedTs) continue; // a late sample is dropped, not replayed out of order
      this.add(r);
    }
  }

  /** Converts a record into the columns held in memory; records of symbols the market does not trade are skipped. */
  add(rec: ReplayRecord & RecordedPrices): void {
    const m = this.bySymbol.get(rec.symbol);
    if (!m) return;
    const held = this.held;
    if (held.end === held.capacity) this.makeRoom();
    putRecord(held, held.end++, m.index, rec, this.units[m.index]!);
    this.lastAddedTs = rec.ts;
  }

  /** Room for one more record in memory: the records already replayed are dropped when they are half of it. */
  private makeRoom(): void {
    const held = this.held;
    if (this.cols === held && this.row >= held.capacity / 2) {
      copyRows(held, this.row, held.end, held, 0);
      held.end -= this.row;
      this.before += this.row;
      this.row = 0;
    } else {
      held.reserve(held.capacity * 2);
    }
  }

  /** Reads the feed's next block; false when there is none (the feed is closed: the replay ends with this block). */
  private load(): boolean {
    const replayed = this.replayed;
    const next = this.feed!.next();
    if (!next) {
      this.feed!.close();
      this.feed = null;
      return false;
    }
    this.cols = next;
    this.row = next.begin;
    this.before = replayed - next.begin;
    return true;
  }

  /** Every symbol's book set to its first record of `cols`, not counted as a tick. */
  private seedBooks(cols: TickColumns): void {
    const seeded = new Set<number>();
    for (let i = cols.begin; i < cols.end && seeded.size < this.symbols.length; i++) {
      const k = cols.sym[i]!;
      if (seeded.has(k)) continue;
      seeded.add(k);
      this.apply(this.symbols[k]!, cols, i);
      this.symbols[k]!.ticks = 0;
    }
  }

  /** Sets a symbol's market to row `i` of `c` (advanceTo does the same, written out in its loop). */
  private apply(m: SymbolMarket, c: TickColumns, i: number): void {
    m.ts = c.ts[i]!;
    m.last = small(c.last[i]!);
    m.buyerMaker = c.maker[i] === 1;
    m.bid = small(c.bid[i]!);
    m.ask = small(c.ask[i]!);
    m.tradeSize = small(c.size[i]!);
    m.topSize = m.tradeSize * 10;
    // 0 when not recorded: the mark model derives them from the trade.
    m.markTicks = small(c.mark[i]!);
    m.indexTicks = small(c.index[i]!);
    m.ticks++;
  }
}
