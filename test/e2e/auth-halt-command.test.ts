// The authentication halt cleared by an operator's command, on a daemon running in process against its embedded
// simulator over HTTP: the venue refuses the keys (40018, as when the key's IP whitelist changes) until signed
// requests stop and trading is fenced. The command without the token (or from a foreign page) is refused and changes
// nothing; with it, while the venue still refuses the keys, the signed read fails, the fence stays and the halt trips
// again after N more refusals; once the venue takes the keys, the command (through the API, then the command line)
// clears it and trading resumes. Each command is journaled with who gave it and how it ended.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { parseDocument } from 'yaml';
import { main } from '../../src/app/cli.js';
import { startDaemon, type Daemon } from '../../src/app/daemon.js';
import { parseConfig } from '../../src/config/load.js';
import type { SimStats } from '../../src/exchange/sim/server.js';
import type { ControlEvent, ControlStatus } from '../../src/ops/control.js';
import { systemClock } from '../../src/util/clock.js';
import { createLogger } from '../../src/util/logger.js';
import { DEFAULT_STRATEGIES, waitFor } from '../fixtures/e2e.js';

const dir = mkdtempSync(join(tmpdir(), 'sextant-auth-halt-'));
const KEYS = { SEXTANT_API_KEY: 'CANARYKEYauthh4lt', SEXTANT_API_SECRET: 'CANARYSECRETauthh4lt', SEXTANT_API_PASSPHRASE: 'CANARYPASSauthh4lt' };
const TOKEN_ENV = 'SEXTANT_AUTH_HALT_TEST_TOKEN';
const TOKEN = 'CANARYTOKENauthh4ltx';
const HALTED = /^authentication halted: signed requests stopped after 3 authentication errors in a row \(last: \w+ code 40018: Invalid IP request\)/;

const cfgFile = join(dir, 'auth-halt.yaml');
const doc = parseDocument(readFileSync('config/default.yaml', 'utf8'));
doc.setIn(['journal', 'path'], join(dir, 'journal.sqlite'));
doc.setIn(['daemon', 'http', 'port'], 0);
doc.setIn(['daemon', 'http', 'tokenEnv'], TOKEN_ENV);
doc.setIn(['daemon', 'polls'], { tickersMs: 200, ordersMs: 300, balancesMs: 300, positionsMs: 300, ledgerMs: 60_000 });
doc.setIn(['daemon', 'reconcileCron'], '* * * * * *');
for (const surface of ['spot', 'futures']) {
  for (const pool of ['ip', 'uid']) doc.setIn(['exchange', 'rateLimit', surface, pool, 'budget'], 20_000);
  doc.setIn(['sim', 'budget', surface], { ip: 20_000, uid: 20_000 });
}
doc.setIn(['sim', 'tickIntervalMs'], 50);

let daemon: Daemon;
let base: string;
let logText = '';

beforeAll(async () => {
  process.env[TOKEN_ENV] = TOKEN;
  const logger = createLogger({ level: 'info', destination: { write: (s: string) => void (logText += s) } });
  daemon = await startDaemon(parseConfig(doc.toString(), cfgFile, KEYS), logger, systemClock, { definitions: DEFAULT_STRATEGIES });
  base = daemon.opsUrl;
}, 30_000);

afterAll(async () => {
  await daemon?.stop('test over');
  delete process.env[TOKEN_ENV];
});

async function api<T = unknown>(
  method: 'GET' | 'POST',
  path: string,
  opts: { body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: T }> {
  const res = await fetch(`${base}/api/v1${path}`, {
    method,
    headers: { ...(opts.body !== undefined ? { 'content-type': 'application/json' } : {}), ...(opts.headers ?? { authorization: `Bearer ${TOKEN}` }) },
    ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as T };
}

const fenced = async () => (await api<ControlStatus>('GET', '/status')).body.fenced;
const ready = async () => ((await fetch(`${base}/ready`)).status === 200 ? true : undefined);

/** The simulator refuses every signed request with 40018 (on), or takes the keys again (off). */
async function refuseKeys(on: boolean): Promise<void> {
  const res = await fetch(`${daemon.simUrl!}/sim/faults`, { method: 'POST', body: JSON.stringify({ refuseKeys: on }) });
  expect(res.status).toBe(200);
}

async function authFailures(): Promise<number> {
  return ((await (await fetch(`${daemon.simUrl!}/sim/stats`)).json()) as SimStats).authFailures;
}

/** Refuses the keys until the halt fences trading; resolves once no refused request has been added for a while. */
async function haltByVenue(): Promise<number> {
  await refuseKeys(true);
  await waitFor('the authentication halt', async () => (HALTED.test((await fenced()) ?? '') ? true : undefined), 15_000);
  const stopped = await authFailures();
  await new Promise((r) => setTimeout(r, 1200));
  expect(await authFailures()).toBe(stopped);
  return stopped;
}

async function cli(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(['node', 'sextant', ...args], { out: (s) => void out.push(s), err: (s) => void err.push(s) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** An order accepted by the venue after `sinceMs`: trading goes on. */
async function acceptedSince(sinceMs: number): Promise<true | undefined> {
  const events = (await api<ControlEvent[]>('GET', '/events?limit=500')).body;
  return events.some((e) => e.kind === 'order' && e.data.type === 'accepted' && e.atMs > sinceMs) ? true : undefined;
}

describe('clearing the authentication halt by command', () => {
  it('refused without the token; fails and keeps the fence while the venue refuses the keys; clears it through the API and the command line once it takes them', async () => {
    await waitFor('ready', ready, 20_000);
    const stopped = await haltByVenue();
    expect(logText).toContain('trading halted: the venue refused our keys (once they are fixed: sextant clear-auth-halt)');
    expect(await fenced()).toMatch(/then run `sextant clear-auth-halt`$/);

    // No token, a wrong one, a foreign page: refused before the command, nothing sent to the venue.
    expect((await api('POST', '/trading/clear-auth-halt', { body: {}, headers: {} })).status).toBe(401);
    const foreign = { authorization: `Bearer ${TOKEN}`, origin: 'http://attacker.example' };
    expect((await api('POST', '/trading/clear-auth-halt', { body: {}, headers: foreign })).status).toBe(403);
    const wrong = await cli('clear-auth-halt', '--url', base, '--token', 'not-the-token');
    expect(wrong.code).toBe(1);
    expect(wrong.err).toMatch(/HTTP 401/);
    expect(await fenced()).toMatch(HALTED);
    expect(await authFailures()).toBe(stopped);

    // The venue still refuses the keys: the signed read fails, the fence stays; the halt trips again after 3 more.
    const failed = await api<{ error: string }>('POST', '/trading/clear-auth-halt', { body: { reason: 'key rotated' } });
    expect(failed.status).toBe(409);
    expect(failed.body.error).toMatch(
      /^authentication halt cleared, but the signed read failed: trading stays fenced \((no signed request has succeeded yet: Invalid IP request|authentication halted: .*)\)$/,
    );
    expect(await fenced()).not.toBeNull();
    await waitFor('the halt again', async () => (HALTED.test((await fenced()) ?? '') ? true : undefined), 15_000);
    await new Promise((r) => setTimeout(r, 1200));
    expect(await authFailures()).toBe(stopped + 3);

    // The venue takes the keys again: the API's command clears the halt and trading resumes.
    await refuseKeys(false);
    const viaApi = Date.now();
    const cleared = await api<{ ok: boolean; detail: string }>('POST', '/trading/clear-auth-halt', { body: { reason: 'IP whitelist fixed' } });
    expect(cleared).toMatchObject({ status: 200, body: { ok: true } });
    expect(cleared.body.detail).toMatch(/^authentication halt cleared; the keys work: /);
    await waitFor('ready after the API command', ready, 15_000);
    expect(await fenced()).toBeNull();
    await waitFor('an order accepted after the API command', () => acceptedSince(viaApi), 15_000);

    // Again, cleared through the command line.
    await haltByVenue();
    await refuseKeys(false);
    const viaCli = Date.now();
    const run = await cli('clear-auth-halt', '--url', base, '--token', TOKEN, '--reason', 'permissions restored');
    expect(run).toMatchObject({ code: 0, err: '' });
    expect(run.out).toMatch(/^authentication halt cleared; the keys work: /);
    await waitFor('ready after the command line', ready, 15_000);
    await waitFor('an order accepted after the command line', () => acceptedSince(viaCli), 15_000);

    // Journaled: who, why and how each ended (the refused requests never reached the command).
    const commands = (await api<ControlEvent[]>('GET', '/events?limit=500')).body.filter((e) => e.kind === 'command' && e.data.command === 'clear-auth-halt');
    expect(commands.map((e) => [e.data.via, e.data.reason, e.data.ok])).toEqual([
      ['api', 'key rotated', false],
      ['api', 'IP whitelist fixed', true],
      ['cli', 'permissions restored', true],
    ]);
    expect(logText).toContain('authentication halt cleared by an operator: the keys are probed before trading resumes');
    for (const secret of [...Object.values(KEYS), TOKEN]) expect(logText).not.toContain(secret);
  }, 120_000);
});
