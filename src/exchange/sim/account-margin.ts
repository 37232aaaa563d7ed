// The futures account's margin at mark, as domain/margin.ts works it out (the one place for that arithmetic): the
// account's cross margin (equity, maintenance, liquidating), a contract's estimated liquidation price on the tick,
// and a quick watch that tells, in doubles and with no allocation, when the account is clearly clear of liquidation
// so that the exact check runs only near the line.
import { Decimal } from '../../domain/decimal.js';
import {
  crossMargin,
  liquidationPrice,
  requiredRate,
  roundLiquidationPrice,
  type CrossMargin,
  type MarginPosition,
  type MarginRules,
} from '../../domain/margin.js';
import { priceOf, type Book } from './book.js';
import type { FuturesAccount } from './futures-account.js';

const ONE = Decimal.fromInt(1);

/** The margin rules of a contract: the configured tiers and trigger, its taker rate as the closing-fee rate. */
export function rulesOf(account: FuturesAccount, book: Book): MarginRules {
  return { tiers: account.options.tiers, trigger: account.options.liquidationTrigger, closeFeeRate: book.inst.takerFeeRate };
}

/** Base currency of one contract (tiers count contracts); a contract that names none counts its size in base units. */
function contractValueOf(book: Book): Decimal {
  return book.inst.contractValue ?? ONE;
}

/** A contract's open sides as the margin arithmetic sees them, at `mark` (default: its mark now). */
export function marginPositionsOf(account: FuturesAccount, book: Book, mark: Decimal = account.mark(book)): MarginPosition[] {
  const out: MarginPosition[] = [];
  for (const side of ['long', 'short'] as const) {
    const pos = book.positions[side];
    if (pos.size.isZero()) continue;
    out.push({ side, size: pos.size, openValue: pos.openValue, mark, contractValue: contractValueOf(book), closeFeeRate: book.inst.takerFeeRate });
  }
  return out;
}

/** The account's cross margin at the marks now: every position backed by the whole collateral. */
export function accountCross(account: FuturesAccount): CrossMargin {
  const positions: MarginPosition[] = [];
  let closeFeeRate = Decimal.ZERO;
  for (const book of account.books) {
    const held = marginPositionsOf(account, book);
    if (held.length) closeFeeRate = book.inst.takerFeeRate;
    positions.push(...held);
  }
  // Each position carries its contract's closing-fee rate; the rules' one only stands in.
  return crossMargin(account.total(), positions, { tiers: account.options.tiers, trigger: account.options.liquidationTrigger, closeFeeRate });
}

/**
 * A contract's estimated liquidation price on the tick (up for a net long, down for a net short), every other
 * contract held at its mark; null when the contract is flat net or no positive price would liquidate it.
 */
export function contractLiquidationPrice(account: FuturesAccount, book: Book, cross: CrossMargin = accountCross(account)): Decimal | null {
  const held = marginPositionsOf(account, book);
  const price = liquidationPrice(cross, held, rulesOf(account, book));
  if (price === null) return null;
  const net = held.reduce((sum, p) => (p.side === 'long' ? sum.add(p.size) : sum.sub(p.size)), Decimal.ZERO);
  return roundLiquidationPrice(price, book.inst.tickSize, net.gt(Decimal.ZERO));
}

/**
 * The account's margin inputs at one instant (collateral, each held side's size and open value, each contract's mark
 * in ticks), and what depends on them worked out from those, when first asked: a position read later shows the
 * account as it was when read.
 */
export class MarginMoment {
  private readonly collateral: Decimal;
  /** By the index of each book in the account's books: its mark in ticks then, and its open sides then. */
  private readonly marks: number[] = [];
  private readonly held: Array<Array<{ side: 'long' | 'short'; size: Decimal; openValue: Decimal }> | undefined> = [];
  /** What was worked out, by the same index (worked out once: the inputs are those of the moment). */
  private readonly markPrices: Array<Decimal | undefined> = [];
  private readonly liquidationPrices: Array<Decimal | null | undefined> = [];
  private cross: CrossMargin | undefined;

  constructor(private readonly account: FuturesAccount) {
    this.collateral = account.total();
    for (const book of account.books) {
      this.marks.push(book.mark.markTicks(book.m));
      let sides: Array<{ side: 'long' | 'short'; size: Decimal; openValue: Decimal }> | undefined;
      for (const side of ['long', 'short'] as const) {
        const pos = book.positions[side];
        if (!pos.size.isZero()) (sides ??= []).push({ side, size: pos.size, openValue: pos.openValue });
      }
      this.held.push(sides);
    }
  }

  /** A contract's mark then. */
  mark(book: Book): Decimal {
    const i = this.account.books.indexOf(book);
    return (this.markPrices[i] ??= priceOf(book, this.marks[i]!));
  }

  /** As marginPositionsOf, then. */
  private positionsOf(book: Book): MarginPosition[] {
    const mark = this.mark(book);
    return (this.held[this.account.books.indexOf(book)] ?? []).map((p) => ({
      side: p.side,
      size: p.size,
      openValue: p.openValue,
      mark,
      contractValue: contractValueOf(book),
      closeFeeRate: book.inst.takerFeeRate,
    }));
  }

  /** As accountCross, then. */
  accountCross(): CrossMargin {
    if (this.cross) return this.cross;
    const positions: MarginPosition[] = [];
    let closeFeeRate = Decimal.ZERO;
    for (const book of this.account.books) {
      const held = this.positionsOf(book);
      if (held.length) closeFeeRate = book.inst.takerFeeRate;
      positions.push(...held);
    }
    return (this.cross = crossMargin(this.collateral, positions, {
      tiers: this.account.options.tiers,
      trigger: this.account.options.liquidationTrigger,
      closeFeeRate,
    }));
  }

  /** As contractLiquidationPrice, then. */
  liquidationPrice(book: Book): Decimal | null {
    const i = this.account.books.indexOf(book);
    const known = this.liquidationPrices[i];
    if (known !== undefined) return known;
    const held = this.positionsOf(book);
    const price = liquidationPrice(this.accountCross(), held, rulesOf(this.account, book));
    if (price === null) return (this.liquidationPrices[i] = null);
    const net = held.reduce((sum, p) => (p.side === 'long' ? sum.add(p.size) : sum.sub(p.size)), Decimal.ZERO);
    return (this.liquidationPrices[i] = roundLiquidationPrice(price, book.inst.tickSize, net.gt(Decimal.ZERO)));
  }
}

/**
 * Whether the account is clearly clear of liquidation at the marks now. Equity − maintenance is linear in the marks:
 * collateral − Σ long open value + Σ short open value + Σ marks × (long × (1 − r_long) − short × (1 + r_short)), with
 * each side's required rate fixed while sizes hold. Its coefficients are kept as doubles until the account changes;
 * a sum above a margin far wider than the doubles' error means clear, anything else is checked exactly.
 */
export class MarginWatch {
  private builtAt = -1;
  private constant = 0;
  private magnitude = 0;
  private held: Book[] = [];
  private perTick: number[] = [];

  constructor(private readonly account: FuturesAccount) {}

  clearlySafe(): boolean {
    if (this.builtAt !== this.account.version) this.rebuild();
    let sum = this.constant;
    let magnitude = this.magnitude;
    for (let i = 0; i < this.held.length; i++) {
      // A contract holding a position is watched: its mark is taken on each of its ticks (and on rebuild).
      const term = this.perTick[i]! * this.held[i]!.markTicks;
      sum += term;
      magnitude += term < 0 ? -term : term;
    }
    return sum > magnitude * 1e-9;
  }

  private rebuild(): void {
    const account = this.account;
    let constant = account.total();
    let magnitude = account.total().abs();
    this.held = [];
    this.perTick = [];
    for (const book of account.books) {
      const rules = rulesOf(account, book);
      let coefficient = Decimal.ZERO;
      for (const side of ['long', 'short'] as const) {
        const pos = book.positions[side];
        if (pos.size.isZero()) continue;
        const rate = requiredRate(rules, { size: pos.size, contractValue: contractValueOf(book), closeFeeRate: book.inst.takerFeeRate });
        constant = side === 'long' ? constant.sub(pos.openValue) : constant.add(pos.openValue);
        magnitude = magnitude.add(pos.openValue);
        coefficient = side === 'long' ? coefficient.add(pos.size.mul(ONE.sub(rate))) : coefficient.sub(pos.size.mul(ONE.add(rate)));
      }
      if (book.positions.long.size.isZero() && book.positions.short.size.isZero()) continue;
      book.markTicks = book.mark.markTicks(book.m);
      this.held.push(book);
      this.perTick.push(coefficient.mul(book.inst.tickSize).toNumber());
    }
    this.constant = constant.toNumber();
    this.magnitude = magnitude.toNumber();
    this.builtAt = account.version;
  }
}
