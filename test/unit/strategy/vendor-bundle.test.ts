// The indicators library as the build bundles it (dist/vendor, named by `#trading-signals` at run time): the same
// exports as the package, computing the same values, and what the compiled strategy API hands out.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';

const root = join(import.meta.dirname, '..', '..', '..');

function inNode(code: string): unknown {
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', code], { cwd: root, encoding: 'utf8' }));
}

describe('the bundled indicators library', () => {
  it('exports what the package exports, and its indicators compute the same values', () => {
    const out = inNode(`
      const bundled = await import('./dist/vendor/trading-signals.js');
      const pkg = await import('trading-signals');
      const run = (m) => { const rsi = new m.RSI(3); const macd = new m.MACD(new m.EMA(3), new m.EMA(5), new m.EMA(2));
        for (const x of [10, 11, 10.5, 12, 13, 12.5, 14, 13, 15, 16]) { rsi.add(x); macd.add(x); }
        return [rsi.getResult(), macd.getResult().histogram]; };
      console.log(JSON.stringify({ bundled: Object.keys(bundled).sort(), pkg: Object.keys(pkg).sort(), a: run(bundled), b: run(pkg) }));
    `) as { bundled: string[]; pkg: string[]; a: number[]; b: number[] };
    expect(out.pkg.length).toBeGreaterThan(20);
    expect(out.bundled).toEqual(out.pkg);
    expect(out.a).toEqual(out.b);
  });

  it('is what the compiled strategy API hands out', () => {
    const out = inNode(`
      const api = await import('./dist/strategy/api.js');
      const bundled = await import('./dist/vendor/trading-signals.js');
      console.log(JSON.stringify({ same: api.RSI === bundled.RSI && api.SuperTrend === bundled.SuperTrend }));
    `) as { same: boolean };
    expect(out.same).toBe(true);
  });
});
