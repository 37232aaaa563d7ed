// `sextant journal rebind` in process, against the simulator over HTTP: keys rotated on the same account (the
// simulator takes both keys for one account) find the journal's orders and rebind it, after which the daemon's open
// takes the journal with the new keys; keys that find none of them, or find them under other client ids, another
// venue, and keys the venue refuses are turned away with the journal left as it was.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { main } from '../../../src/app/cli.js';
import { openJournal, venueOf } from '../../../src/app/kernel-stores.js';
import { parseConfig } from '../../../src/config/load.js';
import { accountDigest } from '../../../src/domain/credentials.js';
import { Decimal } from '../../../src/domain/decimal.js';
import type { LiveClient } from '../../../src/exchange/live/live-client.js';
import { DEFAULT_INSTRUMENTS } from '../../../src/exchange/sim/instruments.js';
import { SyntheticMarket } from '../../../src/exchange/sim/market.js';
import { SimServer } from '../../../src/exchange/sim/server.js';
import { JournalVenueError, type JournalOrder } from '../../../src/journal/journal.js';
import { SqliteJournal } from '../../../src/journal/sqlite-journal.js';
import { systemClock } from '../../../src/util/clock.js';
import { silentLogger } from '../../../src/util/logger.js';
import { journalRow } from '../../fixtures/journal-row.js';
import { clientFor, GENEROUS_LIMITS } from '../../fixtures/live-client.js';

const OLD = { apiKey: 'rotated-away-key-0001', apiSecret: 'old-secret-0001', passphrase: 'old-pass-0001' };
const NEW = { apiKey: 'rotated-in-key-0002', apiSecret: 'new-secret-0002', passphrase: 'new-pass-0002' };
const dir = mkdtempSync(join(tmpdir(), 'sextant-rebind-'));

let server: SimServer;
let url: string;
let oldClient: LiveClient;
/** Orders placed at the simulator with the old keys: resting, as the journal has them. */
let placed: JournalOrder[];

beforeAll(async () => {
  const market = new SyntheticMarket(DEFAULT_INSTRUMENTS, { seed: 3, startMs: systemClock.now(), tickIntervalMs: 1000 });
  server = new SimServer({
    market,
    accounts: { spot: { USDT: '1000000', BTC: '10' }, futuresCollateral: '1000000', leverage: 20 },
    credentials: OLD,
    moreCredentials: [NEW],
    budget: { spot: { ip: 1e9, uid: 1e9 }, futures: { ip: 1e9, uid: 1e9 }, windowMs: 10_000, orderRequestsPerSecond: 1e9 },
    clock: systemClock,
    logger: silentLogger,
  });
  url = await server.listen(0, '127.0.0.1');
  oldClient = clientFor({ url, opts: OLD } as never, { rateLimit: GENEROUS_LIMITS, retry: { attempts: 1, baseDelayMs: 1, maxDelayMs: 1 } });
  const half = (symbol: string) => server.engine.ticker(symbol)!.last!.mul(Decimal.from('0.97')).roundToStep(Decimal.from('0.1'), 'down');
  const spot = await oldClient.placeOrders('spot', 'BTCUSDT_SPBL', [
    { clientOid: 'sx_mm_1', side: 'buy', kind: 'limit', timeInForce: 'gtc', price: half('BTCUSDT_SPBL'), size: Decimal.from('0.01') },
  ]);
  const futures = await oldClient.placeOrders('futures', 'cmt_btcusdt', [
    { clientOid: 'sx_grid_1', side: 'buy', kind: 'limit', timeInForce: 'gtc', price: half('cmt_btcusdt'), size: Decimal.from('0.01'), positionSide: 'long' },
  ]);
  const ids = [...spot, ...futures].map((r) => (r.outcome === 'accepted' ? r.orderId : `not placed: ${r.outcome}`));
  expect([...spot, ...futures].map((r) => (r.outcome === 'accepted' ? 'ok' : `${r.outcome}: ${r.error.message}`))).toEqual(['ok', 'ok']);
  placed = [
    journalRow('sx_mm_1', { orderId: ids[0]!, state: 'open', createdAtMs: 10 }),
    journalRow('sx_grid_1', { surface: 'futures', symbol: 'cmt_btcusdt', positionSide: 'long', orderId: ids[1]!, state: 'open', createdAtMs: 20 }),
  ];
});

afterAll(async () => {
  await oldClient.close();
  await server.close();
});

const envOf = (c: typeof OLD) => ({ SEXTANT_API_KEY: c.apiKey, SEXTANT_API_SECRET: c.apiSecret, SEXTANT_API_PASSPHRASE: c.passphrase });

let n = 0;
/** A config trading the simulator (or `venue`) with its journal in a folder of its own; the journal, bound to the old keys, holds `rows`. */
function setUp(rows: JournalOrder[], venue = url): { file: string; path: string } {
  const name = `case-${++n}`;
  const path = join(dir, name, 'journal.sqlite');
  const file = join(dir, `${name}.yaml`);
  writeFileSync(
    file,
    `exchange: { spotBaseUrl: "${venue}", futuresBaseUrl: "${venue}", timeoutMs: 2000, retry: { attempts: 1 } }\njournal: { path: ${JSON.stringify(path)} }\n`,
  );
  const old = loadedWith(file, OLD);
  const journal = openJournal(old, venueOf(old));
  journal.insertOrders(rows);
  journal.close();
  return { file, path };
}

function loadedWith(file: string, keys: typeof OLD) {
  return parseConfig(readConfig(file), file, envOf(keys));
}

const readConfig = (file: string) => readFileSync(file, 'utf8');

/** The command line in this process, with `keys` in the environment. */
async function rebind(file: string, keys: typeof OLD, extra: string[] = []) {
  const saved = { ...process.env };
  Object.assign(process.env, envOf(keys));
  const out: string[] = [];
  const err: string[] = [];
  try {
    const code = await main(['node', 'sextant', 'journal', 'rebind', '-c', file, ...extra], { out: (t) => void out.push(t), err: (t) => void err.push(t) });
    const all = [...out, ...err].join('\n');
    for (const secret of [OLD, NEW].flatMap((c) => [c.apiKey, c.apiSecret, c.passphrase])) expect(all).not.toContain(secret);
    return { code, out, err };
  } finally {
    for (const k of Object.keys(envOf(keys))) if (saved[k] === undefined) delete process.env[k];
    Object.assign(process.env, saved);
  }
}

const oldAccount = `key sha256:${accountDigest(OLD.apiKey)}`;
const newAccount = `key sha256:${accountDigest(NEW.apiKey)}`;

function bindingOf(path: string) {
  const j = new SqliteJournal(path, { clientOidPrefix: 'sx' });
  try {
    return { binding: j.venueBinding(), commands: j.commands() };
  } finally {
    j.close();
  }
}

describe('sextant journal rebind', () => {
  it("keys rotated on the same account: their lookups find the journal's orders, the journal is rebound, and the daemon's open takes it with them", async () => {
    const { file, path } = setUp(placed);
    // Before: the journal of the old keys is refused with the new ones.
    expect(() => openJournal(loadedWith(file, NEW), venueOf(loadedWith(file, NEW)))).toThrow(JournalVenueError);
    expect(() => openJournal(loadedWith(file, NEW), venueOf(loadedWith(file, NEW)))).toThrow(
      /API key was rotated on the same account, `sextant journal rebind`/,
    );
    const r = await rebind(file, NEW, ['--reason', 'keys rotated']);
    expect(r).toEqual({
      code: 0,
      out: [`journal ${path} rebound from account ${oldAccount} to ${newAccount}: 2 of 2 orders found with the new keys (sx_grid_1, sx_mm_1)`],
      err: [],
    });
    const after = bindingOf(path);
    expect(after.binding).toEqual({ venue: `${url} ${url}`, account: newAccount });
    expect(after.commands).toEqual([
      expect.objectContaining({
        via: 'cli',
        command: 'journal rebind',
        reason: 'keys rotated',
        args: JSON.stringify({ venue: `${url} ${url}`, from: oldAccount, to: newAccount, found: ['sx_grid_1', 'sx_mm_1'] }),
        outcome: expect.objectContaining({ ok: true }),
      }),
    ]);
    const withNew = loadedWith(file, NEW);
    const journal = openJournal(withNew, venueOf(withNew));
    expect(
      journal
        .activeOrders()
        .map((o) => o.clientOid)
        .sort(),
    ).toEqual(['sx_grid_1', 'sx_mm_1']);
    journal.close();
    // The old keys are now the other account's: refused.
    expect(() => openJournal(loadedWith(file, OLD), venueOf(loadedWith(file, OLD)))).toThrow(JournalVenueError);
    // Again with the same keys: nothing to do.
    expect(await rebind(file, NEW)).toEqual({ code: 0, out: [`journal ${path} is bound to the configured keys already (account ${newAccount})`], err: [] });
  }, 30_000);

  it("keys that find none of the journal's orders (another account's) are refused, the journal left bound as it was", async () => {
    const { file, path } = setUp([journalRow('sx_mm_7', { orderId: '918273645', state: 'filled', createdAtMs: 5 })]);
    const r = await rebind(file, NEW);
    expect(r.code).toBe(1);
    expect(r.err).toEqual([
      `refused: none of the 1 orders of journal ${path} looked up is found with the new keys (sx_mm_7 (order 918273645)): the keys reach another account (or the orders are older than the venue keeps); the journal stays bound to account ${oldAccount}`,
    ]);
    expect(bindingOf(path)).toEqual({ binding: { venue: `${url} ${url}`, account: oldAccount }, commands: [] });
  }, 30_000);

  it('an order the venue shows under another client id is a contradiction: refused', async () => {
    const { file, path } = setUp([{ ...placed[0]!, clientOid: 'sx_other_1' }]);
    const r = await rebind(file, NEW);
    expect(r.code).toBe(1);
    expect(r.err[0]).toBe(
      `refused: order ${placed[0]!.orderId} (BTCUSDT_SPBL) is sx_mm_1 at the venue with the new keys, but sx_other_1 in journal ${path}: the keys reach another account, or the journal belongs to another; the journal stays bound to account ${oldAccount}`,
    );
    expect(bindingOf(path).binding!.account).toBe(oldAccount);
  }, 30_000);

  it('a journal without an order the venue gave an id to, one of another venue, and keys the venue refuses: refused', async () => {
    const empty = setUp([journalRow('sx_mm_9', { state: 'rejected' })]);
    expect((await rebind(empty.file, NEW)).err).toEqual([
      `refused: journal ${empty.path} holds no order the venue gave an id to: nothing to check the new keys against, and the journal stays bound to account ${oldAccount}; for these keys use another journal.path (or move the file away)`,
    ]);
    // Bound at another address of the venue: the config now names the simulator.
    const other = setUp(placed, 'http://127.0.0.1:9');
    writeFileSync(other.file, readConfig(other.file).replaceAll('http://127.0.0.1:9', url));
    expect((await rebind(other.file, NEW)).err).toEqual([
      `refused: journal ${other.path} belongs to venue http://127.0.0.1:9 http://127.0.0.1:9, not to ${url} ${url}: a rebind moves a journal to new keys of the same venue account, never to another venue`,
    ]);
    const wrong = setUp(placed);
    const r = await rebind(wrong.file, { ...NEW, apiSecret: 'not-the-secret' });
    expect(r.code).toBe(1);
    expect(r.err[0]).toMatch(/^the new keys could not be checked at the venue, nothing changed: /);
    for (const p of [empty.path, other.path, wrong.path]) expect(bindingOf(p).binding!.account).toBe(oldAccount);
  }, 30_000);
});
