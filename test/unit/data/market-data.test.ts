// The market-data streams' reads: the tape a recording needs is read only while subscribed (the daemon never
// pays for it), with the most trades one S9 read returns, under the symbols asked for.
import { describe, expect, it } from '@jest/globals';
import { firstValueFrom, take, toArray } from 'rxjs';
import { MarketData, TAPE_TRADES_LIMIT } from '../../../src/data/market-data.js';
import { Decimal } from '../../../src/domain/decimal.js';
import type { PublicTrade, Ticker } from '../../../src/domain/market.js';
import type { ExchangeClient } from '../../../src/exchange/client.js';
import { silentLogger } from '../../../src/util/logger.js';

function venue() {
  const reads: string[] = [];
  const trade = (symbol: string, tradeId: string): PublicTrade => ({ symbol, tradeId, timestampMs: 5, price: Decimal.from('100'), size: Decimal.from('0.5'), buyerMaker: true });
  const ticker = (symbol: string): Ticker => ({
    symbol, last: Decimal.from('10'), bestBid: Decimal.from('9'), bestAsk: Decimal.from('11'), markPrice: null, indexPrice: null,
    high24h: null, low24h: null, volume24h: null, baseVolume24h: Decimal.from('1'), timestampMs: 7,
  });
  const client = {
    tickers: async () => {
      reads.push('F2');
      return [ticker('cmt_btcusdt'), ticker('cmt_ethusdt')];
    },
    // The venue names the pair its own way here: the stream keeps the symbol it asked for.
    recentTrades: async (symbol: string, limit?: number) => {
      reads.push(`S9 ${symbol} ${limit}`);
      return [trade('btcusdt_spbl', 't2'), trade('btcusdt_spbl', 't1')];
    },
  } as unknown as ExchangeClient;
  const data = new MarketData(client, {
    spotSymbols: ['BTCUSDT_SPBL'], futuresSymbols: ['cmt_btcusdt'],
    polls: { tickersMs: 10, ordersMs: 1000, balancesMs: 1000, positionsMs: 1000, tradesMs: 1000 }, clock: { now: () => 42 }, logger: silentLogger,
    choices: { spotOpenOrders: 'S15', futuresTickers: 'F2', spotTickers: 'trade' },
  });
  return { data, reads };
}

describe('market data: the tape', () => {
  it('is read only once subscribed: the futures tickers and each pair\'s trades, as many as one read returns, under the symbol asked for', async () => {
    const { data, reads } = venue();
    await firstValueFrom(data.tickers$);
    expect(reads).toEqual(['F2', 'S9 BTCUSDT_SPBL 1']);
    reads.length = 0;
    const [tape] = await firstValueFrom(data.tape$.pipe(take(1), toArray()));
    expect(reads).toEqual(['F2', `S9 BTCUSDT_SPBL ${TAPE_TRADES_LIMIT}`]);
    expect(TAPE_TRADES_LIMIT).toBe(1000);
    expect(tape!.atMs).toBe(42);
    expect(tape!.value.tickers.map((t) => t.symbol)).toEqual(['cmt_btcusdt']);
    expect(tape!.value.trades.map((t) => [t.symbol, t.tradeId])).toEqual([['BTCUSDT_SPBL', 't2'], ['BTCUSDT_SPBL', 't1']]);
  });
});
