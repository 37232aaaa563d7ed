// A ticker taken from the simulator's integer market state at one instant. Its decimal fields are built when
// first read: a backtest reads millions of tickers and a strategy looks at few of their fields.
import { Decimal } from '../../domain/decimal.js';
import type { Instrument, Ticker } from '../../domain/market.js';

export class TickerSnapshot implements Ticker {
  // Built on first read (undefined: not yet).
  private lastD: Decimal | null | undefined;
  private bidD: Decimal | null | undefined;
  private askD: Decimal | null | undefined;
  private markD: Decimal | null | undefined;

  constructor(
    readonly symbol: string,
    readonly timestampMs: number,
    /** Prices in ticks, sizes in steps of the instrument. */
    private readonly lastTicks: number,
    private readonly bidTicks: number,
    private readonly askTicks: number,
    private readonly highTicks: number,
    private readonly lowTicks: number,
    private readonly volSteps: number,
    /** Sum of price ticks × size steps traded: volFolded + volTickSteps. */
    private readonly volTickSteps: number,
    private readonly volFolded: bigint,
    private readonly inst: Pick<Instrument, 'tickSize' | 'stepSize'>,
    private readonly priceDecimals: number,
    /** Spot: only the latest trade is known (the daemon reads a pair's last trade, S9, as its ticker). */
    private readonly tradeOnly: boolean,
  ) {}

  private price(ticks: number): Decimal | null {
    return this.tradeOnly ? null : Decimal.ofSteps(ticks, this.inst.tickSize);
  }

  get last(): Decimal | null {
    return this.lastD === undefined ? (this.lastD = Decimal.ofSteps(this.lastTicks, this.inst.tickSize)) : this.lastD;
  }
  get bestBid(): Decimal | null {
    return this.bidD === undefined ? (this.bidD = this.price(this.bidTicks)) : this.bidD;
  }
  get bestAsk(): Decimal | null {
    return this.askD === undefined ? (this.askD = this.price(this.askTicks)) : this.askD;
  }
  get markPrice(): Decimal | null {
    if (this.markD === undefined) {
      const bid = this.bestBid;
      const ask = this.bestAsk;
      this.markD = bid && ask ? bid.add(ask).div(Decimal.fromInt(2), this.priceDecimals + 1) : null;
    }
    return this.markD;
  }
  get indexPrice(): Decimal | null {
    return this.markPrice;
  }
  get high24h(): Decimal | null {
    return this.price(this.highTicks);
  }
  get low24h(): Decimal | null {
    return this.price(this.lowTicks);
  }
  get volume24h(): Decimal | null {
    return this.tradeOnly ? null : this.inst.tickSize.mul(this.inst.stepSize).mul(Decimal.of(this.volFolded + BigInt(this.volTickSteps)));
  }
  get baseVolume24h(): Decimal | null {
    return this.tradeOnly ? null : Decimal.ofSteps(this.volSteps, this.inst.stepSize);
  }

  /** The plain object (JSON, spreading and logging see every field). */
  toJSON(): Ticker {
    return {
      symbol: this.symbol, last: this.last, bestBid: this.bestBid, bestAsk: this.bestAsk, markPrice: this.markPrice, indexPrice: this.indexPrice,
      high24h: this.high24h, low24h: this.low24h, volume24h: this.volume24h, baseVolume24h: this.baseVolume24h, timestampMs: this.timestampMs,
    };
  }
}
