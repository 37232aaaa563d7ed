// Each strategy's PnL books filled one fill at a time as a run goes (what strategyPnls() gives over the whole list):
// an average-cost book per strategy and symbol, realised PnL with fees, fees and fills; funding and the unrealised
// part are added at the end. Amounts are exact: safe integers while they fit, BigInt otherwise, at scales that widen
// when a fill carries more places.
import type { Decimal } from '../domain/decimal.js';
import type { Fill } from '../domain/market.js';
import { bookFill, placesOfFill, widenBook, type SafeBook } from './average-cost.js';
import { strategyPnlsOf, type StrategyBooks, type StrategyPnl } from './metrics.js';
import { BookScale, SafeTotal, sub } from './safe-fixed.js';

interface Books {
  realized: SafeTotal;
  fees: SafeTotal;
  fills: number;
  books: Map<string, SafeBook>;
}

export class StrategyPnlBooks {
  private readonly scale = new BookScale();
  private readonly acc = new Map<string, Books>();

  fill(strategy: string, f: Fill): void {
    const scale = this.scale;
    const places = placesOfFill(f);
    if (places > scale.places) this.widen(places);
    let a = this.acc.get(strategy);
    if (!a) this.acc.set(strategy, (a = { realized: new SafeTotal(), fees: new SafeTotal(), fills: 0, books: new Map() }));
    let b = a.books.get(f.symbol);
    if (!b) a.books.set(f.symbol, (b = { qty: 0, cost: 0, big: null }));
    a.fills++;
    const r = bookFill(scale, b, f);
    if (!r.safe) {
      a.realized.addBig(r.pnlBig - r.feeBig);
      a.fees.addBig(r.feeBig);
      return;
    }
    const realized = sub(r.pnl, r.fee);
    if (realized === realized) a.realized.add(realized, scale);
    else a.realized.addBig(scale.big(r.pnl) - scale.big(r.fee));
    a.fees.add(r.fee, scale);
  }

  /**
   * The strategies' PnL: what the books hold, unrealised at `lastPrice`, plus `funding` (each settlement's amount
   * and the strategy it belongs to).
   */
  result(
    lastPrice: (symbol: string) => Decimal | null | undefined,
    funding: ReadonlyArray<{ strategy: string; amount: Decimal }> = [],
  ): Record<string, StrategyPnl> {
    const scale = this.scale;
    for (const f of funding) if (f.amount.scale > scale.places) this.widen(f.amount.scale);
    const fx = scale.fx;
    const out = new Map<string, StrategyBooks>();
    const of = (strategy: string) => {
      let s = out.get(strategy);
      if (!s) out.set(strategy, (s = { realized: 0n, fees: 0n, funding: 0n, fills: 0, books: new Map() }));
      return s;
    };
    for (const [id, a] of this.acc) {
      const s = of(id);
      s.realized = a.realized.value(scale);
      s.fees = a.fees.value(scale);
      s.fills = a.fills;
      for (const [symbol, b] of a.books) s.books.set(symbol, b.big ? { ...b.big } : { qty: scale.big(b.qty), cost: scale.big(b.cost) });
    }
    for (const f of funding) of(f.strategy).funding += fx.of(f.amount);
    return strategyPnlsOf(fx, out, lastPrice);
  }

  private widen(places: number): void {
    const scale = this.scale;
    scale.widen(places);
    for (const a of this.acc.values()) {
      a.realized.widen(scale);
      a.fees.widen(scale);
      for (const b of a.books.values()) widenBook(scale, b);
    }
  }
}
