// Each strategy's PnL books filled one fill at a time as a run goes (what strategyPnls() gives over the whole list):
// an average-cost book per strategy and symbol, realised PnL with fees, fees and fills; funding and the unrealised
// part are added at the end. Amounts are exact, at a fixed-point scale that widens when a fill carries more places.
import type { Decimal } from '../domain/decimal.js';
import type { Fill } from '../domain/market.js';
import { placesOfFill } from './average-cost.js';
import { FixedPoint } from './fixed-point.js';
import { bookStrategyFill, strategyPnlsOf, type StrategyBooks, type StrategyPnl } from './metrics.js';

export class StrategyPnlBooks {
  private places = 0;
  private fx = FixedPoint.forPlaces(0);
  private readonly acc = new Map<string, StrategyBooks>();

  fill(strategy: string, f: Fill): void {
    const places = placesOfFill(f);
    if (places > this.places) this.widen(places);
    bookStrategyFill(this.fx, this.of(strategy), f);
  }

  /**
   * The strategies' PnL: what the books hold, unrealised at `lastPrice`, plus `funding` (each settlement's amount
   * and the strategy it belongs to). Once, at the end of the run: the funding stays in the books.
   */
  result(lastPrice: (symbol: string) => Decimal | null | undefined, funding: ReadonlyArray<{ strategy: string; amount: Decimal }> = []): Record<string, StrategyPnl> {
    for (const f of funding) if (f.amount.scale > this.places) this.widen(f.amount.scale);
    for (const f of funding) this.of(f.strategy).funding += this.fx.of(f.amount);
    return strategyPnlsOf(this.fx, this.acc, lastPrice);
  }

  private of(strategy: string): StrategyBooks {
    let a = this.acc.get(strategy);
    if (!a) this.acc.set(strategy, (a = { realized: 0n, fees: 0n, funding: 0n, fills: 0, books: new Map() }));
    return a;
  }

  private widen(places: number): void {
    const next = FixedPoint.forPlaces(places);
    const k = this.fx.factorTo(next);
    for (const a of this.acc.values()) {
      a.realized *= k;
      a.fees *= k;
      a.funding *= k;
      for (const b of a.books.values()) {
        b.qty *= k;
        b.cost *= k;
      }
    }
    this.fx = next;
    this.places = places;
  }
}
