/// <reference lib="dom" />
// The operator surface of a real `sextant run` (the default config, its own journal and port, no token configured;
// on a terminal, as `npm start` in a shell is) against what a web page in the trader's browser can send: the start
// line prints the dashboard's sign-in link once (not when the output is a log: then `sextant dashboard` prints it)
// and the token is in no log line, no API answer, no metric; the token file beside the journal is mode 0600; a DNS
// rebinding request (the attack's own curl) and a foreign Host are refused on every route; a POST from a foreign
// Origin is refused with the token too; a POST without the credential is refused on loopback; in Chromium, the printed
// link opens the dashboard signed in and its commands work, while a rebinding page and a page on another local port
// (the session cookie present) change nothing; the CLI's commands reach the daemon through the token file, and
// `sextant risk kill` through the journal; halted, its denials are counted, not logged one by one; a stop removes
// the token file.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Browser } from 'playwright-core';
import { parseDocument } from 'yaml';
import { API_PREFIX, ROUTES } from '../../src/ops/api/routes.js';
import { runCli } from '../fixtures/cli.js';
import { launchChromium, waitFor } from '../fixtures/e2e.js';
import { rawRequest } from '../fixtures/raw-http.js';

const dir = mkdtempSync(join(tmpdir(), 'sextant-surface-'));
const cfgFile = join(dir, 'daemon.yaml');
const env = { PATH: process.env.PATH ?? '' };

let port = 0;
let daemon: ChildProcess | undefined;
let output = '';
let browser: Browser | undefined;
let attackSite: http.Server | undefined;

/** config/default.yaml on its own journal (in `folder`) and port, quick polls. */
function configFile(folder: string, onPort: number): string {
  const doc = parseDocument(readFileSync('config/default.yaml', 'utf8'));
  doc.setIn(['journal', 'path'], join(folder, 'journal.sqlite'));
  doc.setIn(['daemon', 'http', 'port'], onPort);
  doc.setIn(['daemon', 'polls'], { tickersMs: 300, ordersMs: 600, balancesMs: 1000, positionsMs: 1000 });
  doc.setIn(['sim', 'tickIntervalMs'], 50);
  const file = join(folder, 'daemon.yaml');
  writeFileSync(file, doc.toString());
  return file;
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const p = (s.address() as AddressInfo).port;
  await new Promise((r) => s.close(r));
  return p;
}

beforeAll(async () => {
  port = await freePort();
  configFile(dir, port);
  // On a terminal (util-linux's script gives it one), as a trader's `npm start` is.
  daemon = spawn('script', ['-qfec', `exec ${process.execPath} bin/sextant.js run --config ${cfgFile}`, '/dev/null'], { env });
  daemon.stdout!.on('data', (d) => (output += String(d)));
  daemon.stderr!.on('data', (d) => (output += String(d)));
  browser = await launchChromium(['--host-resolver-rules=MAP attacker.example 127.0.0.1']);
}, 60_000);

afterAll(async () => {
  if (daemon && daemon.exitCode === null) {
    // script's child first: it would outlive script.
    try {
      process.kill(daemonPid(), 'SIGKILL');
    } catch {
      // gone already
    }
    daemon.kill('SIGKILL');
  }
  await browser?.close();
  await new Promise((r) => (attackSite ? attackSite.close(r) : r(undefined)));
});

/** The sign-in link of the start line; the token in it. */
async function started(): Promise<{ link: string; token: string }> {
  const link = await waitFor('the start line', () => /Dashboard \(signed in\): (http:\/\/\S+)/.exec(output)?.[1], 30_000);
  return { link, token: new URL(link).searchParams.get('token')! };
}

/** The daemon's process: script's child (Linux's /proc names it). */
const daemonPid = () => Number(readFileSync(`/proc/${daemon!.pid}/task/${daemon!.pid}/children`, 'utf8').trim().split(/\s+/)[0]);

const state = async (token: string) =>
  JSON.parse((await rawRequest(port, 'GET', `${API_PREFIX}/status`, { authorization: `Bearer ${token}` })).body) as {
    tradingState: string;
    latches: Array<{ name: string; reason: string }>;
  };
const routePath = (path: string) => `${API_PREFIX}${path.replace(':clientOid', 'sx_x_1').replace(':id', 'mm-btc')}`;
const bodyOf = (path: string) =>
  JSON.stringify(
    path.endsWith('/pause') ? { cancelOrders: false, reason: 'x' } : path.includes('force-exit') ? { symbol: 'BTCUSDT_SPBL', reason: 'x' } : { reason: 'x' },
  );

describe('the operator surface of a running daemon', () => {
  it('whose output is a log (not a terminal): the start line leaves the link out, `sextant dashboard` prints it', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'sextant-surface-log-'));
    const logPort = await freePort();
    const cfg = configFile(folder, logPort);
    const p = spawn(process.execPath, ['bin/sextant.js', 'run', '--config', cfg], { env });
    let out = '';
    p.stdout.on('data', (d) => (out += String(d)));
    p.stderr.on('data', (d) => (out += String(d)));
    const closed = new Promise<number | null>((r) => p.once('close', r));
    try {
      await waitFor('the start line', () => (/Sextant is running\. Dashboard: (\S+)/.exec(out) ? true : undefined), 30_000);
      expect(out).toContain(`Sextant is running. Dashboard: http://127.0.0.1:${logPort}/ (\`sextant dashboard\` prints the link that signs it in)`);
      const token = readFileSync(join(folder, `http-${logPort}.token`), 'utf8').trim();
      expect(out).not.toContain(token);
      expect(out).not.toContain('login?token=');
      const link = await runCli(['dashboard', '--config', cfg], env);
      expect(link).toMatchObject({ code: 0, stdout: `http://127.0.0.1:${logPort}/login?token=${encodeURIComponent(token)}\n` });
    } finally {
      p.kill('SIGINT');
      expect(await closed).toBe(0);
    }
  }, 60_000);

  it("prints the sign-in link once and keeps the token out of every log line; the token file is the owner's alone", async () => {
    const { link, token } = await started();
    expect(link).toBe(`http://127.0.0.1:${port}/login?token=${encodeURIComponent(token)}`);
    expect(token.length).toBeGreaterThanOrEqual(32);
    await waitFor('ready', async () => ((await rawRequest(port, 'GET', '/ready', {})).status === 200 ? true : undefined), 30_000);
    const file = join(dir, `http-${port}.token`);
    expect(readFileSync(file, 'utf8').trim()).toBe(token);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // Once: the start line; no log line (JSON) carries it.
    expect(output.split(token).length - 1).toBe(1);
    for (const line of output.split('\n').filter((l) => l.startsWith('{'))) expect(line).not.toContain(token);
    expect(output).toMatch(new RegExp(`"tokenFile":"${file.replace(/[/.]/g, '\\$&')}"`));
    // Nor does any answer: status, metrics, the page.
    const auth = { authorization: `Bearer ${token}` };
    for (const path of [
      `${API_PREFIX}/status`,
      `${API_PREFIX}/strategies`,
      `${API_PREFIX}/events?limit=500`,
      '/metrics',
      '/',
      '/dashboard/app.js',
      '/health',
      '/ready',
    ]) {
      const r = await rawRequest(port, 'GET', path, auth);
      expect({ path, status: r.status }).toEqual({ path, status: 200 });
      expect({ path, leaks: r.body.includes(token) }).toEqual({ path, leaks: false });
    }
  }, 60_000);

  it('refuses the DNS rebinding request, a foreign Host on every route, a foreign Origin on every POST, and a POST without the credential', async () => {
    const { token } = await started();
    // The attack as written: 421, and trading goes on.
    const attack = await rawRequest(
      port,
      'POST',
      `${API_PREFIX}/trading/halt`,
      { host: `attacker.example:${port}`, origin: `http://attacker.example:${port}` },
      '{"reason":"x"}',
    );
    expect(attack.status).toBe(421);
    expect(JSON.parse(attack.body).error).toMatch(/not served here/);
    const auth = { authorization: `Bearer ${token}` };
    const foreign = { host: `attacker.example:${port}`, ...auth };
    for (const path of [
      '/health',
      '/ready',
      '/metrics',
      '/',
      '/dashboard/app.js',
      `/login?token=${token}`,
      ...ROUTES.filter((r) => r.method === 'GET').map((r) => routePath(r.path)),
    ]) {
      expect({ path, status: (await rawRequest(port, 'GET', path, foreign)).status }).toEqual({ path, status: 421 });
    }
    for (const route of ROUTES.filter((r) => r.method === 'POST')) {
      const path = routePath(route.path);
      expect({ path, status: (await rawRequest(port, 'POST', path, { ...foreign, origin: `http://attacker.example:${port}` }, bodyOf(path))).status }).toEqual({
        path,
        status: 421,
      });
      expect({ path, status: (await rawRequest(port, 'POST', path, { ...auth, origin: 'http://attacker.example' }, bodyOf(path))).status }).toEqual({
        path,
        status: 403,
      });
      expect({ path, status: (await rawRequest(port, 'POST', path, { ...auth, origin: `http://127.0.0.1:${port + 1}` }, bodyOf(path))).status }).toEqual({
        path,
        status: 403,
      });
      expect({ path, status: (await rawRequest(port, 'POST', path, { origin: `http://127.0.0.1:${port}` }, bodyOf(path))).status }).toEqual({
        path,
        status: 401,
      });
    }
    expect((await state(token)).tradingState).toBe('active');
    // One log line a minute per kind of refusal and caller, not one per request.
    const refusals = output.split('\n').filter((l) => l.includes('"msg":"request refused: host'));
    expect(refusals.length).toBeGreaterThanOrEqual(1);
    expect(refusals.length).toBeLessThanOrEqual(3);
  }, 60_000);

  it("in Chromium: the printed link opens the dashboard signed in and its commands work; a rebinding page and another local port's page change nothing", async () => {
    const { link, token } = await started();
    const context = await browser!.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    try {
      await page.goto(link);
      expect(new URL(page.url()).pathname).toBe('/');
      expect(page.url()).not.toContain(token);
      await page.waitForFunction(() => document.getElementById('trading-state')?.dataset.state === 'active', null, { timeout: 20_000 });
      await page.waitForFunction(() => document.getElementById('stream')?.dataset.stream === 'live', null, { timeout: 20_000 });
      // The cookie is the page's to send, not to read.
      expect(await page.evaluate(() => document.cookie)).toBe('');
      const cookies = await context.cookies();
      expect(cookies).toEqual([expect.objectContaining({ name: `sextant_session_${port}`, httpOnly: true, sameSite: 'Strict' })]);
      expect(cookies[0]!.value).not.toContain(token);
      // A command from the page as the browser sends it (its Origin, same-origin fetch metadata): taken.
      const reduced = await page.evaluate(async () => {
        const res = await fetch('/api/v1/trading/reduce', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-sextant-client': 'dashboard' },
          body: JSON.stringify({ reason: 'from the page' }),
        });
        return res.status;
      });
      expect(reduced).toBe(200);
      expect((await state(token)).tradingState).toBe('reducing');
      await page.waitForFunction(() => document.getElementById('trading-state')?.dataset.state === 'reducing', null, { timeout: 10_000 });

      // A page of another local port: same site for the browser, so the session cookie goes with its requests.
      attackSite = http.createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><html><body>
<form id="f" method="POST" action="http://127.0.0.1:${port}/api/v1/trading/flatten" enctype="text/plain"><input name='{"reason":"x","y":"' value='"}'></form>
<script>
fetch('http://127.0.0.1:${port}/api/v1/trading/halt', { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'text/plain' }, body: '{"reason":"x"}' })
  .then(() => { document.title = 'sent'; }, () => { document.title = 'sent'; });
</script></body></html>`);
      });
      await new Promise<void>((r) => attackSite!.listen(0, '127.0.0.1', r));
      const attackPort = (attackSite.address() as AddressInfo).port;
      // The same browser context holds the cookie: the attack runs where the trader is signed in.
      const evil = await context.newPage();
      await evil.goto(`http://127.0.0.1:${attackPort}/`);
      await evil.waitForFunction(() => document.title === 'sent', null, { timeout: 10_000 });
      const formAnswer = evil.waitForNavigation({ timeout: 10_000 }).catch(() => undefined);
      await evil.evaluate(() => (document.getElementById('f') as HTMLFormElement).submit());
      await formAnswer;
      expect(await evil.content()).toMatch(/is not this daemon's|not served here/);
      // After a DNS rebinding, the attacker's name reaches the daemon: every request refused, the page gets nothing.
      const rebound = await context.newPage();
      const answer = await rebound.goto(`http://attacker.example:${port}/`);
      expect(answer?.status()).toBe(421);
      const rebindPost = await rebound.evaluate(
        async () =>
          (await fetch('/api/v1/trading/flatten', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"reason":"x"}' })).status,
      );
      expect(rebindPost).toBe(421);
      await Promise.all([evil.close(), rebound.close()]);
      const after = await state(token);
      expect(after.tradingState).toBe('reducing');
      expect(after.latches.map((l) => l.reason)).toEqual(['from the page']);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 90_000);

  it('the CLI reaches the daemon through the token file: status, halt, reset, the sign-in link; `risk kill` through the journal', async () => {
    const { link, token } = await started();
    const cli = (...args: string[]) => runCli([...args, '--config', cfgFile], env);
    const dashboard = await cli('dashboard');
    expect(dashboard).toMatchObject({ code: 0, stdout: `${link}\n` });
    expect((await cli('reset', '--reason', "clear the page's reduce")).code).toBe(0);
    const halt = await cli('halt', '--reason', 'from the command line');
    expect(halt).toMatchObject({ code: 0 });
    expect(halt.stdout).toMatch(/halted/);
    expect((await state(token)).tradingState).toBe('halted');
    const status = await cli('status');
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/trading\s+halted/);
    expect(status.stdout + status.stderr).not.toContain(token);
    // Halted, the strategies' intents are denied: the first of each strategy and symbol is logged, the rest counted.
    const haltedFrom = output.length;
    const deniedHalted = async () => {
      const text = (await rawRequest(port, 'GET', '/metrics', { authorization: `Bearer ${token}` })).body;
      return Number(/sextant_risk_denials_total\{reason="halted"\} (\d+)/.exec(text)?.[1] ?? 0);
    };
    const before = await deniedHalted();
    await waitFor('ten denials while halted', async () => ((await deniedHalted()) >= before + 10 ? true : undefined), 30_000);
    expect((await cli('reset', '--reason', 'all clear')).code).toBe(0);
    expect((await state(token)).tradingState).toBe('active');
    const summary = await waitFor(
      'the denials summary',
      () =>
        output
          .slice(haltedFrom)
          .split('\n')
          .find((l) => l.includes('"event":"denials"')),
      10_000,
    );
    const logLines = output.slice(haltedFrom).split('\n');
    expect(logLines.filter((l) => l.includes('"msg":"order denied"') && l.includes('"reason":"halted"')).length).toBeLessThanOrEqual(2);
    expect(JSON.parse(summary.trim())).toMatchObject({ cause: 'trading-state', byReason: { halted: expect.any(Number) } });
    expect((JSON.parse(summary.trim()) as { byReason: { halted: number } }).byReason.halted).toBeGreaterThanOrEqual(10);
    // A wrong token is refused and said so.
    const wrong = await runCli(['status', '--config', cfgFile, '--token', 'x'.repeat(32)], env);
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/HTTP 401/);
    // The kill switch through the journal, as before: the running daemon takes it in.
    expect((await cli('risk', 'kill', '--reason', 'journal kill')).code).toBe(0);
    await waitFor('the daemon halted by the journal latch', async () => ((await state(token)).tradingState === 'halted' ? true : undefined), 20_000);
  }, 90_000);

  it('a stop removes the token file', async () => {
    await started();
    const file = join(dir, `http-${port}.token`);
    expect(existsSync(file)).toBe(true);
    process.kill(daemonPid(), 'SIGINT');
    const code = await new Promise<number | null>((r) => (daemon!.exitCode !== null ? r(daemon!.exitCode) : daemon!.once('close', r)));
    expect(code).toBe(0);
    expect(existsSync(file)).toBe(false);
  }, 30_000);
});
