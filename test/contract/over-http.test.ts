// The contract against face 2: the live client, over HTTP, to the simulator's wire server on 127.0.0.1.
import { DEFAULT_INSTRUMENTS } from '../../src/exchange/sim/instruments.js';
import { SyntheticMarket } from '../../src/exchange/sim/market.js';
import { SimServer } from '../../src/exchange/sim/server.js';
import { systemClock } from '../../src/util/clock.js';
import { silentLogger } from '../../src/util/logger.js';
import { clientFor } from '../fixtures/live-client.js';
import { describeExchangeContract, type Face } from './exchange-contract.js';
import { describeFuturesActionsContract } from './futures-actions-contract.js';

const ACCOUNTS = { spot: { USDT: '100000', BTC: '1', ETH: '20', SOL: '500' }, futuresCollateral: '100000', leverage: 20 };
const CREDS = { apiKey: 'contract-key', apiSecret: 'contract-secret', passphrase: 'contract-pass' };

async function overHttp(): Promise<Face> {
  const market = new SyntheticMarket(DEFAULT_INSTRUMENTS, { seed: 7, startMs: systemClock.now(), tickIntervalMs: 20 });
  const server = new SimServer({
    market,
    accounts: ACCOUNTS,
    credentials: CREDS,
    clock: systemClock,
    logger: silentLogger,
    budget: { spot: { ip: 1_000_000, uid: 1_000_000 }, futures: { ip: 1_000_000, uid: 1_000_000 }, windowMs: 10_000, orderRequestsPerSecond: 10_000 },
  });
  const url = await server.listen(0, '127.0.0.1');
  const client = clientFor({ url, opts: CREDS } as never);
  await new Promise((r) => setTimeout(r, 100));
  return {
    client,
    advance: (ms) => new Promise((r) => setTimeout(r, ms)),
    shift: async (symbol, ticks) => {
      const res = await fetch(`${url}/sim/market`, { method: 'POST', body: JSON.stringify({ symbol, shiftTicks: ticks }) });
      if (!res.ok) throw new Error(await res.text());
    },
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

describeExchangeContract('live client over HTTP to sextant sim', overHttp);
describeFuturesActionsContract('live client over HTTP to sextant sim', overHttp);
