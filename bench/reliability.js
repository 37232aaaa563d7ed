// Reliability runs of the daemon (`sextant run`, the shipped strategies of config/default.yaml) against
// `sextant sim` over HTTP, each a separate process as in production:
//   lag       the venue hides new orders from every read for 30 s, for 60 s (R10)
//   restarts  three restarts (SIGTERM, SIGKILL, SIGTERM), then the venue replaced by a fresh one (R11)
//   soak      N minutes (default 60) at the fastest polls the plan allows (R12)
//   rate      N minutes (default 60) of config/default.yaml as shipped: the most orders sent in any minute, which
//             the order-rate breaker's default must clear with headroom
// After each, an audit compares the venue with the journal: untracked orders (resting at the venue, not held as
// resting by the journal), resting orders per strategy against what the strategies want, the futures position
// against the grid's design, and the journal's rows by state. One JSON line per figure.
// Run: npm run reliability -- lag | restarts | soak [--minutes N]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from '../dist/journal/sqlite-driver.js';
import { parseDocument } from 'yaml';
import { SIM_DEMO_CREDENTIALS } from '../dist/app/kernel.js';

const args = process.argv.slice(2);
const scenario = args.find((a) => !a.startsWith('--')) ?? 'lag';
const minutesAt = args.indexOf('--minutes');
const MINUTES = minutesAt >= 0 ? Number(args[minutesAt + 1]) : 60;
const dir = mkdtempSync(join(tmpdir(), 'sextant-reliability-'));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const emit = (name, value, unit, note = '') => console.log(JSON.stringify({ scenario, name, value, unit, note }));
const ENV = {
  PATH: process.env.PATH,
  SEXTANT_API_KEY: SIM_DEMO_CREDENTIALS.apiKey,
  SEXTANT_API_SECRET: SIM_DEMO_CREDENTIALS.apiSecret,
  SEXTANT_API_PASSPHRASE: SIM_DEMO_CREDENTIALS.passphrase,
};
// What the shipped strategies want resting at most: the market maker a bid and an ask; the grid its levels, a
// take-profit and a stop-loss trigger. The grid's position is at most levels × size.
const WANT = { 'mm-btc': 2, 'grid-eth': 4 + 1 + 1 };
const GRID_MAX_POSITION = 4 * 0.05;

/** Starts a child process and resolves once a JSON log line passes `ready`. */
function child(argv, ready, name) {
  const p = spawn(process.execPath, ['bin/sextant.js', ...argv], { env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines = [];
  let rest = '';
  const onData = (d) => {
    rest += String(d);
    const parts = rest.split('\n');
    rest = parts.pop();
    for (const l of parts) {
      try {
        lines.push(JSON.parse(l));
      } catch {
        lines.push({ msg: l });
      }
    }
  };
  p.stdout.on('data', onData);
  p.stderr.on('data', onData);
  const exited = new Promise((resolve) => p.on('close', (code) => resolve(code)));
  const started = (async () => {
    for (let i = 0; i < 600; i++) {
      const hit = lines.find(ready);
      if (hit) return hit;
      if (p.exitCode !== null)
        throw new Error(
          `${name} exited (${p.exitCode}): ${lines
            .slice(-5)
            .map((l) => l.msg)
            .join(' | ')}`,
        );
      await sleep(100);
    }
    throw new Error(`${name} did not start`);
  })();
  return { p, lines, exited, started };
}

async function startSim(port) {
  const cfg = join(dir, 'sim.yaml');
  writeFileSync(cfg, 'sim:\n  seed: 42\n  tickIntervalMs: 250\n');
  const sim = child(['sim', '--port', String(port), '--config', cfg], (l) => l.msg === 'simulated exchange listening', 'sextant sim');
  const line = await sim.started;
  return { ...sim, url: line.url };
}

function daemonConfig(simUrl, journalPath, polls) {
  const doc = parseDocument(readFileSync('config/default.yaml', 'utf8'));
  doc.setIn(['sim', 'embedded'], false);
  doc.setIn(['exchange', 'spotBaseUrl'], simUrl);
  doc.setIn(['exchange', 'futuresBaseUrl'], simUrl);
  doc.setIn(['journal', 'path'], journalPath);
  doc.setIn(['daemon', 'http', 'port'], 0);
  if (polls) doc.setIn(['daemon', 'polls'], polls);
  const file = join(dir, `daemon-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, doc.toString());
  return file;
}

async function startDaemon(cfg) {
  const t0 = Date.now();
  const d = child(['run', '--config', cfg], (l) => l.msg === 'daemon running', 'sextant run');
  const line = await d.started;
  const ops = line.opsUrl;
  let readyMs = null;
  for (let i = 0; i < 600 && readyMs === null; i++) {
    const r = await fetch(`${ops}/ready`).catch(() => undefined);
    if (r?.status === 200) readyMs = Date.now() - t0;
    else await sleep(100);
  }
  return { ...d, ops, readyMs };
}

async function stop(proc, signal) {
  proc.p.kill(signal);
  return proc.exited;
}

/** The venue as it truly is (the simulator's /sim/state, whatever read lag is imposed) against the journal. */
async function audit(simUrl, journalPath) {
  const venue = await (await fetch(`${simUrl}/sim/state`)).json();
  const resting = venue.openOrders.filter((o) => o.symbol === 'BTCUSDT_SPBL' || o.symbol === 'cmt_ethusdt');
  const position = venue.positions.filter((p) => p.symbol === 'cmt_ethusdt' && p.side === 'long').reduce((a, p) => a + Number(p.size), 0);
  const db = new Database(journalPath, { readonly: true, fileMustExist: true });
  const rows = db.prepare('SELECT client_oid, strategy_id, state FROM orders').all();
  db.close();
  const byOid = new Map(rows.map((r) => [r.client_oid, r]));
  const RESTING = new Set(['sending', 'open', 'untriggered', 'unknown', 'canceling']);
  const untracked = resting.filter((o) => !RESTING.has(byOid.get(o.clientOid)?.state));
  const perStrategy = {};
  for (const o of resting) {
    const s = byOid.get(o.clientOid)?.strategy_id ?? 'foreign';
    perStrategy[s] = (perStrategy[s] ?? 0) + 1;
  }
  const states = {};
  for (const r of rows) states[r.state] = (states[r.state] ?? 0) + 1;
  const overWanted = Object.entries(perStrategy)
    .filter(([s, n]) => n > (WANT[s] ?? 0))
    .map(([s, n]) => `${s}: ${n}`);
  return { venueResting: resting.length, untracked: untracked.length, perStrategy, overWanted, position, states };
}

/** What the daemon counted: execution events and denials by kind. */
async function counted(ops) {
  const text = await (await fetch(`${ops}/metrics`)).text();
  const pick = (re) => Object.fromEntries([...text.matchAll(re)].map((m) => [m[1], Number(m[2])]));
  return { events: pick(/sextant_execution_events_total\{type="([^"]+)"\} (\d+)/g), denials: pick(/sextant_risk_denials_total\{reason="([^"]+)"\} (\d+)/g) };
}

function report(a, label) {
  emit(`${label}_untracked_orders`, a.untracked, 'orders', 'resting at the venue, not held as resting by the journal');
  emit(`${label}_resting_over_wanted`, a.overWanted.length, 'strategies', JSON.stringify({ resting: a.perStrategy, want: WANT }));
  emit(`${label}_grid_position`, a.position, 'ETH', `design at most ${GRID_MAX_POSITION}`);
  emit(`${label}_journal_states`, a.states.lost ?? 0, 'lost rows', JSON.stringify(a.states));
}

async function lag() {
  const sim = await startSim(0);
  const journal = join(dir, 'lag.sqlite');
  const daemon = await startDaemon(daemonConfig(sim.url, journal));
  emit('ready_after_start', daemon.readyMs, 'ms');
  await sleep(10_000);
  await fetch(`${sim.url}/sim/faults`, { method: 'POST', body: JSON.stringify({ visibilityLagMs: 30_000 }) });
  for (let k = 0; k < 6; k++) {
    await sleep(10_000);
    report(await audit(sim.url, journal), `during_lag_${(k + 1) * 10}s`);
  }
  await fetch(`${sim.url}/sim/faults`, { method: 'POST', body: JSON.stringify({ visibilityLagMs: 0 }) });
  await sleep(15_000);
  report(await audit(sim.url, journal), 'after_lag');
  emit('execution', 0, '', JSON.stringify(await counted(daemon.ops)));
  emit('daemon_exit', await stop(daemon, 'SIGTERM'), 'code');
  await stop(sim, 'SIGTERM');
}

async function restarts() {
  const sim = await startSim(0);
  const port = Number(new URL(sim.url).port);
  const journal = join(dir, 'restarts.sqlite');
  const cfg = daemonConfig(sim.url, journal);
  let k = 0;
  for (const signal of ['SIGTERM', 'SIGKILL', 'SIGTERM']) {
    const daemon = await startDaemon(cfg);
    emit(`ready_after_start_${++k}`, daemon.readyMs, 'ms');
    await sleep(15_000);
    report(await audit(sim.url, journal), `run_${k}`);
    emit(`exit_on_${signal}_${k}`, await stop(daemon, signal), 'code');
  }
  // A fresh venue on the same address: it knows none of the journal's orders, and numbers its own from 1.
  await stop(sim, 'SIGTERM');
  const fresh = await startSim(port);
  const daemon = await startDaemon(cfg);
  emit('ready_after_fresh_venue', daemon.readyMs, 'ms', 'trading resumes after the startup reconciliation');
  await sleep(20_000);
  report(await audit(fresh.url, journal), 'fresh_venue');
  emit('execution', 0, '', JSON.stringify(await counted(daemon.ops)));
  emit('daemon_exit', await stop(daemon, 'SIGTERM'), 'code');
  await stop(fresh, 'SIGTERM');
}

async function soak() {
  const sim = await startSim(0);
  const journal = join(dir, 'soak.sqlite');
  // The fastest polls `config check` accepts for the shipped strategies (daemon.pollShare of the budget): the
  // 40-weight F2 tickers poll binds at 1 s; any poll faster than these is refused.
  const daemon = await startDaemon(daemonConfig(sim.url, journal, { tickersMs: 1000, ordersMs: 1000, balancesMs: 3000, positionsMs: 2000 }));
  emit('ready_after_start', daemon.readyMs, 'ms');
  let worst = { untracked: 0, over: 0 };
  for (let m = 1; m <= MINUTES; m++) {
    await sleep(60_000);
    const a = await audit(sim.url, journal);
    worst = { untracked: Math.max(worst.untracked, a.untracked), over: Math.max(worst.over, a.overWanted.length) };
    if (m === MINUTES || m % 10 === 0) report(a, `minute_${m}`);
  }
  emit('worst_untracked_orders', worst.untracked, 'orders', `sampled every minute for ${MINUTES} min`);
  emit('worst_resting_over_wanted', worst.over, 'strategies');
  const metrics = await (await fetch(`${daemon.ops}/metrics`)).text();
  emit('execution', 0, '', JSON.stringify(await counted(daemon.ops)));
  emit('answers_429', Number(/sextant_exchange_429_total (\d+)/.exec(metrics)?.[1] ?? 0), 'answers');
  emit('daemon_exit', await stop(daemon, 'SIGTERM'), 'code');
  await stop(sim, 'SIGTERM');
}

async function rate() {
  const journal = join(dir, 'rate.sqlite');
  const doc = parseDocument(readFileSync('config/default.yaml', 'utf8'));
  doc.setIn(['journal', 'path'], journal);
  doc.setIn(['daemon', 'http', 'port'], 0);
  const cfg = join(dir, 'rate.yaml');
  writeFileSync(cfg, doc.toString());
  const daemon = await startDaemon(cfg);
  await sleep(MINUTES * 60_000);
  const c = await counted(daemon.ops);
  emit('daemon_exit', await stop(daemon, 'SIGTERM'), 'code');
  const db = new Database(journal, { readonly: true });
  // Orders that reached the venue: every row the executor sent (not the ones still being written).
  const times = db
    .prepare("SELECT created_at AS t FROM orders WHERE state != 'sending' ORDER BY created_at")
    .all()
    .map((r) => r.t);
  db.close();
  let peak = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i] - times[j] >= 60_000) j++;
    peak = Math.max(peak, i - j + 1);
  }
  emit('orders_sent', times.length, 'orders', `${MINUTES} min of config/default.yaml`);
  emit('peak_orders_per_minute', peak, 'orders', 'most orders sent in any 60 s interval');
  emit('execution', 0, '', JSON.stringify(c));
}

const runs = { lag, restarts, soak, rate };
if (!runs[scenario]) {
  console.error(`unknown scenario ${scenario}: one of ${Object.keys(runs).join(', ')}`);
  process.exit(2);
}
await runs[scenario]();
