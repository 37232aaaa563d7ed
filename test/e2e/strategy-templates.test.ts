// `sextant new-strategy`'s every template, in a user folder `sextant init` wrote: the strategy it writes passes its
// own tests (`test-strategy`) and backtests as written with the config written beside it; `init` refuses a folder
// that is not empty, and `--force` adds only what is missing; `list-symbols` shows the simulator's instruments.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { TEMPLATES } from '../../src/app/commands/userdir.js';

const bin = resolve('bin/sextant.js');
const work = mkdtempSync(join(tmpdir(), 'sextant-templates-'));
const bot = join(work, 'bot');

function sextant(args: string[], cwd = bot, env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd, encoding: 'utf8', timeout: 120_000, env: { ...process.env, ...env } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('a user folder and the strategy templates', () => {
  it('init writes the folder; a second init refuses it; --force adds only what is missing', () => {
    expect(sextant(['init', 'bot'], work).code).toBe(0);
    const again = sextant(['init', 'bot'], work);
    expect({ code: again.code, err: again.err }).toEqual({
      code: 1,
      err: expect.stringMatching(/^init: .*bot is not empty \(.*\): name a new folder, or --force/),
    });
    const readme = join(bot, 'README.md');
    writeFileSync(readme, 'mine\n');
    rmSync(join(bot, 'config', 'dry-run.yaml'));
    const forced = sextant(['init', '--force', '.']);
    expect(forced.code).toBe(0);
    expect(forced.out).toMatch(/^wrote 1 files in .*:\n {2}config\/dry-run\.yaml\n/);
    expect(readFileSync(readme, 'utf8')).toBe('mine\n');
  });

  it.each(Object.keys(TEMPLATES))('new-strategy --template %s: its tests pass and its backtest runs as written', (template) => {
    const name = `my-${template}`;
    const made = sextant(['new-strategy', name, '--template', template]);
    expect(made.code).toBe(0);
    const source = readFileSync(join(bot, 'strategies', name, 'index.ts'), 'utf8');
    expect(source).toContain(`name: '${name}'`);
    const tested = sextant(['test-strategy', name]);
    expect({ code: tested.code, failed: /^ℹ fail 0$/m.test(tested.out), passed: /^ℹ pass [1-9]/m.test(tested.out) }).toEqual({
      code: 0,
      failed: true,
      passed: true,
    });
    const run = sextant(['backtest', '--config', `config/${name}.backtest.yaml`]);
    expect({ code: run.code, err: run.err }).toEqual({ code: 0, err: '' });
    expect(run.out).toMatch(new RegExp(`-> reports/${name}\\n`));
    expect(existsSync(join(bot, 'reports', name, 'report.json'))).toBe(true);
    // The same name twice is refused, nothing overwritten.
    const twice = sextant(['new-strategy', name, '--template', template]);
    expect({ code: twice.code, err: twice.err }).toEqual({ code: 1, err: `new-strategy: strategies/${name} exists already: choose another name\n` });
  });

  it('an unknown template is refused, naming the templates; a name that cannot be an instance id too; nothing written', () => {
    expect(sextant(['new-strategy', 'x', '--template', 'nope'])).toEqual({
      code: 1,
      out: '',
      err: `new-strategy: unknown template "nope" (one of ${Object.keys(TEMPLATES).join(', ')})\n`,
    });
    for (const name of ['my.ema', 'a'.repeat(25), '../up', 'Upper'])
      expect(sextant(['new-strategy', name])).toEqual({
        code: 1,
        out: '',
        err: `new-strategy: strategy name ${JSON.stringify(name)}: 1 to 24 lower-case letters, digits, dashes and underscores, starting with a letter or digit\n`,
      });
    // Its backtest config there already: refused before anything is written.
    writeFileSync(join(bot, 'config', 'taken.backtest.yaml'), 'mine\n');
    expect(sextant(['new-strategy', 'taken'])).toEqual({
      code: 1,
      out: '',
      err: 'new-strategy: config/taken.backtest.yaml exists already: choose another name\n',
    });
    expect(existsSync(join(bot, 'strategies', 'taken'))).toBe(false);
  });

  it('test-strategy: a test still running after --timeout fails, named by its file; the compiled files are gone after', () => {
    const hang = join(bot, 'strategies', 'my-bars', 'hang.test.ts');
    writeFileSync(hang, "import { it } from 'node:test';\n\nvoid it('hangs', () => new Promise(() => setInterval(() => {}, 1000)));\n");
    try {
      // Its temp dir one of its own, to see that nothing is left there.
      const temp = mkdtempSync(join(work, 'tmp-'));
      const r = sextant(['test-strategy', 'my-bars', '--timeout', '500'], bot, { TMPDIR: temp });
      expect({
        code: r.code,
        timedOut: r.out.includes("'test timed out after 500ms'"),
        named: /strategies\/my-bars\/hang\.test\.(mjs|ts)\b/.test(r.out),
      }).toEqual({
        code: 1,
        timedOut: true,
        named: true,
      });
      expect(readdirSync(temp)).toEqual([]);
    } finally {
      rmSync(hang);
    }
  });

  it('list-strategies: a name with both a file and a folder is listed as the loader finds it (the file), the folder shadowed', () => {
    mkdirSync(join(bot, 'strategies', 'dup'), { recursive: true });
    const def = (what: string) =>
      `import { defineStrategy, z } from 'sextant/strategy';\nexport default defineStrategy({ name: 'dup', description: '${what}', params: z.strictObject({}) });\n`;
    writeFileSync(join(bot, 'strategies', 'dup.ts'), def('the file'));
    writeFileSync(join(bot, 'strategies', 'dup', 'index.ts'), def('the folder'));
    try {
      const r = sextant(['list-strategies']);
      expect(r.code).toBe(0);
      expect(r.out).toMatch(/^dup {2}strategies\/dup\.ts {2}loads\n {2}the file\n/m);
      expect(r.out).not.toContain('the folder');
    } finally {
      rmSync(join(bot, 'strategies', 'dup.ts'));
      rmSync(join(bot, 'strategies', 'dup'), { recursive: true });
    }
  });

  it("list-symbols --sim: the simulator's instruments with tick, step, minimum size and fees", () => {
    const r = sextant(['list-symbols', '--sim']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(
      /^\d+ symbols, the simulator's instruments \(its built-in list\):\nsymbol +surface +base\/quote +tick +step +min size +maker fee +taker fee +trading\n/,
    );
    expect(r.out).toMatch(/^BTCUSDT_SPBL +spot +BTC\/USDT +0\.1 +0\.000001 +\S+ +\S+ +\S+ +yes$/m);
    expect(r.out).toMatch(/^cmt_ethusdt +futures +ETH\/USDT /m);
  });

  it("list-symbols: the venue's, read now from its public endpoints (here `sextant sim` stands in for it)", async () => {
    const sim = spawn(process.execPath, [bin, 'sim', '--config', 'config/dry-run.yaml', '--port', '0'], { cwd: bot });
    let log = '';
    sim.stdout.on('data', (d: Buffer) => (log += String(d)));
    const closed = new Promise((r) => sim.on('close', r));
    try {
      let url: string | undefined;
      for (let i = 0; i < 200 && !url; i++) {
        await new Promise((r) => setTimeout(r, 100));
        url = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(log)?.[1];
      }
      const r = sextant(['list-symbols', '--surface', 'futures'], bot, { SEXTANT_SPOT_BASE_URL: url!, SEXTANT_FUTURES_BASE_URL: url! });
      expect(r.code).toBe(0);
      expect(r.out).toMatch(new RegExp(`^\\d+ symbols, the venue's instruments \\(${url} \\(spot\\), ${url} \\(futures\\)\\), read just now:\n`));
      expect(r.out).toMatch(/^cmt_btcusdt +futures +BTC\/USDT +\S+ +\S+ +\S+ +\S+ +\S+ +yes$/m);
      expect(r.out).not.toMatch(/ spot /);
    } finally {
      sim.kill('SIGTERM');
      await closed;
    }
    // No venue there: said plainly, with the way to the simulator's list.
    const gone = sextant(['list-symbols'], bot, { SEXTANT_SPOT_BASE_URL: 'http://127.0.0.1:9', SEXTANT_FUTURES_BASE_URL: 'http://127.0.0.1:9' });
    expect({ code: gone.code, err: gone.err }).toEqual({
      code: 1,
      err: expect.stringMatching(/^list-symbols: cannot read the venue's instruments: .*\(--sim lists the simulator's\)\n$/),
    });
  });
});
