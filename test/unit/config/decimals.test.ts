// Numbers written unquoted where decimal strings are expected: read exactly as written, or refused with how to write them.
import { describe, expect, it } from '@jest/globals';
import { ConfigError, formatIssue, locatedIssues, parseConfig } from '../../../src/config/load.js';
import { safeParseNumbersAsWritten } from '../../../src/config/number-text.js';
import marketMaker from '../../../examples/strategies/spot-market-maker/index.js';

function issuesOf(text: string): string[] {
  try {
    parseConfig(text, 'cfg.yaml', {});
  } catch (err) {
    if (err instanceof ConfigError) return err.issues.map(formatIssue);
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('decimal fields of the config written as numbers', () => {
  it('are read from the text as written, digit for digit, never through a float', () => {
    const { config } = parseConfig(
      [
        'risk:',
        '  maxNotionalPerOrder: 0.1',
        '  priceBandPct: 0.30000000000000004441',
        'sim:',
        '  accounts:',
        '    futuresCollateral: 12345678901234567890.123456789',
        '    spot: { USDT: 100000.50, BTC: 9007199254740993 }',
      ].join('\n'),
      'cfg.yaml',
      {},
    );
    expect(config.risk.maxNotionalPerOrder).toBe('0.1');
    // As a float this would be 0.30000000000000004 and 1.2345678901234567e+19; 2^53 + 1 would lose its last digit.
    expect(config.risk.priceBandPct).toBe('0.30000000000000004441');
    expect(config.sim.accounts.futuresCollateral).toBe('12345678901234567890.123456789');
    expect(config.sim.accounts.spot).toEqual({ USDT: '100000.50', BTC: '9007199254740993' });
    // Integers stay as they were; numbers where numbers are expected are untouched.
    expect(parseConfig('risk: { maxDrawdownPct: 7 }\nexchange: { rateLimit: { usableFraction: 0.8 } }\n', 'cfg.yaml', {}).config).toMatchObject({
      risk: { maxDrawdownPct: '7' },
      exchange: { rateLimit: { usableFraction: 0.8 } },
    });
  });

  it('a number not written as plain digits is refused with its line and column, saying to quote it', () => {
    const out = issuesOf('risk:\n  maxNotionalPerOrder: 1e-3\n  priceBandPct: .5\n  outlierPct: -0.5\n');
    expect(out).toEqual([
      expect.stringMatching(
        /^cfg\.yaml:2:24: risk\.maxNotionalPerOrder: a number where text is expected: write it quoted, as plain digits, e.g\. "0\.001" .*1e-3 is not/,
      ),
      expect.stringMatching(/^cfg\.yaml:3:17: risk\.priceBandPct: a number where text is expected: write it quoted, as plain digits, e\.g\. "0\.5"/),
      // Read as written, then refused by the field's own rule.
      'cfg.yaml:4:15: risk.outlierPct: expected a non-negative decimal, e.g. "0.001"',
    ]);
  });
});

describe('strategy params written as numbers where the strategy expects decimal strings', () => {
  const text = (p: ReadonlyArray<PropertyKey>) => (({ size: '0.002', maxInventory: '0.020', bad: '1e-3' }) as Record<string, string>)[String(p[0])];

  it("are handed to the strategy's schema as the text written; numbers it expects stay numbers", () => {
    const r = safeParseNumbersAsWritten(marketMaker.params, { halfSpreadBps: 6, size: 0.002, maxInventory: 0.02 }, text);
    expect(r.success).toBe(true);
    expect(r.input).toEqual({ halfSpreadBps: 6, size: '0.002', maxInventory: '0.020' });
    if (r.success) expect(r.data).toMatchObject({ halfSpreadBps: 6, size: '0.002', maxInventory: '0.020' });
  });

  it('a number not from the file, or not plain digits, is refused as the schema says, located in the file', () => {
    const r = safeParseNumbersAsWritten(marketMaker.params, { size: 1e-3, halfSpreadBps: 6, maxInventory: 0.02 }, (p) =>
      p[0] === 'size' ? '1e-3' : undefined,
    );
    expect(r.success).toBe(false);
    if (r.success) return;
    const located = locatedIssues(r.issues, { file: 'cfg.yaml', base: ['strategies', 0, 'params'] }).map(formatIssue);
    expect(located).toEqual([
      expect.stringMatching(/^cfg\.yaml: strategies\[0\]\.params\.size: a number where text is expected: write it quoted/),
      // No source text for it: the strategy's own message.
      expect.stringMatching(/^cfg\.yaml: strategies\[0\]\.params\.maxInventory: Invalid input: expected string, received number/),
    ]);
  });
});

describe('unquoted decimals under a YAML alias', () => {
  it('params shared through an anchor are read from their source text in every instance', async () => {
    const { parseConfig: parse } = await import('../../../src/config/load.js');
    const text = [
      'sim: { instruments: [&btc { surface: spot, symbol: BTCUSDT_SPBL, base: BTC, quote: USDT, priceDecimals: 2, sizeDecimals: 6, minSize: 0.0001, maxSize: 100, makerFeeRate: 0.001, takerFeeRate: 0.001, startPrice: 90000.5 }, *btc] }',
      '',
    ].join('\n');
    const loaded = parse(text, 'alias.yaml', {});
    expect(loaded.config.sim.instruments!.map((i) => i.minSize)).toEqual(['0.0001', '0.0001']);
    expect(loaded.config.sim.instruments![1]!.startPrice).toBe('90000.5');
  });
});
