// Which market prices are trusted, per symbol: the risk gate's reference prices and the prices equity is valued at.
import { Decimal } from './decimal.js';
import type { Ticker } from './market.js';

/** A trusted price of a symbol: what the risk gate prices orders against. */
export interface ReferencePrice {
  price: Decimal;
  /** When it was read (local clock). */
  atMs: number;
  /**
   * When (local clock) the source's own timestamp last advanced: a price the poll keeps reading while the venue
   * no longer updates it is stale. Local time, so the venue's clock skew does not matter. Absent when the
   * source has no timestamp of its own.
   */
  sourceAdvancedAtMs?: number;
}

interface SymbolPrices {
  /** The last price accepted (equity values holdings at it until a newer one is accepted). */
  accepted: Decimal | null;
  /** Whether the latest reading was accepted (only then is there a reference), and when it was read. */
  latestAccepted: boolean;
  readAtMs: number;
  /** The venue's timestamp of the latest reading, and when (local clock) it last advanced. */
  sourceMs: number;
  sourceAdvancedAtMs: number;
  /** A jump waiting for the next reading to confirm it. */
  candidate: Decimal | null;
}

const HUNDRED = Decimal.fromInt(100);

/**
 * A reading's last price is accepted when it is positive, lies within `outlierPct` of the ticker's own bid/ask
 * (when the ticker has them; a non-positive bid or ask counts as absent), and lies within `outlierPct` of the
 * previous accepted price. A reading that fails only the last test (a jump) is accepted when the next reading,
 * of a newer sample (the venue's timestamp advanced), confirms it: it lies within `outlierPct` of the jump. A
 * negated, zeroed or ×10 sample is never accepted on its own; a sample the venue keeps serving unchanged never
 * confirms itself.
 */
export class PriceSanity {
  private readonly bySymbol = new Map<string, SymbolPrices>();
  /** The last accepted price of each symbol. */
  readonly accepted = new Map<string, Decimal>();
  private readonly low: Decimal;
  private readonly high: Decimal;

  constructor(private readonly outlierPct: Decimal) {
    this.low = HUNDRED.sub(outlierPct);
    this.high = HUNDRED.add(outlierPct);
  }

  /** Takes one reading of a ticker, read at `atMs` (local clock). */
  observe(t: Ticker, atMs: number): void {
    let s = this.bySymbol.get(t.symbol);
    let advanced = true;
    if (!s) {
      s = { accepted: null, latestAccepted: false, readAtMs: atMs, sourceMs: t.timestampMs, sourceAdvancedAtMs: atMs, candidate: null };
      this.bySymbol.set(t.symbol, s);
    } else {
      // Compared with the previous reading, not the highest seen: a venue whose clock stepped back recovers.
      advanced = t.timestampMs > s.sourceMs;
      if (advanced) s.sourceAdvancedAtMs = atMs;
      s.sourceMs = t.timestampMs;
    }
    s.readAtMs = atMs;
    const price = this.judge(s, t, advanced);
    s.latestAccepted = price !== null;
    if (price) {
      s.accepted = price;
      this.accepted.set(t.symbol, price);
    }
  }

  /** The latest reading of a symbol when it was accepted; undefined when it was not, or before any. */
  reference(symbol: string): ReferencePrice | undefined {
    const s = this.bySymbol.get(symbol);
    if (!s?.latestAccepted || !s.accepted) return undefined;
    return { price: s.accepted, atMs: s.readAtMs, sourceAdvancedAtMs: s.sourceAdvancedAtMs };
  }

  private judge(s: SymbolPrices, t: Ticker, advanced: boolean): Decimal | null {
    const last = t.last;
    if (!last || !last.gt(Decimal.ZERO) || !this.insideBook(last, t.bestBid, t.bestAsk)) {
      s.candidate = null;
      return null;
    }
    if (!s.accepted || last.eq(s.accepted) || this.near(last, s.accepted)) {
      s.candidate = null;
      return last;
    }
    // A jump: trusted once the next, newer reading agrees with it.
    if (s.candidate && advanced && this.near(last, s.candidate)) {
      s.candidate = null;
      return last;
    }
    s.candidate = last;
    return null;
  }

  /** |x − anchor| ≤ anchor × outlierPct / 100. */
  private near(x: Decimal, anchor: Decimal): boolean {
    return x.sub(anchor).abs().mul(HUNDRED).lte(anchor.mul(this.outlierPct));
  }

  /** bid × (1 − outlierPct / 100) ≤ last ≤ ask × (1 + outlierPct / 100), for the sides the ticker has. */
  private insideBook(last: Decimal, bid: Decimal | null, ask: Decimal | null): boolean {
    const scaled = last.mul(HUNDRED);
    if (bid && bid.gt(Decimal.ZERO) && scaled.lt(bid.mul(this.low))) return false;
    if (ask && ask.gt(Decimal.ZERO) && scaled.gt(ask.mul(this.high))) return false;
    return true;
  }
}
