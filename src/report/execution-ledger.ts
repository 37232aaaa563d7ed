// A run's executions folded one at a time as they happen (the same figures realize(), tradeTotals() and
// feesByKind() give over the whole list): each execution's realised PnL at average cost per symbol, the totals the
// metrics take, and the fees of futures executions by kind. Amounts are exact: safe integers while they fit, BigInt
// otherwise, at scales that widen (the amounts held multiplied up) when an execution carries more decimal places than
// those before it.
import type { Fill } from '../domain/market.js';
import { bookFill, placesOfFill, widenBook, type SafeBook } from './average-cost.js';
import { putText } from './byte-text.js';
import { feeKindOf, type FeeKind, type FeesByKind, type FillKind } from './futures.js';
import type { TradeTotals } from './metrics.js';
import { BookScale, SafeTotal, sub } from './safe-fixed.js';
import type { RealizedText } from './trades-csv.js';

export class ExecutionLedger implements RealizedText {
  private readonly scale = new BookScale();
  private readonly books = new Map<string, SafeBook>();
  private fills = 0;
  private closes = 0;
  private wins = 0;
  private readonly grossWin = new SafeTotal();
  private readonly grossLoss = new SafeTotal();
  private readonly fees = new SafeTotal();
  private readonly kindFees: Record<FeeKind, SafeTotal> = {
    maker: new SafeTotal(),
    taker: new SafeTotal(),
    liquidation: new SafeTotal(),
    unclassified: new SafeTotal(),
  };
  /** The realised PnL of the last execution booked: in safe units, or (NaN) in BigInt units. */
  private last = 0;
  private lastBig = 0n;

  /** `futures`: the contracts whose executions' fees are counted by kind. */
  constructor(private readonly futures: ReadonlySet<string>) {}

  /** Books an execution; its realised PnL, fees included, is then what realizedText() and putRealized() write. */
  record(f: Fill, kind: FillKind | undefined): void {
    const scale = this.scale;
    const places = placesOfFill(f);
    if (places > scale.places) this.widen(places);
    let b = this.books.get(f.symbol);
    if (!b) this.books.set(f.symbol, (b = { qty: 0, cost: 0, big: null }));
    this.fills++;
    const r = bookFill(scale, b, f);
    if (!r.safe) return this.tally(r.pnlBig, r.feeBig, f.symbol, kind);
    const { pnl, fee } = r;
    const realized = sub(pnl, fee);
    if (realized !== realized) return this.tally(scale.big(pnl), scale.big(fee), f.symbol, kind);
    this.last = realized;
    this.fees.add(fee, scale);
    // A closing fill realised something before its fee.
    if (pnl !== 0) {
      this.closes++;
      if (realized > 0) {
        this.wins++;
        this.grossWin.add(realized, scale);
      } else if (realized < 0) this.grossLoss.add(-realized, scale);
    }
    if (this.futures.has(f.symbol)) this.kindFees[feeKindOf(kind)].add(fee, scale);
  }

  totals(): TradeTotals {
    const { fx } = this.scale;
    const v = (t: SafeTotal) => fx.decimal(t.value(this.scale));
    return { fills: this.fills, closes: this.closes, wins: this.wins, grossWin: v(this.grossWin), grossLoss: v(this.grossLoss), fees: v(this.fees) };
  }

  feesByKind(): FeesByKind {
    const { maker, taker, liquidation, unclassified } = this.kindFees;
    const { fx } = this.scale;
    const v = (t: SafeTotal) => fx.decimal(t.value(this.scale));
    return { maker: v(maker), taker: v(taker), liquidation: v(liquidation), unclassified: v(unclassified) };
  }

  /** The last execution's realised PnL as text (Decimal's, as trades.csv writes it). */
  realizedText(): string {
    const last = this.last;
    return last === last ? this.scale.sf.text(last) : this.scale.fx.text(this.lastBig);
  }

  /** The most bytes putRealized() writes. */
  realizedBytes(): number {
    return this.last === this.last ? 40 : this.realizedText().length;
  }

  /** realizedText() into `buf` at `at`; the offset after it. */
  putRealized(buf: Buffer, at: number): number {
    const last = this.last;
    return last === last ? this.scale.sf.put(buf, at, last) : putText(buf, at, this.scale.fx.text(this.lastBig));
  }

  /** The totals of an execution booked in BigInt units (its PnL before the fee, and the fee). */
  private tally(pnl: bigint, fee: bigint, symbol: string, kind: FillKind | undefined): void {
    const realized = pnl - fee;
    this.last = NaN;
    this.lastBig = realized;
    this.fees.addBig(fee);
    if (pnl !== 0n) {
      this.closes++;
      if (realized > 0n) {
        this.wins++;
        this.grossWin.addBig(realized);
      } else if (realized < 0n) this.grossLoss.addBig(-realized);
    }
    if (this.futures.has(symbol)) this.kindFees[feeKindOf(kind)].addBig(fee);
  }

  private widen(places: number): void {
    const scale = this.scale;
    scale.widen(places);
    for (const b of this.books.values()) widenBook(scale, b);
    for (const t of [this.grossWin, this.grossLoss, this.fees, ...Object.values(this.kindFees)]) t.widen(scale);
  }
}
