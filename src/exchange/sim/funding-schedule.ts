// The simulator's funding schedule (F14, F15, F16; the settlement of positions uses it too): a settlement every
// 480 minutes, at the multiples of the cycle from the Unix epoch (00:00, 08:00 and 16:00 UTC, the venue's
// `delivery` times for its BTC contract), each with a rate that is a function of the seed, the contract and the
// settlement time only: small, mostly positive as perpetual funding tends to be, of both signs over time.
import { Decimal } from '../../domain/decimal.js';
import { Prng, deriveSeed } from './prng.js';

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

export class FundingSchedule {
  constructor(private readonly seed: number) {}

  /** The first settlement after `nowMs` (a settlement at exactly `nowMs` has happened). */
  nextSettlementMs(nowMs: number): number {
    return this.lastSettlementMs(nowMs) + FUNDING_CYCLE_MS;
  }

  /** The latest settlement at or before `nowMs`. */
  lastSettlementMs(nowMs: number): number {
    return Math.floor(nowMs / FUNDING_CYCLE_MS) * FUNDING_CYCLE_MS;
  }

  /**
   * The rate of a contract at the settlement of `settlementMs` (a multiple of the cycle): a slow swing from
   * -0.0002 to +0.0004 that holds for three days, plus noise of ±0.00005 per settlement.
   */
  rate(symbol: string, settlementMs: number): Decimal {
    const index = Math.floor(settlementMs / FUNDING_CYCLE_MS);
    const swing = new Prng(deriveSeed(this.seed, `${symbol}/funding-swing/${Math.floor(index / SWING_SETTLEMENTS)}`)).below(6001) - 2000;
    const noise = new Prng(deriveSeed(this.seed, `${symbol}/funding/${index}`)).below(1001) - 500;
    return Decimal.of(BigInt(swing + noise), RATE_DECIMALS);
  }

  /** The rate the next settlement after `nowMs` will use: the current rate. */
  currentRate(symbol: string, nowMs: number): Decimal {
    return this.rate(symbol, this.nextSettlementMs(nowMs));
  }

  /** The latest `count` settlements at or before `nowMs`, newest first. */
  history(symbol: string, nowMs: number, count: number): Settlement[] {
    const out: Settlement[] = [];
    for (let t = this.lastSettlementMs(nowMs), k = 0; k < count && t >= 0; k++, t -= FUNDING_CYCLE_MS) out.push({ symbol, settlementMs: t, rate: this.rate(symbol, t) });
    return out;
  }
}
