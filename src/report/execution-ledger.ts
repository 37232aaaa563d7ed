// A run's executions folded one at a time as they happen (the same figures realize(), tradeTotals() and
// feesByKind() give over the whole list): each execution's realised PnL at average cost per symbol, the totals the
// metrics take, and the fees of futures executions by kind. Amounts are exact, at a fixed-point scale that widens
// (the amounts held multiplied up) when an execution carries more decimal places than those before it.
import type { Fill } from '../domain/market.js';
import { book, placesOfFill, type Book } from './average-cost.js';
import { FixedPoint } from './fixed-point.js';
import { feeKindOf, type FeeKind, type FeesByKind, type FillKind } from './futures.js';
import type { TradeTotals } from './metrics.js';

export class ExecutionLedger {
  private places = 0;
  private fx = FixedPoint.forPlaces(0);
  private readonly books = new Map<string, Book>();
  private fills = 0;
  private closes = 0;
  private wins = 0;
  private grossWin = 0n;
  private grossLoss = 0n;
  private fees = 0n;
  private readonly kindFees: Record<FeeKind, bigint> = { maker: 0n, taker: 0n, liquidation: 0n, unclassified: 0n };

  /** `futures`: the contracts whose executions' fees are counted by kind. */
  constructor(private readonly futures: ReadonlySet<string>) {}

  /** Books an execution; returns its realised PnL, fees included, as text (Decimal's, as trades.csv writes it). */
  record(f: Fill, kind: FillKind | undefined): string {
    const places = placesOfFill(f);
    if (places > this.places) this.widen(places);
    const fx = this.fx;
    let b = this.books.get(f.symbol);
    if (!b) this.books.set(f.symbol, (b = { qty: 0n, cost: 0n }));
    const fee = fx.of(f.fee);
    const pnl = book(fx, b, f.side, fx.of(f.price), fx.of(f.size));
    const realized = pnl - fee;
    this.fills++;
    this.fees += fee;
    // A closing fill realised something before its fee.
    if (pnl !== 0n) {
      this.closes++;
      if (realized > 0n) {
        this.wins++;
        this.grossWin += realized;
      } else if (realized < 0n) this.grossLoss -= realized;
    }
    if (this.futures.has(f.symbol)) this.kindFees[feeKindOf(kind)] += fee;
    return fx.text(realized);
  }

  totals(): TradeTotals {
    const fx = this.fx;
    return { fills: this.fills, closes: this.closes, wins: this.wins, grossWin: fx.decimal(this.grossWin), grossLoss: fx.decimal(this.grossLoss), fees: fx.decimal(this.fees) };
  }

  feesByKind(): FeesByKind {
    const { maker, taker, liquidation, unclassified } = this.kindFees;
    const fx = this.fx;
    return { maker: fx.decimal(maker), taker: fx.decimal(taker), liquidation: fx.decimal(liquidation), unclassified: fx.decimal(unclassified) };
  }

  private widen(places: number): void {
    const next = FixedPoint.forPlaces(places);
    const k = this.fx.factorTo(next);
    for (const b of this.books.values()) {
      b.qty *= k;
      b.cost *= k;
    }
    this.grossWin *= k;
    this.grossLoss *= k;
    this.fees *= k;
    for (const key of Object.keys(this.kindFees) as FeeKind[]) this.kindFees[key] *= k;
    this.fx = next;
    this.places = places;
  }
}
