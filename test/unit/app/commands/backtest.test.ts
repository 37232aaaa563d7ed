// `sextant backtest`: its time range options, and a sweep file in error reported like a config file.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { main } from '../../../../src/app/cli.js';
import { backtestRange } from '../../../../src/app/commands/backtest.js';

const dir = mkdtempSync(join(tmpdir(), 'sextant-backtest-cmd-'));

describe('backtestRange', () => {
  it('reads --data, --from and --to; leaves out what is not given', () => {
    expect(backtestRange({})).toEqual({});
    expect(backtestRange({ data: 'a.jsonl', from: '2026-01-05T00:00:00Z', to: '2026-01-05T00:05:00Z' })).toEqual({
      dataFile: 'a.jsonl',
      fromMs: 1767571200000,
      toMs: 1767571500000,
    });
  });

  it('names an option that is not a date', () => {
    expect(() => backtestRange({ to: 'soon' })).toThrow('--to: not a date: soon');
  });
});

describe('backtest --sweep', () => {
  it('a sweep file in error: every problem with its line, exit 1, nothing run', async () => {
    const config = join(dir, 'bt.yaml');
    writeFileSync(config, 'mode: backtest\n');
    const spec = join(dir, 'sweep.yaml');
    writeFileSync(spec, 'strategy: mm\nparams:\n  halfSpreadBps: []\n');
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(['node', 'sextant', 'backtest', '-c', config, '--sweep', spec, '--out', join(dir, 'out')], {
      out: (t) => void out.push(t),
      err: (t) => void err.push(t),
    });
    expect({ code, out, err }).toEqual({ code: 1, out: [], err: [`${spec}:3:18: params.halfSpreadBps: must be a non-empty list`, `1 error in ${spec}`] });
  });
});
