// Equity of the account in the quote currency, from balances, positions and trusted last prices (pure).
import { Decimal } from './decimal.js';
import type { Balance, Instrument, Position, Surface } from './market.js';

/**
 * Equity in the quote currency (USDT): quote balances, base balances at their USDT pair's price (assets
 * without a priced pair are left out), futures collateral plus unrealised PnL at the price. `priceOf` gives a
 * symbol's last price: the trading loop gives the accepted ones (domain/price-sanity.ts: a bad sample never
 * reaches equity, nor the drawdown kill switch). Undefined without prices, or while a position's price is unknown.
 */
export function equity(
  balances: Balance[],
  positions: Position[],
  priceOf: ((symbol: string) => Decimal | null | undefined) | undefined,
  instruments: Map<string, Instrument>,
): { total: Decimal; bySurface: Record<string, Decimal> } | undefined {
  if (!priceOf) return undefined;
  const bySurface: Record<string, Decimal> = {};
  const add = (s: Surface, v: Decimal) => (bySurface[s] = (bySurface[s] ?? Decimal.ZERO).add(v));
  for (const b of balances) {
    if (b.asset === 'USDT') {
      add(b.surface, b.total);
      continue;
    }
    if (b.total.isZero()) continue;
    const inst = [...instruments.values()].find((i) => i.surface === 'spot' && i.base === b.asset && i.quote === 'USDT');
    const last = inst ? priceOf(inst.symbol) : undefined;
    if (!last) continue; // an asset no strategy trades: not counted
    add(b.surface, b.total.mul(last));
  }
  for (const p of positions) {
    const last = priceOf(p.symbol);
    if (!last) return undefined;
    const value = p.size.mul(last);
    add('futures', p.side === 'long' ? value.sub(p.openValue) : p.openValue.sub(value));
  }
  const total = Object.values(bySurface).reduce((a, v) => a.add(v), Decimal.ZERO);
  return { total, bySurface };
}
