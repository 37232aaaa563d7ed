// A strategy sees the same bars live and in a backtest of the same period: the daemon trades the simulator over
// HTTP (its market sixty times faster than the wall clock, so minutes of 1-minute bars pass in seconds) while
// `record` writes the venue's tape from the same simulator; the recording is then backtested, and the closed bars
// the strategy was given in both runs are compared, field by field, over the bars the recording covers whole.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from '@jest/globals';
import { runBacktest } from '../../src/app/backtest.js';
import { startDaemon } from '../../src/app/daemon.js';
import { createLiveClient } from '../../src/app/kernel.js';
import { loadConfig } from '../../src/config/load.js';
import { MarketData } from '../../src/data/market-data.js';
import { record } from '../../src/data/recorder.js';
import { readReplayFile } from '../../src/data/replay-file.js';
import { DEFAULT_INSTRUMENTS } from '../../src/exchange/sim/instruments.js';
import { SyntheticMarket } from '../../src/exchange/sim/market.js';
import { SimServer } from '../../src/exchange/sim/server.js';
import { createLogger, silentLogger } from '../../src/util/logger.js';
import type { StrategyDefinition } from '../../src/strategy/api.js';
import { ScaledClock } from '../fixtures/scaled-clock.js';
import barLog from '../fixtures/strategies/bar-log.js';

// The strategy as loaded here (Jest cannot load a TypeScript strategy file the way the daemon does).
const definitions = new Map([['bar-log', barLog as unknown as StrategyDefinition<unknown>]]);

const SYMBOL = 'BTCUSDT_SPBL';
const CREDENTIALS = { apiKey: 'bars-key', apiSecret: 'bars-secret', passphrase: 'bars-pass' };

interface LoggedBar {
  symbol: string;
  timeframe: string;
  openMs: number;
  closeMs: number;
  open: string;
  high: string;
  low: string;
  close: string;
  volume: string;
  trades: number;
  /** Closed bars the strategy's history held when it was given this one (its lookback is 5). */
  history: number;
}

/** A logger whose `bar` lines (from the bar-log strategy) are collected. */
function barLogger(into: LoggedBar[]) {
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) {
        if (!line.includes('"msg":"bar"')) continue;
        const { symbol, timeframe, openMs, closeMs, open, high, low, close, volume, trades, history } = JSON.parse(line) as LoggedBar;
        into.push({ symbol, timeframe, openMs, closeMs, open, high, low, close, volume, trades, history });
      }
      done();
    },
  });
  return createLogger({ level: 'info', destination: sink });
}

describe('bars: live and a backtest of the recording', () => {
  it('gives the strategy identical closed bars', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sextant-bars-'));
    // Sixty times the wall clock: a market minute per second; a spot trade each market second.
    const clock = new ScaledClock(60, Date.UTC(2026, 10, 23, 12, 0, 17));
    const venue = new SimServer({
      market: new SyntheticMarket(DEFAULT_INSTRUMENTS, { seed: 11, startMs: clock.now(), tickIntervalMs: 1000 }),
      accounts: { spot: { USDT: '100000', BTC: '1' }, futuresCollateral: '0', leverage: 1 },
      credentials: CREDENTIALS,
      budget: { spot: { ip: 1e6, uid: 1e6 }, futures: { ip: 1e6, uid: 1e6 }, windowMs: 10_000, orderRequestsPerSecond: 1e6 },
      clock,
      logger: silentLogger,
    });
    const url = await venue.listen(0, '127.0.0.1');
    const tape = join(dir, 'tape.jsonl');
    const live: LoggedBar[] = [];
    const replayed: LoggedBar[] = [];
    try {
      const cfgFile = join(dir, 'bars.yaml');
      writeFileSync(
        cfgFile,
        [
          'mode: live',
          `exchange: { spotBaseUrl: "${url}", futuresBaseUrl: "${url}" }`,
          `journal: { path: ${JSON.stringify(join(dir, 'journal.sqlite'))} }`,
          // Polls in wall-clock ms (a fifth of a market minute... 12 market seconds); bars close 30 market seconds late.
          'daemon: { http: { port: 0 }, polls: { tickersMs: 200, tradesMs: 200, ordersMs: 1000, balancesMs: 1000, positionsMs: 1000 }, bars: { closeDelayMs: 30000 } }',
          `backtest: { data: ${JSON.stringify(tape)}, out: ${JSON.stringify(join(dir, 'report'))} }`,
          `strategyDirs: [${JSON.stringify(resolve('test/fixtures/strategies'))}]`,
          `strategies: [{ id: bars, name: bar-log, symbols: [${SYMBOL}], timeframes: [1m] }]`,
          'log: { level: info }',
        ].join('\n') + '\n',
      );
      const env = { SEXTANT_API_KEY: CREDENTIALS.apiKey, SEXTANT_API_SECRET: CREDENTIALS.apiSecret, SEXTANT_API_PASSPHRASE: CREDENTIALS.passphrase };
      const loaded = loadConfig(cfgFile, env);
      // The recording: the venue's tape, as `sextant record` polls it.
      const client = createLiveClient({ ...loaded, credentials: undefined }, silentLogger, clock);
      const data = new MarketData(client, {
        spotSymbols: [SYMBOL],
        futuresSymbols: [],
        polls: loaded.config.daemon.polls,
        clock,
        logger: silentLogger,
        choices: { spotOpenOrders: 'S15', futuresTickers: 'F2', spotTickers: 'trade' },
      });
      let stopRecording!: () => void;
      const recorded = record(data, tape, new Promise<void>((resolve) => (stopRecording = resolve)), {
        header: { symbols: [SYMBOL], venue: url, startMs: clock.now() },
      });
      const daemon = await startDaemon(loaded, barLogger(live), clock, { definitions });
      // Six market minutes.
      await new Promise((resolve) => setTimeout(resolve, 6500));
      await daemon.stop('test over');
      stopRecording();
      await recorded;
      await client.close();

      const records = readReplayFile(tape);
      expect(records.length).toBeGreaterThan(200);
      await runBacktest({ ...loadConfig(cfgFile, env), config: { ...loaded.config, mode: 'backtest' } }, barLogger(replayed), { definitions });

      // The bars the recording holds whole: opened after its first trade, closed a bar's length before its last (the
      // backtest ends with its data: a bar closed by the very last trades may not reach the strategy before it does).
      const firstTs = records[0]!.ts;
      const lastTs = records[records.length - 1]!.ts;
      const whole = (bars: LoggedBar[]) => bars.filter((b) => b.openMs > firstTs && b.closeMs + (b.closeMs - b.openMs) <= lastTs);
      const liveWhole = whole(live);
      expect(liveWhole.length).toBeGreaterThanOrEqual(3);
      const bars = (list: LoggedBar[]) => list.map(({ history: _history, ...bar }) => bar);
      expect(bars(whole(replayed))).toEqual(bars(liveWhole));
      // Live, the history was warmed from the venue's candles (S10): full from the first bar. The backtest starts
      // from its data: one bar, then two...
      expect(live[0]!.history).toBe(5);
      expect(replayed.slice(0, 3).map((b) => b.history)).toEqual([1, 2, 3]);
      for (const b of liveWhole) expect(b.trades).toBeGreaterThan(30);
    } finally {
      await venue.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
