// `plan`, `api` and `record` go where `run` would (the embedded simulator, never its unused URLs) and say where.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { main } from '../../src/app/cli.js';
import { fetchInstruments } from '../../src/app/instrument-list.js';
import { parseConfig } from '../../src/config/load.js';
import { systemClock } from '../../src/util/clock.js';
import { silentLogger } from '../../src/util/logger.js';
import { FakeVenue } from '../fixtures/fake-venue.js';
import { readReplayFile } from '../../src/data/replay-file.js';

let venue: FakeVenue;
const dir = mkdtempSync(join(tmpdir(), 'sextant-venue-'));
writeFileSync(
  join(dir, 'quiet.mjs'),
  "import { defineStrategy, z } from 'sextant/strategy';\nexport default defineStrategy({ name: 'quiet', params: z.strictObject({}) });\n",
);

beforeAll(async () => {
  venue = await FakeVenue.start();
});
afterAll(async () => venue.close());

function run(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io = { out: (s: string) => void out.push(s), err: (s: string) => void err.push(s) };
  return main(['node', 'sextant', ...args], io).then((code) => ({ code, out, err }));
}

/** A config with the base URLs on the fake venue; `embedded` decides whether they are used at all. */
function config(name: string, embedded: boolean, extra: string[] = []): string {
  const file = join(dir, name);
  writeFileSync(
    file,
    [
      `sim: { embedded: ${embedded}, port: 0 }`,
      `exchange: { spotBaseUrl: "${venue.url}", futuresBaseUrl: "${venue.url}", timeoutMs: 2000, retry: { attempts: 1 } }`,
      `journal: { path: ${JSON.stringify(join(dir, name.replace('.yaml', ''), 'journal.sqlite'))} }`,
      `strategyDirs: [${JSON.stringify(dir)}]`,
      ...extra,
      '',
    ].join('\n'),
  );
  return file;
}

describe('with sim.embedded', () => {
  it('api calls a simulator started for it, says so on stderr, and sends nothing to the configured URLs', async () => {
    const before = venue.requests.length;
    const r = await run(['api', 'S8', '-c', config('api.yaml', true)]);
    expect(r.code).toBe(0);
    expect(r.err).toEqual([
      expect.stringMatching(
        /^sextant api: calling an embedded simulator started for this command at http:\/\/127\.0\.0\.1:\d+ \(sim\.embedded in .*api\.yaml: a fresh market, not a running daemon's; the exchange base URLs are not used\)$/,
      ),
    ]);
    // The simulator's starting balances (the demo keys sign the request).
    expect(JSON.parse(r.out.join('')).find((b: { coinName: string }) => b.coinName === 'USDT')).toMatchObject({ available: '100000' });
    expect(venue.requests.length).toBe(before);
  });

  it("record records the simulator's market, saying where from", async () => {
    const before = venue.requests.length;
    const out = join(dir, 'rec.jsonl');
    const r = await run(['record', '-c', config('rec.yaml', true), '--symbols', 'BTCUSDT_SPBL', '--seconds', '1.5', '--out', out]);
    expect(r.code).toBe(0);
    expect(r.err).toEqual([
      expect.stringMatching(/^sextant record: recording BTCUSDT_SPBL from an embedded simulator started for this command at http:\/\/127\.0\.0\.1:\d+ /),
    ]);
    // The synthetic BTC market starts at 90000: not the fake venue's recorded 83609.7.
    const prices = readReplayFile(out).map((r) => Number(r.price));
    expect(prices.length).toBeGreaterThan(0);
    for (const p of prices) expect(Math.abs(p - 90_000)).toBeLessThan(2_000);
    expect(venue.requests.length).toBe(before);
  });

  it('plan prints the venue it would use and asks nothing of the configured URLs', async () => {
    const before = venue.requests.length;
    const r = await run(['plan', '-c', config('plan.yaml', true, ['strategies:', '  - { id: q, name: quiet, symbols: [BTCUSDT_SPBL, cmt_btcusdt] }'])]);
    expect(r.code).toBe(0);
    expect(r.out.slice(1, 4)).toEqual([
      '  venue    the embedded simulator (sim.embedded): `run` starts it on 127.0.0.1, any free port, seed 42; exchange base URLs are not used',
      '           `api` and `record` start one of their own on a free port (a fresh market: not the one a running daemon trades)',
      "  credentials: not set (the simulator's demo keys)",
    ]);
    // The polls: which tickers read was chosen and why, and what each poll costs per window.
    const polls = r.out.slice(r.out.indexOf('Polls (what the daemon reads on its own, per cycle):') + 1);
    expect(polls[0]).toMatch(
      /^  futures tickers: F12 \(auto: \d+ contract\(s\) × F12 1 < F2 40\); spot tickers: S11 \+ S13 \(bid and ask from the book\); spot open orders: S15$/,
    );
    expect(polls.some((line) => /^  tickersMs +S13 +\d+ request\(s\) per 1000 ms: \d+ IP weight per 10000 ms on spot$/.test(line))).toBe(true);
    expect(venue.requests.length).toBe(before);
  });
});

describe('against the venue', () => {
  it("plan reads the venue's instruments, checks the symbols against them and caches them; --offline uses the cache", async () => {
    const file = config('live.yaml', false, ['strategies:', '  - { id: burst, name: quiet, symbols: [BTCUSDT_SPBL, ETHUSDT_SPBL] }']);
    const cache = join(dir, 'live', 'journal.sqlite.instruments.json');
    const r = await run(['plan', '-c', file]);
    expect(r.code).toBe(1);
    expect(r.err).toEqual([
      `${file}:6:55: strategies[0].symbols[1]: unknown symbol "ETHUSDT_SPBL": not among the venue's instruments (${venue.url} ${venue.url}), read just now`,
      `1 error in ${file}`,
    ]);
    expect(venue.calls('S7')).toHaveLength(1);
    expect(venue.calls('F1')).toHaveLength(1);
    expect(JSON.parse(readFileSync(cache, 'utf8'))).toMatchObject({
      venue: `${venue.url} ${venue.url}`,
      symbols: { spot: ['BTCUSDT_SPBL'], futures: ['cmt_btcusdt'] },
    });

    const offline = await run(['plan', '--offline', '-c', file]);
    expect(
      offline.err[0]!.startsWith(
        `${file}:6:55: strategies[0].symbols[1]: unknown symbol "ETHUSDT_SPBL": not among the venue's instruments as cached in ${cache} at `,
      ),
    ).toBe(true);
    expect(offline.err[0]).toMatch(/ at \d{4}-\d\d-\d\dT[\d:.]+Z \(`sextant plan` refreshes it\)$/);
    expect(venue.calls('S7')).toHaveLength(1);
    // `config check` never asks the venue: the cache.
    const check = await run(['config', 'check', file]);
    expect(check.err[0]).toBe(offline.err[0]);
  });

  it('record polls each symbol on the surface the venue lists it on, and refuses a symbol it does not list', async () => {
    const file = config('rec-venue.yaml', false);
    const out = join(dir, 'rec-venue.jsonl');
    const refused = await run(['record', '-c', file, '--symbols', 'BTCUSDT_SPBL,ETHUSDT_SPBL', '--seconds', '1', '--out', out]);
    expect(refused).toEqual({ code: 1, out: [], err: [`sextant record: unknown symbol "ETHUSDT_SPBL": not among the instruments of ${venue.url}`] });
    expect(existsSync(out)).toBe(false);
    const [spotTrades, futuresTickers] = [venue.calls('S9').length, venue.calls('F12').length];
    const ok = await run(['record', '-c', file, '--symbols', 'cmt_btcusdt', '--seconds', '1.5', '--out', out]);
    expect({ code: ok.code, err: ok.err }).toEqual({ code: 0, err: [`sextant record: recording cmt_btcusdt from ${venue.url}`] });
    // A futures contract (F1 lists it): its ticker is polled (one contract: F12, cheaper than every contract's F2),
    // never the spot trade tape.
    expect(venue.calls('F12').length).toBeGreaterThan(futuresTickers);
    expect(venue.calls('F2')).toHaveLength(0);
    expect(venue.calls('S9').length).toBe(spotTrades);
  });

  it('plan prints the base URLs it would trade', async () => {
    const r = await run(['plan', '-c', config('ok.yaml', false)]);
    expect(r.code).toBe(0);
    expect(r.out.slice(1, 4)).toEqual(['  venue    the exchange at the base URLs:', `  spot     ${venue.url}`, `  futures  ${venue.url}`]);
  });

  it('a venue that cannot be read: the cached list, with the reason said; none cached: said plainly', async () => {
    const file = config('gone.yaml', false);
    const loaded = parseConfig(readFileSync(file, 'utf8'), file, {});
    const fresh = await fetchInstruments(loaded, silentLogger, systemClock);
    expect(fresh.symbols && [...fresh.symbols]).toEqual(['BTCUSDT_SPBL', 'cmt_btcusdt']);
    venue.script('S7', { status: 503, body: 'down' });
    const fallback = await fetchInstruments(loaded, silentLogger, systemClock);
    expect(fallback.symbols && [...fallback.symbols]).toEqual(['BTCUSDT_SPBL', 'cmt_btcusdt']);
    expect(fallback.symbols && fallback.note).toMatch(/^the venue's instruments could not be read \(.*\); cached at \d{4}-/);

    const bare = parseConfig(readFileSync(file, 'utf8').replace('gone/journal.sqlite', 'never/journal.sqlite'), file, {});
    venue.script('S7', { status: 503, body: 'down' });
    const none = await fetchInstruments(bare, silentLogger, systemClock);
    expect(none.symbols).toBeUndefined();
    expect(!none.symbols && none.why).toMatch(
      /^the venue's instruments could not be read \(.*\), and no instrument list of .* is available \(none cached at .*never\/journal\.sqlite\.instruments\.json; .*\): symbols were not checked$/,
    );
    expect(existsSync(join(dir, 'never'))).toBe(false);
  });
});
