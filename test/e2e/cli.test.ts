// The `sextant` command as a user runs it: a real process, the real HTTP client, a venue on 127.0.0.1.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { FakeVenue } from '../fixtures/fake-venue.js';
import { runCli, type CliRun } from '../fixtures/cli.js';
import { journalRow } from '../fixtures/journal-row.js';

let venue: FakeVenue;
const dir = mkdtempSync(join(tmpdir(), 'sextant-cli-'));
const cfg = join(dir, 'ok.yaml');

beforeAll(async () => {
  venue = await FakeVenue.start();
  writeFileSync(cfg, 'exchange:\n  timeoutMs: 1000\n  retry: { attempts: 1 }\n');
});
afterAll(async () => venue.close());

function sextant(args: string[], extraEnv: Record<string, string> = {}): Promise<CliRun> {
  return runCli(args, {
    PATH: process.env.PATH,
    SEXTANT_SPOT_BASE_URL: venue.url,
    SEXTANT_FUTURES_BASE_URL: venue.url,
    SEXTANT_API_KEY: venue.opts.apiKey,
    SEXTANT_API_SECRET: venue.opts.apiSecret,
    SEXTANT_API_PASSPHRASE: venue.opts.passphrase,
    ...extraEnv,
  });
}

describe('sextant api', () => {
  it('prints the validated payload, big integers exactly as received', async () => {
    const r = await sextant([
      'api',
      'S6',
      '--config',
      cfg,
      '--body',
      '{"symbol":"BTCUSDT_SPBL","orderList":[{"side":"buy","orderType":"limit","force":"normal","price":"1","quantity":"1","clientOrderId":"sx_a_1"}]}',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('"orderId": 602876318261969338');
    expect(r.stdout).toContain('"orderId": 8389765489680951453');
    expect(venue.calls('S6').at(-1)!.auth).toBe('ok');
  });

  it('passes --query pairs to a GET, in order', async () => {
    const r = await sextant(['api', 'f5', '--config', cfg, '--query', 'symbol=cmt_btcusdt', '--query', 'limit=50']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)[0].order_id).toBe('689987455633326746');
    expect(venue.calls('F5').at(-1)!.query).toBe('symbol=cmt_btcusdt&limit=50');
  });

  it('a big orderId in --body goes out digit for digit', async () => {
    const r = await sextant(['api', 'S2', '--config', cfg, '--body', '{"symbol":"WXTUSDT_SPBL","orderId":602929507946463674}']);
    expect(r.code).toBe(0);
    expect(venue.calls('S2').at(-1)!.body).toBe('{"symbol":"WXTUSDT_SPBL","orderId":602929507946463674}');
  });

  it('an exchange error: one line with endpoint, HTTP status, code and message on stderr, exit 1', async () => {
    venue.script('F4', { status: 400, body: '{"code":"40020","msg":"Parameter symbol is invalid","requestTime":1,"data":null}' });
    const r = await sextant(['api', 'F4', '--config', cfg, '--query', 'symbol=nope']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe('F4 /capi/v2/account/position/singlePosition | HTTP 400 | code 40020 | Parameter symbol is invalid\n');
  });

  it('a response that fails validation: exit 2, naming the field', async () => {
    venue.script('F2', { status: 200, body: '[{"symbol":"cmt_btcusdt","last":"1e5","best_ask":"1","best_bid":"1","timestamp":"1"}]' });
    const r = await sextant(['api', 'F2', '--config', cfg]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('F2 /capi/v2/market/tickers | HTTP 200 | [0].last: expected a decimal string, got "1e5"');
  });

  it('unknown endpoints and malformed arguments exit 1 with a reason', async () => {
    expect((await sextant(['api', 'X9'])).stderr).toMatch(/unknown endpoint "X9"/);
    expect((await sextant(['api', 'F2', '--body', '{}'])).stderr).toMatch(/GET endpoint/);
    const bad = await sextant(['api', 'S3', '--body', '{oops']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/--body is not valid JSON/);
  });
});

describe('sextant config check and --help', () => {
  it('exits 0 on a valid file', async () => {
    const r = await sextant(['config', 'check', 'config/default.yaml']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('config/default.yaml: ok');
  });

  it('exits 1 listing every error with line and path', async () => {
    const f = join(dir, 'bad.yaml');
    writeFileSync(f, 'mode: nope\nexchange:\n  timeoutMs: -1\n  extra: 1\n');
    const r = await sextant(['config', 'check', f]);
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines).toEqual([
      expect.stringMatching(new RegExp(`^${f}:1:7: mode: `)),
      expect.stringMatching(new RegExp(`^${f}:3:14: exchange.timeoutMs: `)),
      expect.stringMatching(new RegExp(`^${f}:4:3: exchange.extra: unknown key`)),
      `3 errors in ${f}`,
    ]);
  });

  it('with the shipped strategies: names, params, schedules, cron and symbols, every problem at once with its line and column', async () => {
    const f = join(dir, 'strategies.yaml');
    writeFileSync(
      f,
      [
        'sim: { embedded: true }',
        'daemon: { reconcileCron: "*/5 * * *" }',
        'strategies:',
        '  - { id: mm, name: spot-market-makr, symbols: [BTCUSDT_SPBL] }',
        '  - { id: mm2, name: spot-market-maker, symbols: [BTCUSDT_SPB], params: { size: 1e-3, halfSpreadBps: 6 } }',
        '  - { id: dca, name: spot-dca, symbols: [BTCUSDT_SPBL], schedule: { buyy: "0 0 9 * * *" } }',
        '',
      ].join('\n'),
    );
    // From a user folder of its own: the checkout's strategies/ (a trader's) has no say in what is found.
    const r = await sextant(['--userdir', dir, 'config', 'check', f]);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^${f}:2:26: daemon\\.reconcileCron: invalid cron expression "\\*/5 \\* \\* \\*": expected 5 or 6 fields but got 4`)),
      expect.stringMatching(
        new RegExp(
          `^${f}:4:21: strategies\\[0\\]\\.name: strategy "spot-market-makr" not found in strategies or the shipped examples \\(no such folder: strategies\\) .*; no strategies there; the shipped examples: bollinger-maker, ema-cross, futures-grid, rsi-reversion, spot-dca, spot-market-maker, trend-follower\\)$`,
        ),
      ),
      `${f}:5:51: strategies[1].symbols[0]: unknown symbol "BTCUSDT_SPB": not among the simulator's instruments (its built-in list); did you mean "BTCUSDT_SPBL"?`,
      expect.stringMatching(
        new RegExp(`^${f}:5:81: strategies\\[1\\]\\.params\\.size: a number where text is expected: write it quoted, as plain digits, e\\.g\\. "0\\.001"`),
      ),
      `${f}:6:69: strategies[2].schedule.buyy: spot-dca has no onSchedule hook "buyy" (its hooks: buy; did you mean "buy"?)`,
      `5 errors in ${f}`,
    ]);
  });

  it('takes unquoted decimals in strategy params exactly as written', async () => {
    const f = join(dir, 'unquoted.yaml');
    writeFileSync(
      f,
      'sim: { embedded: true }\nstrategies:\n  - { id: mm, name: spot-market-maker, symbols: [BTCUSDT_SPBL], params: { size: 0.002, maxInventory: 0.02 } }\n',
    );
    const r = await sextant(['config', 'check', f]);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    expect(r.stdout).toBe(`${f}: ok\n  symbols: checked against the simulator's instruments (its built-in list)\n`);
  });

  it('--help lists the commands', async () => {
    const r = await sextant(['--help']);
    expect(r.code).toBe(0);
    for (const c of ['run', 'config', 'api']) expect(r.stdout).toContain(c);
  });
});

describe('config/default.yaml trades the embedded simulator: plan and api say so and go there', () => {
  it('plan prints the venue it would use', async () => {
    const r = await sextant(['plan']);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').slice(0, 2)).toEqual([
      'sextant — live configuration config/default.yaml is valid',
      '  venue    the embedded simulator (sim.embedded): `run` starts it on 127.0.0.1, any free port, seed 42; exchange base URLs are not used',
    ]);
  });

  it('api calls a simulator started for it, not the base URLs (here the fake venue, through the environment)', async () => {
    const before = venue.calls('F2').length;
    const r = await sextant(['api', 'F2']);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/^sextant api: calling an embedded simulator started for this command at http:\/\/127\.0\.0\.1:\d+ /);
    expect(
      JSON.parse(r.stdout)
        .map((t: { symbol: string }) => t.symbol)
        .sort(),
    ).toEqual(['cmt_btcusdt', 'cmt_ethusdt', 'cmt_solusdt']);
    expect(venue.calls('F2').length).toBe(before);
  });
});

describe('sextant risk', () => {
  it('shows a latched kill switch, and reset clears it (operator action)', async () => {
    const cfgFile = join(dir, 'risk.yaml');
    const journalPath = join(dir, 'risk', 'journal.sqlite');
    writeFileSync(cfgFile, `journal:\n  path: ${journalPath}\n`);
    // No journal yet: said so, and nothing is created.
    const none = await sextant(['risk', 'status', '-c', cfgFile]);
    expect({ code: none.code, stderr: none.stderr }).toEqual({
      code: 1,
      stderr: `no journal at ${journalPath} (journal.path in ${cfgFile}): nothing has traded with this configuration yet\n`,
    });
    expect(existsSync(journalPath)).toBe(false);
    mkdirSync(join(dir, 'risk'));
    const { SqliteJournal } = await import('../../src/journal/sqlite-journal.js');
    const j = new SqliteJournal(journalPath, { clientOidPrefix: 'sx' });
    j.close();
    expect((await sextant(['risk', 'status', '-c', cfgFile])).stdout).toMatch(/^active: no kill switch latched\nfence: no order with an unknown outcome/);
    const k = new SqliteJournal(journalPath, { clientOidPrefix: 'sx' });
    k.setLatch('kill-switch:drawdown', 'drawdown 12 % from peak 100', 1);
    k.close();
    expect((await sextant(['risk', 'status', '-c', cfgFile])).stdout).toMatch(/^halted: kill-switch:drawdown: drawdown 12 %/);
    expect((await sextant(['risk', 'reset', '-c', cfgFile])).stdout).toMatch(/^cleared: /);
    expect((await sextant(['risk', 'status', '-c', cfgFile])).stdout).toMatch(/^active: no kill switch latched\n/);
  });

  it('reduce puts trading in reducing, kept in the journal with its reason; status shows it and reset clears it', async () => {
    const cfgFile = join(dir, 'reduce.yaml');
    const journalPath = join(dir, 'reduce', 'journal.sqlite');
    writeFileSync(cfgFile, `journal:\n  path: ${journalPath}\n`);
    mkdirSync(join(dir, 'reduce'));
    const { SqliteJournal } = await import('../../src/journal/sqlite-journal.js');
    new SqliteJournal(journalPath, { clientOidPrefix: 'sx' }).close();
    const noReason = await sextant(['risk', 'reduce', '-c', cfgFile]);
    expect({ code: noReason.code, stderr: noReason.stderr }).toEqual({ code: 1, stderr: "error: required option '--reason <text>' not specified\n" });
    const reduce = await sextant(['risk', 'reduce', '--reason', 'venue maintenance at 02:00', '-c', cfgFile]);
    expect({ code: reduce.code, stdout: reduce.stdout, stderr: reduce.stderr }).toEqual({
      code: 0,
      stdout: 'reducing: venue maintenance at 02:00\n',
      stderr: '',
    });
    const j = new SqliteJournal(journalPath, { clientOidPrefix: 'sx' });
    expect(j.latch('reduce:operator')?.reason).toBe('venue maintenance at 02:00');
    j.close();
    expect((await sextant(['risk', 'status', '-c', cfgFile])).stdout).toMatch(
      /^reducing: reduce:operator: venue maintenance at 02:00\nfence: no order with an unknown outcome/,
    );
    const reset = await sextant(['risk', 'reset', '-c', cfgFile]);
    expect({ code: reset.code, stdout: reset.stdout }).toEqual({ code: 0, stdout: 'cleared: reduce:operator: venue maintenance at 02:00\n' });
    expect((await sextant(['risk', 'status', '-c', cfgFile])).stdout).toMatch(/^active: no kill switch latched\n/);
  });

  it('names the orders that hold the fence; `orders list` shows them and `orders resolve` settles one, journaled', async () => {
    const cfgFile = join(dir, 'fence.yaml');
    const journalPath = join(dir, 'fence', 'journal.sqlite');
    writeFileSync(cfgFile, `journal:\n  path: ${journalPath}\n`);
    mkdirSync(join(dir, 'fence'));
    const { SqliteJournal } = await import('../../src/journal/sqlite-journal.js');
    const j = new SqliteJournal(journalPath, { clientOidPrefix: 'sx' });
    j.insertOrders([
      journalRow('sx_mm_7', {
        strategyId: 'mm',
        price: '100',
        size: '0.5',
        state: 'unknown',
        createdAtMs: Date.now() - 30_000,
        updatedAtMs: Date.now(),
        absentChecks: 1,
      }),
    ]);
    j.close();
    const status = await sextant(['risk', 'status', '-c', cfgFile]);
    expect(status.stdout).toMatch(/fence: 1 order\(s\) with an unknown outcome: sx_mm_7 \(unknown, 3\d s old, not found 1×\)/);
    expect((await sextant(['orders', 'list', '-c', cfgFile])).stdout).toMatch(/\nsx_mm_7\s+mm\s+BTCUSDT_SPBL\s+buy\s+100\s+0\.5\s+0\s+unknown/);
    const bad = await sextant(['orders', 'resolve', 'sx_mm_7', '--as', 'lost', '--reason', 'x', '-c', cfgFile]);
    expect(bad.code).not.toBe(0);
    const ok = await sextant(['orders', 'resolve', 'sx_mm_7', '--as', 'vanished', '--reason', 'the venue has no such order', '-c', cfgFile]);
    expect({ code: ok.code, stdout: ok.stdout }).toEqual({ code: 0, stdout: 'sx_mm_7: vanished\n' });
    expect((await sextant(['orders', 'list', '-c', cfgFile])).stdout).toMatch(/^no orders in flight/);
    const k = new SqliteJournal(journalPath, { clientOidPrefix: 'sx' });
    expect(k.history('sx_mm_7').at(-1)!.event).toBe('settled by an operator as vanished: the venue has no such order');
    k.close();
  });
});

describe('output to a reader that went away', () => {
  const noStack = (stderr: string) => expect({ stderr }).toEqual({ stderr: '' });

  it('stdout closed before the command writes: the process ends quietly, exit 0', async () => {
    const p = spawn(process.execPath, ['bin/sextant.js', 'plan', '-c', 'config/default.yaml'], {
      env: { PATH: process.env.PATH },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Closed at once: node is still starting, so every line of the plan meets a closed pipe.
    p.stdout.destroy();
    let stderr = '';
    p.stderr.on('data', (d) => (stderr += String(d)));
    const code = await new Promise<number | null>((resolve) => p.on('close', resolve));
    noStack(stderr);
    expect(code).toBe(0);
  });

  it('`sextant plan | head -1` prints the first line and no stack', async () => {
    const p = spawn('sh', ['-c', 'node bin/sextant.js plan -c config/default.yaml | head -1'], { env: { PATH: process.env.PATH } });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += String(d)));
    p.stderr.on('data', (d) => (stderr += String(d)));
    const code = await new Promise<number | null>((resolve) => p.on('close', resolve));
    noStack(stderr);
    expect({ code, stdout }).toEqual({ code: 0, stdout: 'sextant — live configuration config/default.yaml is valid\n' });
  });
});
