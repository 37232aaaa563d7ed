// The account sampled through a run for the report: equity against buy-and-hold (the starting account valued at
// each sample's prices), whether the account was exposed, and each symbol's price once per second for the charts.
import type { Decimal } from '../domain/decimal.js';
import { equity as equityOf } from '../domain/equity.js';
import type { Balance, Instrument, Position, Ticker } from '../domain/market.js';
import type { EquityPoint } from './metrics.js';

export interface AccountNow {
  tickers: Map<string, Ticker>;
  balances: Balance[];
  positions: Position[];
}

export class EquitySamples {
  readonly points: EquityPoint[] = [];
  readonly prices: Record<string, Array<[number, number]>> = {};
  readonly exposed: boolean[] = [];
  private readonly startBase: Map<string, Decimal>;
  private readonly startBalances: Balance[];
  private readonly startPositions: Position[];

  /**
   * `counted`: the balances equity counts (those of the surfaces traded); `start`: the account as the run begins,
   * which buy-and-hold keeps.
   */
  constructor(
    private readonly instruments: Map<string, Instrument>,
    private readonly counted: (balances: Balance[]) => Balance[],
    start: AccountNow,
  ) {
    this.startBase = new Map(start.balances.filter((b) => b.surface === 'spot').map((b) => [b.asset, b.total]));
    this.startBalances = counted(start.balances);
    this.startPositions = start.positions;
  }

  /** The time of the last sample (undefined before the first). */
  get lastMs(): number | undefined {
    return this.points[this.points.length - 1]?.ts;
  }

  sample(nowMs: number, now: AccountNow): void {
    const sec = Math.floor(nowMs / 1000);
    for (const [sym, tk] of now.tickers) {
      const series = (this.prices[sym] ??= []);
      if (tk.last && (series.length === 0 || series[series.length - 1]![0] < sec)) series.push([sec, tk.last.toNumber()]);
    }
    const price = (s: string) => now.tickers.get(s)?.last;
    const eq = equityOf(this.counted(now.balances), now.positions, price, this.instruments);
    const hold = equityOf(this.startBalances, this.startPositions, price, this.instruments);
    if (eq && hold) {
      this.points.push({ ts: nowMs, equity: eq.total, hold: hold.total });
      this.exposed.push(now.positions.length > 0 || now.balances.some((b) => b.surface === 'spot' && b.asset !== 'USDT' && !b.total.eq(this.startBase.get(b.asset) ?? b.total)));
    }
  }
}
