// The contract against face 1: the in-process simulator in virtual time.
import { DEFAULT_INSTRUMENTS } from '../../src/exchange/sim/instruments.js';
import { SyntheticMarket } from '../../src/exchange/sim/market.js';
import { SimulatedExchange } from '../../src/exchange/sim/simulated-exchange.js';
import { describeExchangeContract, type Face } from './exchange-contract.js';
import { describeFuturesActionsContract } from './futures-actions-contract.js';

export const TEST_ACCOUNTS = { spot: { USDT: '100000', BTC: '1', ETH: '20', SOL: '500' }, futuresCollateral: '100000', leverage: 20 };

async function inProcess(): Promise<Face> {
  const market = new SyntheticMarket(DEFAULT_INSTRUMENTS, { seed: 7, startMs: 1_700_000_000_000, tickIntervalMs: 20 });
  const sim = new SimulatedExchange(market, TEST_ACCOUNTS);
  sim.advanceTo(1_700_000_001_000);
  return {
    client: sim,
    advance: async (ms) => sim.advanceTo(sim.clock.now() + ms),
    shift: async (symbol, ticks) => market.shift(symbol, ticks),
    close: () => sim.close(),
  };
}

describeExchangeContract('in-process simulator', inProcess);
describeFuturesActionsContract('in-process simulator', inProcess);
