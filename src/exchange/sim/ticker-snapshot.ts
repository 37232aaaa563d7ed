// A ticker taken from the simulator's integer market state at one instant. Its decimal fields are built when
// first read: a backtest reads millions of tickers and a strategy looks at few of their fields.
import { Decimal } from '../../domain/decimal.js';
import type { Ticker } from '../../domain/market.js';

export interface TickerState {
  symbol: string;
  ts: number;
  /** Prices in ticks, sizes in steps of the instrument. */
  last: number;
  bid: number;
  ask: number;
  high: number;
  low: number;
  volSteps: number;
  /** Sum of price ticks × size steps traded: volFolded + volTickSteps. */
  volTickSteps: number;
  volFolded: bigint;
  tickSize: Decimal;
  stepSize: Decimal;
  priceDecimals: number;
  /** Spot: only the latest trade is known (the daemon reads a pair's last trade, S9, as its ticker). */
  tradeOnly: boolean;
}

export class TickerSnapshot implements Ticker {
  readonly symbol: string;
  readonly timestampMs: number;
  private cache: Partial<Record<keyof Ticker, Decimal | null>> = {};

  constructor(private readonly s: TickerState) {
    this.symbol = s.symbol;
    this.timestampMs = s.ts;
  }

  private memo(key: keyof Ticker, make: () => Decimal | null): Decimal | null {
    const hit = this.cache[key];
    if (hit !== undefined) return hit;
    const v = make();
    this.cache[key] = v;
    return v;
  }

  private price(ticks: number): Decimal {
    return this.s.tickSize.mul(Decimal.fromInt(ticks));
  }

  private full(key: keyof Ticker, make: () => Decimal): Decimal | null {
    return this.memo(key, () => (this.s.tradeOnly ? null : make()));
  }

  get last(): Decimal | null {
    return this.memo('last', () => this.price(this.s.last));
  }
  get bestBid(): Decimal | null {
    return this.full('bestBid', () => this.price(this.s.bid));
  }
  get bestAsk(): Decimal | null {
    return this.full('bestAsk', () => this.price(this.s.ask));
  }
  get markPrice(): Decimal | null {
    return this.full('markPrice', () => this.price(this.s.bid).add(this.price(this.s.ask)).div(Decimal.fromInt(2), this.s.priceDecimals + 1));
  }
  get indexPrice(): Decimal | null {
    return this.markPrice;
  }
  get high24h(): Decimal | null {
    return this.full('high24h', () => this.price(this.s.high));
  }
  get low24h(): Decimal | null {
    return this.full('low24h', () => this.price(this.s.low));
  }
  get volume24h(): Decimal | null {
    return this.full('volume24h', () => this.s.tickSize.mul(this.s.stepSize).mul(Decimal.of(this.s.volFolded + BigInt(this.s.volTickSteps))));
  }
  get baseVolume24h(): Decimal | null {
    return this.full('baseVolume24h', () => this.s.stepSize.mul(Decimal.fromInt(this.s.volSteps)));
  }

  /** The plain object (JSON, spreading and logging see every field). */
  toJSON(): Ticker {
    return {
      symbol: this.symbol, last: this.last, bestBid: this.bestBid, bestAsk: this.bestAsk, markPrice: this.markPrice, indexPrice: this.indexPrice,
      high24h: this.high24h, low24h: this.low24h, volume24h: this.volume24h, baseVolume24h: this.baseVolume24h, timestampMs: this.timestampMs,
    };
  }
}
