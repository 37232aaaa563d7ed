// The simulator's spot balances: available and frozen per asset. A spot order freezes what it may spend when
// placed, each fill moves its part, and a final order gives back what it still holds. Fees are paid in quote.
import { Decimal } from '../../domain/decimal.js';
import type { Balance } from '../../domain/market.js';
import { SWEEP_LEVELS, priceOf, sizeOf, type Book } from './book.js';
import { refusals, type Refusal } from './refusals.js';
import type { SimOrder } from './sim-order.js';

interface AssetBalance {
  available: Decimal;
  frozen: Decimal;
}

export class SpotWallet {
  private readonly assets = new Map<string, AssetBalance>();

  /** `initial`: amount by asset, as decimal strings. */
  constructor(initial: Record<string, string>) {
    for (const [asset, amount] of Object.entries(initial)) this.assets.set(asset, { available: Decimal.from(amount), frozen: Decimal.ZERO });
  }

  /** Freezes what the order may spend: quote (worst price × size × (1 + taker fee)) for buys, base for sells. */
  reserve(book: Book, order: SimOrder): Refusal | undefined {
    let need: Decimal;
    let asset: string;
    if (order.side === 'buy') {
      const worstTicks = order.priceTicks ?? book.m.ask + SWEEP_LEVELS - 1;
      need = priceOf(book, worstTicks).mul(sizeOf(book, order.sizeSteps)).mul(Decimal.fromInt(1).add(book.inst.takerFeeRate));
      asset = book.inst.quote;
    } else {
      need = sizeOf(book, order.sizeSteps);
      asset = book.inst.base;
    }
    const balance = this.balance(asset);
    if (balance.available.lt(need))
      return refusals.failed('spot', `insufficient balance: ${asset} available ${balance.available.toString()}, needs ${need.toString()}`);
    balance.available = balance.available.sub(need);
    balance.frozen = balance.frozen.add(need);
    order.reserved = need;
    return undefined;
  }

  /** Moves one fill: a buy spends frozen quote (amount and fee) for base, a sell frozen base for quote less the fee. */
  settle(book: Book, order: SimOrder, size: Decimal, amount: Decimal, fee: Decimal): void {
    const base = this.balance(book.inst.base);
    const quote = this.balance(book.inst.quote);
    if (order.side === 'buy') {
      const cost = amount.add(fee);
      quote.frozen = quote.frozen.sub(cost);
      order.reserved = order.reserved.sub(cost);
      base.available = base.available.add(size);
    } else {
      base.frozen = base.frozen.sub(size);
      order.reserved = order.reserved.sub(size);
      quote.available = quote.available.add(amount.sub(fee));
    }
  }

  /** Gives back what a final order still holds frozen. */
  release(book: Book, order: SimOrder): void {
    if (order.reserved.isZero()) return;
    const balance = this.balance(order.side === 'buy' ? book.inst.quote : book.inst.base);
    balance.frozen = balance.frozen.sub(order.reserved);
    balance.available = balance.available.add(order.reserved);
    order.reserved = Decimal.ZERO;
  }

  balances(): Balance[] {
    return [...this.assets.entries()].map(([asset, balance]) => ({
      surface: 'spot',
      asset,
      available: balance.available,
      frozen: balance.frozen,
      total: balance.available.add(balance.frozen),
    }));
  }

  /** An asset's balance, created empty on first use. */
  private balance(asset: string): AssetBalance {
    let balance = this.assets.get(asset);
    if (!balance) {
      balance = { available: Decimal.ZERO, frozen: Decimal.ZERO };
      this.assets.set(asset, balance);
    }
    return balance;
  }
}
