// What every simulated run trades: the daemon's config (the shipped market maker and grid beside random intent
// generators on the other symbols), the venue's accounts (futures collateral small enough for a price gap to
// liquidate), and each strategy's design bound.
import { parseConfig, type LoadedConfig } from '../../config/load.js';
import type { SimAccounts } from '../../exchange/sim/engine.js';
import type { StrategyDefinition } from '../../strategy/api.js';
import { loadStrategy, SHIPPED_STRATEGIES } from '../../strategy/loader.js';

export const SIM_SETTINGS = {
  clientOidPrefix: 'sx',
  /** How long an order may stay untracked or unanswered beyond the time the venue or the daemon was out of reach. */
  boundMs: 60_000,
  /** The calm after the last fault: everything must have settled by its end. */
  calmMs: 180_000,
};

export const SIM_ACCOUNTS: SimAccounts = { spot: { USDT: '1000000', BTC: '1', ETH: '20', SOL: '500' }, futuresCollateral: '800', leverage: 20 };

const CONFIG = `
mode: dry-run
risk:
  maxNotionalPerOrder: "5000"
  maxNotionalPerSymbol: "20000"
  priceBandPct: "2"
  staleAfterMs: 10000
  maxDrawdownPct: "10"
daemon:
  polls: { tickersMs: 2000, ordersMs: 3000, balancesMs: 5000, positionsMs: 5000 }
  reconcileCron: "*/5 * * * * *"
  restartFaultedAfterMs: 30000
strategies:
  - id: mm-btc
    name: spot-market-maker
    symbols: [BTCUSDT_SPBL]
    params: { halfSpreadBps: 6, size: "0.002", maxInventory: "0.02", skewBps: 5, toleranceBps: 20 }
  - id: grid-eth
    name: futures-grid
    symbols: [cmt_ethusdt]
    params: { levels: 4, stepBps: 10, size: "0.05", stopLossSteps: 2 }
  - id: rnd-eth
    name: random-intents
    symbols: [ETHUSDT_SPBL]
    params: { levels: 4, size: "0.05" }
  - id: rnd-btc
    name: random-intents
    symbols: [cmt_btcusdt]
    params: { levels: 3, size: "0.002" }
  - id: rnd-sol
    name: random-intents
    symbols: [SOLUSDT_SPBL]
    params: { levels: 5, size: "1" }
  - id: rnd-solf
    name: random-intents
    symbols: [cmt_solusdt]
    params: { levels: 5, size: "1" }
`;

/**
 * Each strategy's design bound: the market maker's inventory cap and the grid's levels × size, each with two orders'
 * size more (one under way while the fill of another is not yet shown by the poll); the generators' levels × size and
 * one size more.
 */
export const SIM_BOUNDS: ReadonlyArray<{ strategyId: string; symbol: string; max: string }> = [
  { strategyId: 'mm-btc', symbol: 'BTCUSDT_SPBL', max: '0.024' },
  { strategyId: 'grid-eth', symbol: 'cmt_ethusdt', max: '0.3' },
  { strategyId: 'rnd-eth', symbol: 'ETHUSDT_SPBL', max: '0.25' },
  { strategyId: 'rnd-btc', symbol: 'cmt_btcusdt', max: '0.008' },
  { strategyId: 'rnd-sol', symbol: 'SOLUSDT_SPBL', max: '6' },
  { strategyId: 'rnd-solf', symbol: 'cmt_solusdt', max: '6' },
];

/** The config and the shipped strategies, read once per process of the simulation. */
export async function simEnvironment(): Promise<{ loaded: LoadedConfig; shipped: Map<string, StrategyDefinition<unknown>> }> {
  const loaded = parseConfig(CONFIG, 'simtest.yaml', {});
  const shipped = new Map<string, StrategyDefinition<unknown>>();
  for (const name of ['spot-market-maker', 'futures-grid']) shipped.set(name, await loadStrategy(name, [SHIPPED_STRATEGIES]));
  return { loaded, shipped };
}
