// The product as a trader installs it: this checkout packed (`npm pack`), installed into an empty folder with npm
// alone, then the commands the README gives, in order, each of which must succeed: init a user folder, a new
// strategy from a template, the list of strategies, the strategy's own tests, a backtest, a dry run (against
// `sextant sim` standing in for the venue, stopped once it traded). Also: the installed package holds the compiled
// code and no dev dependency; the user folder type-checks against the package's types; a failing strategy test
// fails `test-strategy`; `backtest --help` names every file a backtest writes.
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';

const repo = resolve('.');
const work = mkdtempSync(join(tmpdir(), 'sextant-userdir-'));
const version = (JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version;

/** A command run to its end: its exit code and output (an error thrown names the command and shows its output). */
function run(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}): SpawnSyncReturns<string> {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, ...env }, timeout: 300_000, maxBuffer: 64 << 20 });
  if (r.error) throw r.error;
  return r;
}

function ok(cmd: string, args: string[], cwd: string, env: Record<string, string> = {}): string {
  const r = run(cmd, args, cwd, env);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} (in ${cwd}) exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/**
 * A long-running command of the user folder through npx, in a process group of its own: `signal` goes to the whole
 * group, as a terminal's Ctrl-C does (npx, its shell and the command all get it); `kill` ends what is left.
 */
function start(args: string[], cwd: string, env: Record<string, string> = {}) {
  const p = spawn('npx', args, { cwd, env: { ...process.env, ...env }, detached: true });
  let out = '';
  p.stdout.on('data', (d: Buffer) => (out += String(d)));
  p.stderr.on('data', (d: Buffer) => (out += String(d)));
  const exited = new Promise<number | null>((r) => p.on('close', r));
  return {
    output: () => out,
    exited,
    signal: (sig: NodeJS.Signals) => {
      try {
        process.kill(-p.pid!, sig);
      } catch {
        // Gone already.
      }
    },
    kill: () => {
      try {
        process.kill(-p.pid!, 'SIGKILL');
      } catch {
        // Gone already.
      }
    },
  };
}

async function until<T>(what: string, probe: () => T | undefined, ms: number, output: () => string): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms; output:\n${output().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the package installed into a folder of its own', () => {
  it('npm i <tarball>; sextant init, new-strategy, list-strategies, test-strategy, backtest, run (dry-run)', async () => {
    // The package as built (npm test builds first); its scripts are not run again.
    const packed = ok('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', work], repo).trim().split('\n').pop()!;
    expect(packed).toBe(`sextant-${version}.tgz`);
    const home = join(work, 'home');
    ok('mkdir', ['-p', home], work);
    const install = run('npm', ['i', '--prefer-offline', '--no-audit', '--no-fund', join(work, packed)], home);
    expect(install.status).toBe(0);
    // Nothing it installs asks for another Node than this one.
    expect(install.stderr).not.toMatch(/EBADENGINE/);
    const installed = join(home, 'node_modules', 'sextant');
    // The compiled code and its types, not the sources; the production dependencies, no dev dependency.
    expect([
      existsSync(join(installed, 'dist', 'app', 'cli.js')),
      existsSync(join(installed, 'dist', 'strategy', 'api.d.ts')),
      existsSync(join(installed, 'src')),
    ]).toEqual([true, true, false]);
    expect(['rxjs', 'zod', 'jest', 'typescript', 'eslint'].map((p) => existsSync(join(home, 'node_modules', p)))).toEqual([true, true, false, false, false]);
    expect(ok('npx', ['sextant', '--version'], home).trim()).toBe(version);

    ok('npx', ['sextant', 'init', 'bot'], home);
    const bot = join(home, 'bot');
    expect(readdirSync(bot).sort()).toEqual(['.gitignore', 'README.md', 'config', 'data', 'package.json', 'reports', 'strategies', 'tsconfig.json']);
    expect(readFileSync(join(bot, '.gitignore'), 'utf8')).toMatch(/^secrets\/$/m);

    const created = ok('npx', ['sextant', 'new-strategy', 'my-ema', '--template', 'bars'], bot);
    expect(created).toMatch(/strategies\/my-ema\/index\.ts\n.*strategies\/my-ema\/my-ema\.test\.ts\n.*config\/my-ema\.backtest\.yaml/);

    // Found where it is, with its params and defaults; the user's copy of the example shadows the shipped one.
    const listed = ok('npx', ['sextant', 'list-strategies'], bot);
    expect(listed).toMatch(/^my-ema {2}strategies\/my-ema\/index\.ts {2}loads\n/m);
    expect(listed).toMatch(/^ {2}period: integer, default 14$/m);
    expect(listed).toMatch(/^spot-market-maker {2}strategies\/spot-market-maker\/index\.ts {2}loads$/m);
    expect(listed).toMatch(/^spot-market-maker {2}shipped example \(spot-market-maker\/index\.ts\)\n {2}shadowed by strategies\/spot-market-maker\/index\.ts/m);

    // Its own tests pass; a failing one fails the command, named.
    expect(ok('npx', ['sextant', 'test-strategy', 'my-ema'], bot)).toMatch(/^ℹ pass 2$/m);
    writeFileSync(
      join(bot, 'strategies', 'my-ema', 'wrong.test.ts'),
      "import assert from 'node:assert/strict';\nimport { it } from 'node:test';\nimport s from './index.js';\n\nvoid it('is named so', () => assert.equal(s.name, 'not-my-ema'));\n",
    );
    const failing = run('npx', ['sextant', 'test-strategy', 'my-ema'], bot);
    expect({ status: failing.status, failed: /^ℹ fail 1$/m.test(failing.stdout), named: failing.stdout.includes('is named so') }).toEqual({
      status: 1,
      failed: true,
      named: true,
    });
    rmSync(join(bot, 'strategies', 'my-ema', 'wrong.test.ts'));

    // The editor's view: with the folder's own devDependencies (TypeScript, Node's types), its strategies and tests
    // type-check against the installed package's types; a wrong param type is caught.
    ok('npm', ['i', '--prefer-offline', '--no-audit', '--no-fund'], bot);
    ok('npm', ['run', 'typecheck', '--silent'], bot);
    const strategyFile = join(bot, 'strategies', 'my-ema', 'index.ts');
    const source = readFileSync(strategyFile, 'utf8');
    writeFileSync(strategyFile, source.replace('const rsi = new RSI(ctx.params.period)', 'const rsi = new RSI(ctx.params.quoteAmount)'));
    expect(run('npm', ['run', 'typecheck', '--silent'], bot).stdout).toMatch(/strategies\/my-ema\/index\.ts\(\d+,\d+\): error TS2345/);
    writeFileSync(strategyFile, source);

    // The backtest as written; it writes the files `backtest --help` names, and only those.
    expect(ok('npx', ['sextant', 'backtest', '--config', 'config/backtest.yaml'], bot)).toMatch(/-> reports\/backtest\n/);
    const help = ok('npx', ['sextant', 'backtest', '--help'], bot).replace(/\s+/g, ' ');
    const written = readdirSync(join(bot, 'reports', 'backtest')).sort();
    expect(written.length).toBe(6);
    expect(written.filter((f) => !help.includes(f))).toEqual([]);
    expect(ok('npx', ['sextant', 'backtest', '--config', 'config/my-ema.backtest.yaml'], bot)).toMatch(/-> reports\/my-ema\n/);
    // From another folder, the config's own paths still name the user folder's strategies, data and reports.
    rmSync(join(bot, 'reports', 'backtest'), { recursive: true });
    expect(ok('npx', ['sextant', 'backtest', '--config', 'bot/config/backtest.yaml'], home)).toMatch(/-> bot\/reports\/backtest\n/);
    expect(existsSync(join(home, 'reports'))).toBe(false);

    // The dry run as written, against `sextant sim` standing in for the venue (the base URLs from the environment).
    const sim = start(['sextant', 'sim', '--config', 'config/dry-run.yaml', '--port', '0'], bot);
    try {
      const url = await until('sextant sim listening', () => /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(sim.output())?.[1], 60_000, sim.output);
      const daemon = start(['sextant', 'run', '--config', 'config/dry-run.yaml'], bot, { SEXTANT_SPOT_BASE_URL: url, SEXTANT_FUTURES_BASE_URL: url });
      try {
        await until('an order accepted', () => (daemon.output().includes('"msg":"order accepted"') ? true : undefined), 90_000, daemon.output);
        // The commands that talk to it find it from the user folder without --config (config/dry-run.yaml).
        expect(ok('npx', ['sextant', 'status'], bot)).toMatch(
          new RegExp(`^mode +dry-run on .*\\nup +\\d+ s \\(sextant ${version.replace(/\./g, '\\.')}\\)$`, 'm'),
        );
        expect(ok('npx', ['sextant', 'health'], bot)).toMatch(/^healthy: /);
        // Ctrl-C: the daemon stops cleanly (npm itself ends on the signal, so the daemon's own line says it).
        daemon.signal('SIGINT');
        await until('the daemon stopped', () => (/"msg":"stopped"/.test(daemon.output()) ? true : undefined), 30_000, daemon.output);
        await daemon.exited;
      } finally {
        daemon.kill();
      }
      expect(existsSync(join(bot, 'data', 'journal.sqlite'))).toBe(true);
    } finally {
      sim.signal('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const stopped = await Promise.race([sim.exited.then(() => true), new Promise<false>((r) => (timer = setTimeout(() => r(false), 10_000)))]);
      clearTimeout(timer);
      if (!stopped) sim.kill();
    }
  }, 600_000);
});
