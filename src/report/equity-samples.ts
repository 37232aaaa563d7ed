// The account sampled through a run for the report: equity against buy-and-hold (the starting account valued at
// each sample's prices), whether the account was exposed, the futures margin rate against the maintenance rate
// (in a run that trades futures), and each symbol's price once per second for the charts and the trade list. The
// balances and positions given again as they were (the same arrays: a caller reads them only once they changed) are
// not gone through again.
import type { Decimal } from '../domain/decimal.js';
import { equity as equityOf } from '../domain/equity.js';
import type { Balance, Instrument, Position, Ticker } from '../domain/market.js';
import type { EquityPoint } from './metrics.js';

export interface AccountNow {
  tickers: Map<string, Ticker>;
  balances: Balance[];
  positions: Position[];
  /** Futures, in a run that trades them: the account's margin rate and maintenance rate (null: no position). */
  margin?: { marginRate: Decimal | null; maintenanceRate: Decimal | null };
}

export class EquitySamples {
  readonly points: EquityPoint[] = [];
  readonly prices: Record<string, Array<[number, number]>> = {};
  /** The same price samples, exact and timed in ms: what the trade list measures MAE/MFE on. */
  readonly marks: Record<string, Array<[number, Decimal]>> = {};
  readonly exposed: boolean[] = [];
  private readonly startBase: Map<string, Decimal>;
  private readonly startBalances: Balance[];
  private readonly startPositions: Position[];
  /** The balances and positions of the last sample, as read. */
  private last: { balances: Balance[]; positions: Position[]; counted: Balance[]; exposed: boolean } | undefined;

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
      if (tk.last && (series.length === 0 || series[series.length - 1]![0] < sec)) {
        series.push([sec, tk.last.toNumber()]);
        (this.marks[sym] ??= []).push([nowMs, tk.last]);
      }
    }
    const price = (s: string) => now.tickers.get(s)?.last;
    const read = this.read(now);
    const eq = equityOf(read.counted, now.positions, price, this.instruments);
    const hold = equityOf(this.startBalances, this.startPositions, price, this.instruments);
    if (eq && hold) {
      const margin = now.margin ? { marginRate: now.margin.marginRate, maintenanceRate: now.margin.maintenanceRate } : {};
      this.points.push({ ts: nowMs, equity: eq.total, hold: hold.total, ...margin });
      this.exposed.push(read.exposed);
    }
  }

  /** What the account's balances and positions give (worked out again only when they are not those of last time). */
  private read(now: AccountNow): { counted: Balance[]; exposed: boolean } {
    const last = this.last;
    if (last && last.balances === now.balances && last.positions === now.positions) return last;
    const exposed =
      now.positions.length > 0 || now.balances.some((b) => b.surface === 'spot' && b.asset !== 'USDT' && !b.total.eq(this.startBase.get(b.asset) ?? b.total));
    this.last = { balances: now.balances, positions: now.positions, counted: this.counted(now.balances), exposed };
    return this.last;
  }
}
