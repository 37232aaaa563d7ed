// The simulator's funding schedule (F14, F15, F16; the settlement of positions uses it too), per contract: a
// settlement every `fundingIntervalMinutes` (480 by default, the venue's `collectCycle` for its BTC contract), at
// `fundingOffsetMinutes` past each multiple of the interval from the Unix epoch (the venue's settlement times vary by
// contract), each with a rate that is a function of the seed, the contract and the settlement only: small, mostly
// positive as perpetual funding tends to be, of both signs over time. A replay may record a contract's settlements
// (setHistory): the recorded times and rates then rule that contract.
import { Decimal } from '../../domain/decimal.js';
import { Prng, deriveSeed } from '../../util/prng.js';

/** The interval of a contract that names none (minutes, and ms). */
export const FUNDING_CYCLE_MINUTES = 480;
export const FUNDING_CYCLE_MS = FUNDING_CYCLE_MINUTES * 60_000;
/** Rates are drawn in units of 10^-7 (the venue quotes seven decimals: "-0.0001036"). */
const RATE_DECIMALS = 7;
/** Settlements sharing one level of the slow swing (3 days at 8 h). */
const SWING_SETTLEMENTS = 9;

export interface Settlement {
  symbol: string;
  settlementMs: number;
  rate: Decimal;
}

/** A settled rate as a replay recorded it. */
export interface RecordedFunding {
  settlementMs: number;
  rate: Decimal;
}

/** What the schedule needs of a contract's spec. */
export interface FundingSpec {
  symbol: string;
  fundingIntervalMinutes?: number;
  fundingOffsetMinutes?: number;
}

interface Grid {
  intervalMs: number;
  offsetMs: number;
}

/** A contract's recorded settlements, oldest first (times strictly increasing). */
interface Recorded {
  times: number[];
  rates: Decimal[];
}

/** Settlement times and rates per contract (see the header). */
export class FundingSchedule {
  private readonly grids = new Map<string, Grid>();
  private readonly recorded = new Map<string, Recorded>();

  constructor(
    private readonly seed: number,
    specs: readonly FundingSpec[] = [],
  ) {
    for (const spec of specs) {
      const intervalMs = (spec.fundingIntervalMinutes ?? FUNDING_CYCLE_MINUTES) * 60_000;
      this.grids.set(spec.symbol, { intervalMs, offsetMs: ((spec.fundingOffsetMinutes ?? 0) * 60_000) % intervalMs });
    }
  }

  private grid(symbol: string): Grid {
    return this.grids.get(symbol) ?? { intervalMs: FUNDING_CYCLE_MS, offsetMs: 0 };
  }

  /** Minutes between a contract's settlements (F14 `collectCycle`). */
  cycleMinutes(symbol: string): number {
    return this.grid(symbol).intervalMs / 60_000;
  }

  /**
   * Replaces a contract's rates (and settlement times) by recorded ones. Between recorded settlements there is no
   * other; after the latest one, settlements go on at the contract's interval from it with the latest recorded rate
   * holding; before the earliest one, they go back at the interval from it with the earliest rate. An empty list
   * gives the contract back to the seeded model.
   */
  setHistory(symbol: string, history: readonly RecordedFunding[]): void {
    if (history.length === 0) {
      this.recorded.delete(symbol);
      return;
    }
    const sorted = [...history].sort((a, b) => a.settlementMs - b.settlementMs);
    const times: number[] = [];
    const rates: Decimal[] = [];
    for (const r of sorted) {
      // A time recorded twice: the later record wins.
      if (times.length && times[times.length - 1] === r.settlementMs) rates[rates.length - 1] = r.rate;
      else {
        times.push(r.settlementMs);
        rates.push(r.rate);
      }
    }
    this.recorded.set(symbol, { times, rates });
  }

  /** The latest settlement at or before `nowMs`. */
  lastSettlementMs(symbol: string, nowMs: number): number {
    const rec = this.recorded.get(symbol);
    if (rec) {
      const i = atOrBefore(rec.times, nowMs);
      const { intervalMs } = this.grid(symbol);
      if (i < 0) return rec.times[0]! - Math.ceil((rec.times[0]! - nowMs) / intervalMs) * intervalMs;
      if (i === rec.times.length - 1) return rec.times[i]! + Math.floor((nowMs - rec.times[i]!) / intervalMs) * intervalMs;
      return rec.times[i]!;
    }
    const { intervalMs, offsetMs } = this.grid(symbol);
    return Math.floor((nowMs - offsetMs) / intervalMs) * intervalMs + offsetMs;
  }

  /** The first settlement after `nowMs` (a settlement at exactly `nowMs` has happened). */
  nextSettlementMs(symbol: string, nowMs: number): number {
    const rec = this.recorded.get(symbol);
    if (rec) {
      const i = atOrBefore(rec.times, nowMs);
      if (i >= 0 && i < rec.times.length - 1) return rec.times[i + 1]!;
    }
    return this.lastSettlementMs(symbol, nowMs) + this.grid(symbol).intervalMs;
  }

  /**
   * The rate of a contract at its settlement of `settlementMs`. Recorded: the recorded rate (the nearest recorded
   * one outside their span). Seeded: a slow swing from -0.0002 to +0.0004 that holds for nine settlements, plus noise
   * of ±0.00005 per settlement.
   */
  rate(symbol: string, settlementMs: number): Decimal {
    const rec = this.recorded.get(symbol);
    if (rec) {
      const i = atOrBefore(rec.times, settlementMs);
      return rec.rates[i < 0 ? 0 : i]!;
    }
    const { intervalMs, offsetMs } = this.grid(symbol);
    const index = Math.floor((settlementMs - offsetMs) / intervalMs);
    const swing = new Prng(deriveSeed(this.seed, `${symbol}/funding-swing/${Math.floor(index / SWING_SETTLEMENTS)}`)).below(6001) - 2000;
    const noise = new Prng(deriveSeed(this.seed, `${symbol}/funding/${index}`)).below(1001) - 500;
    return Decimal.of(BigInt(swing + noise), RATE_DECIMALS);
  }

  /** The rate the next settlement after `nowMs` will use: the current rate. */
  currentRate(symbol: string, nowMs: number): Decimal {
    return this.rate(symbol, this.nextSettlementMs(symbol, nowMs));
  }

  /** The latest `count` settlements at or before `nowMs`, newest first (none before the epoch). */
  history(symbol: string, nowMs: number, count: number): Settlement[] {
    const out: Settlement[] = [];
    for (let t = this.lastSettlementMs(symbol, nowMs); out.length < count && t >= 0; t = this.lastSettlementMs(symbol, t - 1)) {
      out.push({ symbol, settlementMs: t, rate: this.rate(symbol, t) });
    }
    return out;
  }
}

/** Index of the last time at or before `t` in ascending `times`; -1 when all are after it. */
function atOrBefore(times: readonly number[], t: number): number {
  let lo = 0;
  let hi = times.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (times[mid]! <= t) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}
