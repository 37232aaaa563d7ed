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
  // Called on every balances poll: plain loops, nothing allocated but the sums.
  const bySurface: Record<string, Decimal> = {};
  for (let k = 0; k < balances.length; k++) {
    const b = balances[k]!;
    if (b.asset === 'USDT') {
      addTo(bySurface, b.surface, b.total);
      continue;
    }
    if (b.total.isZero()) continue;
    const last = spotPrice(b.asset, instruments, priceOf);
    if (!last) continue; // an asset no strategy trades: not counted
    addTo(bySurface, b.surface, b.total.mul(last));
  }
  for (let k = 0; k < positions.length; k++) {
    const p = positions[k]!;
    const last = priceOf(p.symbol);
    if (!last) return undefined;
    const value = p.size.mul(last);
    addTo(bySurface, 'futures', p.side === 'long' ? value.sub(p.openValue) : p.openValue.sub(value));
  }
  let total = Decimal.ZERO;
  for (const surface in bySurface) total = total.add(bySurface[surface]!);
  return { total, bySurface };
}

function addTo(bySurface: Record<string, Decimal>, surface: Surface, v: Decimal): void {
  const was = bySurface[surface];
  bySurface[surface] = was ? was.add(v) : v;
}

/** The price of an asset's USDT spot pair, when there is one and it has a price. */
function spotPrice(asset: string, instruments: Map<string, Instrument>, priceOf: (symbol: string) => Decimal | null | undefined): Decimal | null | undefined {
  for (const i of instruments.values()) if (i.surface === 'spot' && i.base === asset && i.quote === 'USDT') return priceOf(i.symbol);
  return undefined;
}
