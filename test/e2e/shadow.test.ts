// The live shadow against `sextant sim` replaying a recorded tape (spot trades, no book: what `sextant record` keeps):
// a real daemon trades the simulator over HTTP while its shadow trades the in-process simulator on the data the daemon
// polled. With no latency on either side (the live order path made fast: no arrival spread, a roomy order budget) and
// the same fill model, every live order has its shadow twin with the same fills, read from the control API while it
// runs and from the files written at the stop; with the shadow's latency on, the report names latency first. The
// tape trades every 5 s, so an order's flight (a few ms) spans a trade only when the machine stalls the live daemon:
// those pairs must be put down to latency, and be few. SEXTANT_SHADOW_SECONDS sets how long
// each session trades (60 s; the 10-minute run of the README's figures is 600); SEXTANT_SHADOW_KEEP keeps the reports.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { startDaemon } from '../../src/app/daemon.js';
import { synthesize } from '../../src/app/synth.js';
import { loadConfig } from '../../src/config/load.js';
import { DEFAULT_INSTRUMENTS } from '../../src/exchange/sim/instruments.js';
import type { DivergencePair, DivergenceReport } from '../../src/report/divergence.js';
import { divergenceSchema } from '../../src/ops/api/schemas.js';
import { systemClock } from '../../src/util/clock.js';
import { silentLogger } from '../../src/util/logger.js';
import { runCli, startSimProcess } from '../fixtures/cli.js';
import { opsAuthOf } from '../fixtures/e2e.js';

const SECONDS = Number(process.env.SEXTANT_SHADOW_SECONDS ?? 60);
const DEMO_KEYS = { SEXTANT_API_KEY: 'sextant-demo-key', SEXTANT_API_SECRET: 'sextant-demo-secret', SEXTANT_API_PASSPHRASE: 'sextant-demo-pass' };

/** A tape of BTC spot trades every 5 s from 10 s ago, as a recording holds it (no bid or ask). */
function recordedTape(dir: string): string {
  const out = join(dir, 'tape.jsonl');
  const fromMs = Math.floor(Date.now() / 1000) * 1000 - 10_000;
  synthesize(
    DEFAULT_INSTRUMENTS.filter((s) => s.symbol === 'BTCUSDT_SPBL'),
    { fromMs, toMs: fromMs + (SECONDS + 120) * 1000, intervalMs: 5000, seed: 11, out },
  );
  const [header, ...lines] = readFileSync(out, 'utf8').trim().split('\n');
  const bare = lines.map((line) => {
    const { bid: _bid, ask: _ask, ...trade } = JSON.parse(line) as Record<string, unknown>;
    return JSON.stringify(trade);
  });
  writeFileSync(out, `${[header, ...bare].join('\n')}\n`);
  return out;
}

interface Session {
  live: DivergenceReport;
  written: DivergenceReport;
  page: string;
  unsigned: number;
  /** The session's config, journal, the tape the venue replayed and the market `sextant record` recorded beside it. */
  config: string;
  tape: string;
  journal: string;
  recording: string;
  dir: string;
}

/** The times of a tape's trades. */
function tapeTimes(tape: string): number[] {
  return readFileSync(tape, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => (JSON.parse(line) as { ts: number }).ts);
}

async function session(name: string, shadowLatencyMs: number): Promise<Session> {
  const dir = mkdtempSync(join(tmpdir(), `sextant-shadow-${name}-`));
  const simConfig = join(dir, 'sim.yaml');
  const tape = recordedTape(dir);
  writeFileSync(simConfig, `mode: live\nsim: { replayFile: ${tape}, fills: touch }\nstrategies: []\nlog: { level: info }\n`);
  const sim = await startSimProcess(['-c', simConfig]);
  const config = join(dir, 'live.yaml');
  writeFileSync(
    config,
    [
      'mode: live',
      `exchange: { spotBaseUrl: "${sim.url}", futuresBaseUrl: "${sim.url}", rateLimit: { arrivalSpreadMs: 0, orderRequests: { budget: 100, windowMs: 1000 } } }`,
      `journal: { path: ${join(dir, 'journal.sqlite')} }`,
      'daemon: { http: { host: 127.0.0.1, port: 0 }, polls: { tickersMs: 1000, ordersMs: 1000, balancesMs: 1000, positionsMs: 5000 } }',
      'sim: { fills: touch }',
      `shadow: { enabled: true, latencyMs: ${shadowLatencyMs}, out: ${join(dir, 'shadow')} }`,
      'strategies:',
      '  - id: mm-btc',
      '    name: spot-market-maker',
      '    symbols: [BTCUSDT_SPBL]',
      '    params: { halfSpreadBps: 1, size: "0.002", maxInventory: "1", skewBps: 0, toleranceBps: 1 }',
      'log: { level: warn }',
      '',
    ].join('\n'),
  );
  const recording = join(dir, 'recorded.jsonl');
  const recorder = runCli(['record', '--config', config, '--seconds', String(SECONDS + 5), '--out', recording], { PATH: process.env.PATH });
  const daemon = await startDaemon(loadConfig(config, { ...DEMO_KEYS, PATH: process.env.PATH }), silentLogger, systemClock);
  let stopped = false;
  try {
    await new Promise((r) => setTimeout(r, SECONDS * 1000));
    const auth = opsAuthOf(daemon);
    const live = (await (await fetch(`${daemon.opsUrl}/api/v1/shadow`, { headers: auth })).json()) as DivergenceReport;
    const pageAnswer = await fetch(`${daemon.opsUrl}/api/v1/shadow/page`, { headers: auth });
    expect(pageAnswer.headers.get('content-type')).toMatch(/^text\/html/);
    const page = await pageAnswer.text();
    const unsigned = (await fetch(`${daemon.opsUrl}/api/v1/shadow`)).status;
    stopped = true;
    await daemon.stop('session over');
    const written = JSON.parse(readFileSync(join(dir, 'shadow', 'divergence.json'), 'utf8')) as DivergenceReport;
    // SEXTANT_SHADOW_KEEP: a folder the sessions' reports are copied to (to read the figures of a long run).
    if (process.env.SEXTANT_SHADOW_KEEP) writeFileSync(join(process.env.SEXTANT_SHADOW_KEEP, `${name}.json`), JSON.stringify(written, null, 2));
    expect((await recorder).code).toBe(0);
    return { live, written, page, unsigned, config, tape, journal: join(dir, 'journal.sqlite'), recording, dir };
  } finally {
    if (!stopped) await daemon.stop('session over');
    await sim.stop();
  }
}

describe('the live shadow against sextant sim replaying a recorded tape', () => {
  it(
    'matches every live order one for one with no latency, and names latency when the shadow has some',
    async () => {
      const [same, late] = await Promise.all([session('same', 0), session('late', 10_000)]);

      // Read while it ran, from the control API (the credential needed), and as a page.
      expect(same.unsigned).toBe(401);
      expect(same.live.summary.paired).toBeGreaterThan(0);
      expect(same.page).toContain('Live against the simulator');

      // Written at the stop: every live order has its twin, with the same fills.
      const r = same.written;
      expect(r.live.orders).toBeGreaterThanOrEqual(SECONDS / 10);
      expect(r.live.fills).toBeGreaterThanOrEqual(2);
      // Every pair agrees but where a trade of the tape came between the two sides' requests reaching their venues (a
      // loaded machine stalls the live daemon between its decision and its request, or on the request's way): the
      // report must name latency there, and such pairs stay few. Nothing is on one side only.
      const tradeTimes = tapeTimes(same.tape);
      const spanned = (p: DivergencePair) =>
        p.live.requests.some(([liveSent, liveAnswered], i) => {
          const [simSent, simAnswered] = p.sim.requests[i] ?? [liveSent, liveSent];
          return tradeTimes.some((t) => t >= Math.min(liveSent, simSent) && t <= Math.max(liveAnswered, simAnswered));
        });
      // The last seconds of the span are not judged: the two sides stop at different moments (the live daemon's
      // tracker may not have learnt a fill of its last second when it stops, the shadow's has).
      const settled = (p: DivergencePair) =>
        [...p.live.requests.flat(), ...p.sim.requests.flat(), p.live.firstFillMs ?? 0, p.sim.firstFillMs ?? 0].every((t) => t <= r.window.toMs - 6000);
      const differing = r.pairs.filter((p) => p.cause !== 'none');
      expect(differing.filter((p) => settled(p) && !(p.cause === 'latency' && spanned(p)))).toEqual([]);
      expect(differing.length).toBeLessThanOrEqual(r.live.orders / 4);
      expect([...r.liveOnly, ...r.simOnly]).toEqual([]);
      expect(r.summary).toMatchObject({ paired: r.live.orders, liveOnly: 0, simOnly: 0, matched: r.live.orders - differing.length });
      expect(r.sim).toMatchObject({ orders: r.live.orders, latencyMs: 0, fillModel: 'touch' });
      for (const p of r.pairs.filter((x) => x.cause === 'none')) {
        expect(p.sim.filledSize).toBe(p.live.filledSize);
        expect(p.sim.avgPrice).toBe(p.live.avgPrice);
      }
      if (differing.length === 0) expect(r.summary.simPnl).toBe(r.summary.livePnl);

      // The shadow's orders reach its simulator 5 s after the live ones: the fills part, and latency is named first.
      const causes = late.written.summary.causes;
      expect(causes[0]?.cause).toBe('latency');
      // Beside it only what the end of the span leaves unsettled (the shadow's last requests still on their 5 s way).
      expect(causes.every((c) => c.cause === 'latency' || c.cause === 'unsettled')).toBe(true);
      expect(causes.find((c) => c.cause === 'unsettled')?.orders ?? 0).toBeLessThanOrEqual(2);
      expect(late.written.summary.matched).toBeLessThan(late.written.live.orders);

      // After the fact: the recorded market replayed through the simulator, the journal's orders paired with the replay's.
      const out = join(same.dir, 'replay');
      const replay = await runCli(['backtest', '--config', same.config, '--data', same.recording, '--replay-journal', same.journal, '--out', out], {
        PATH: process.env.PATH,
      });
      expect(replay.stderr).toBe('');
      expect(replay.code).toBe(0);
      expect(replay.stdout).toContain(`divergence report: ${join(out, 'divergence.html')}`);
      const again = divergenceSchema.parse(JSON.parse(readFileSync(join(out, 'divergence.json'), 'utf8')));
      expect(again.live.orders).toBeGreaterThan(0);
      expect(again.summary.paired).toBeGreaterThan(0);
      expect(again.summary.paired + again.summary.liveOnly).toBe(again.live.orders);
      expect(again.summary.paired + again.summary.simOnly).toBe(again.sim.orders);
      expect(readFileSync(join(out, 'divergence.html'), 'utf8')).toContain('Live against the simulator');
    },
    (SECONDS + 90) * 1000,
  );
});
