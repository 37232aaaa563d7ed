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
  /** The same as a float: the screen below compares floats (a 20 % threshold needs no exactness; the price kept is exact). */
  acceptedNum: number;
  /** A jump waiting for the next reading to confirm it. */
  candidate: number | null;
  /** The reading is a spot pair's last trade (see Ticker.fromTrade). */
  fromTrade: boolean;
  /** The latest reading's last price as a float (the screen's). */
  lastNum: number;
}

/**
 * A reading's last price is accepted when it is positive and lies within `outlierPct` of the previous accepted
 * price; a first reading, or one off that band, must also lie within `outlierPct` of the ticker's own bid/ask
 * (when the ticker has them; a non-positive bid or ask counts as absent). A reading that fails only the last test (a jump) is accepted when the next reading,
 * of a newer sample (the venue's timestamp advanced), confirms it: it lies within `outlierPct` of the jump. A
 * negated, zeroed or ×10 sample is never accepted on its own; a sample the venue keeps serving unchanged never
 * confirms itself.
 */
export class PriceSanity {
  private readonly bySymbol = new Map<string, SymbolPrices>();
  /** outlierPct / 100. */
  private readonly fraction: number;

  constructor(outlierPct: Decimal) {
    this.fraction = outlierPct.toNumber() / 100;
  }

  /** Takes one reading of a ticker, read at `atMs` (local clock). */
  observe(t: Ticker, atMs: number): void {
    let s = this.bySymbol.get(t.symbol);
    let advanced = true;
    if (!s) {
      s = {
        accepted: null,
        latestAccepted: false,
        readAtMs: atMs,
        sourceMs: t.timestampMs,
        sourceAdvancedAtMs: atMs,
        acceptedNum: 0,
        candidate: null,
        fromTrade: false,
        lastNum: 0,
      };
      this.bySymbol.set(t.symbol, s);
    } else {
      // Compared with the previous reading, not the highest seen: a venue whose clock stepped back recovers.
      advanced = t.timestampMs > s.sourceMs;
      if (advanced) s.sourceAdvancedAtMs = atMs;
      s.sourceMs = t.timestampMs;
    }
    s.readAtMs = atMs;
    s.fromTrade = t.fromTrade === true;
    const price = this.judge(s, t, advanced);
    s.latestAccepted = price !== null;
    if (price && price !== s.accepted) {
      s.accepted = price;
      s.acceptedNum = s.lastNum;
    }
  }

  /** The last price of a symbol that was accepted (a bad reading leaves the one before); undefined before any. */
  accepted(symbol: string): Decimal | undefined {
    return this.bySymbol.get(symbol)?.accepted ?? undefined;
  }

  /** The latest reading of a symbol when it was accepted; undefined when it was not, or before any. */
  reference(symbol: string): ReferencePrice | undefined {
    const s = this.bySymbol.get(symbol);
    if (!s?.latestAccepted || !s.accepted) return undefined;
    // A last trade's time says when someone last traded, not whether the feed is alive: no frozen-feed test.
    return s.fromTrade ? { price: s.accepted, atMs: s.readAtMs } : { price: s.accepted, atMs: s.readAtMs, sourceAdvancedAtMs: s.sourceAdvancedAtMs };
  }

  /**
   * The screen, in floats: which reading is trusted is a threshold decision (a 20 % band), not money; the price
   * trusted is the exact Decimal of the reading. Decimal arithmetic here cost ~450 ns a tick in backtests.
   */
  private judge(s: SymbolPrices, t: Ticker, advanced: boolean): Decimal | null {
    const last = t.last;
    // The very price trusted before (a source may hand out one Decimal while its price holds): trusted again.
    if (last !== null && last === s.accepted) {
      s.lastNum = s.acceptedNum;
      s.candidate = null;
      return last;
    }
    const x = last ? last.toNumber() : 0;
    s.lastNum = x;
    if (!last || !(x > 0)) {
      s.candidate = null;
      return null;
    }
    // Near the price trusted before: trusted (the bid/ask test matters only for a first reading or a jump, and
    // reading the book costs more than the rest of the screen).
    if (s.accepted && this.near(x, s.acceptedNum)) {
      s.candidate = null;
      return last;
    }
    if (!this.insideBook(x, t.bestBid, t.bestAsk)) {
      s.candidate = null;
      return null;
    }
    if (!s.accepted) return last;
    // A jump: trusted once the next, newer reading agrees with it.
    if (s.candidate !== null && advanced && this.near(x, s.candidate)) {
      s.candidate = null;
      return last;
    }
    s.candidate = x;
    return null;
  }

  /** |x − anchor| ≤ anchor × outlierPct / 100. */
  private near(x: number, anchor: number): boolean {
    return Math.abs(x - anchor) <= anchor * this.fraction;
  }

  /** bid × (1 − outlierPct / 100) ≤ last ≤ ask × (1 + outlierPct / 100), for the sides the ticker has (positive ones). */
  private insideBook(x: number, bid: Decimal | null, ask: Decimal | null): boolean {
    const b = bid ? bid.toNumber() : 0;
    const a = ask ? ask.toNumber() : 0;
    if (b > 0 && x < b * (1 - this.fraction)) return false;
    if (a > 0 && x > a * (1 + this.fraction)) return false;
    return true;
  }
}
