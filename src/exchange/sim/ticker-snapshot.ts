// A ticker taken from the simulator's integer market state at one instant, in one of the venue's views. Its decimal
// fields are built when first read: a backtest reads millions of tickers and a strategy looks at few of their
// fields. Mark and index price are the mark model's (mark-model.ts: the index at the last price, the mark at a
// bounded basis from it), as F17 serves them.
import { Decimal } from '../../domain/decimal.js';
import type { Instrument, Ticker } from '../../domain/market.js';

/**
 * What a ticker shows: `full` every field (a futures ticker, F2 / F12); `spot` the last price and the 24 h figures,
 * no bid, ask, mark or index (S11); `trade` the latest trade only (a spot pair's S9 read, as the daemon takes it).
 */
export type TickerView = 'full' | 'spot' | 'trade';

export class TickerSnapshot implements Ticker {
  // Built on first read (undefined: not yet).
  private lastD: Decimal | null | undefined;
  private bidD: Decimal | null | undefined;
  private askD: Decimal | null | undefined;
  private markD: Decimal | null | undefined;
  private indexD: Decimal | null | undefined;

  constructor(
    readonly symbol: string,
    readonly timestampMs: number,
    /** Prices in ticks, sizes in steps of the instrument. */
    private readonly lastTicks: number,
    private readonly bidTicks: number,
    private readonly askTicks: number,
    private readonly markTicks: number,
    private readonly indexTicks: number,
    private readonly highTicks: number,
    private readonly lowTicks: number,
    private readonly volSteps: number,
    /** Sum of price ticks × size steps traded: volFolded + volTickSteps. */
    private readonly volTickSteps: number,
    private readonly volFolded: bigint,
    private readonly inst: Pick<Instrument, 'tickSize' | 'stepSize'>,
    private readonly view: TickerView,
  ) {}

  /** A price of the book (bid, ask): in the full view only. */
  private bookPrice(ticks: number): Decimal | null {
    return this.view === 'full' ? Decimal.ofSteps(ticks, this.inst.tickSize) : null;
  }

  /** A 24 h figure: in the full and spot views. */
  private dayPrice(ticks: number): Decimal | null {
    return this.view === 'trade' ? null : Decimal.ofSteps(ticks, this.inst.tickSize);
  }

  get last(): Decimal | null {
    return this.lastD === undefined ? (this.lastD = Decimal.ofSteps(this.lastTicks, this.inst.tickSize)) : this.lastD;
  }
  get bestBid(): Decimal | null {
    return this.bidD === undefined ? (this.bidD = this.bookPrice(this.bidTicks)) : this.bidD;
  }
  get bestAsk(): Decimal | null {
    return this.askD === undefined ? (this.askD = this.bookPrice(this.askTicks)) : this.askD;
  }
  get markPrice(): Decimal | null {
    return this.markD === undefined ? (this.markD = this.bookPrice(this.markTicks)) : this.markD;
  }
  get indexPrice(): Decimal | null {
    return this.indexD === undefined ? (this.indexD = this.bookPrice(this.indexTicks)) : this.indexD;
  }
  get high24h(): Decimal | null {
    return this.dayPrice(this.highTicks);
  }
  get low24h(): Decimal | null {
    return this.dayPrice(this.lowTicks);
  }
  get volume24h(): Decimal | null {
    return this.view === 'trade' ? null : this.inst.tickSize.mul(this.inst.stepSize).mul(Decimal.of(this.volFolded + BigInt(this.volTickSteps)));
  }
  get baseVolume24h(): Decimal | null {
    return this.view === 'trade' ? null : Decimal.ofSteps(this.volSteps, this.inst.stepSize);
  }

  /** The plain object (JSON, spreading and logging see every field). */
  toJSON(): Ticker {
    return {
      symbol: this.symbol,
      last: this.last,
      bestBid: this.bestBid,
      bestAsk: this.bestAsk,
      markPrice: this.markPrice,
      indexPrice: this.indexPrice,
      high24h: this.high24h,
      low24h: this.low24h,
      volume24h: this.volume24h,
      baseVolume24h: this.baseVolume24h,
      timestampMs: this.timestampMs,
    };
  }
}
