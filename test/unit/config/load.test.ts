import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { ConfigError, formatIssue, loadConfig, parseConfig } from '../../../src/config/load.js';

function issuesOf(text: string, env: Record<string, string> = {}): string[] {
  try {
    parseConfig(text, 'cfg.yaml', env);
  } catch (err) {
    if (err instanceof ConfigError) return err.issues.map(formatIssue);
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('config validation', () => {
  it('fills every default from an empty file', () => {
    const { config, credentials } = parseConfig('', 'cfg.yaml', {});
    expect(config.mode).toBe('live');
    expect(config.exchange.rateLimit.futures.ip).toEqual({ budget: 1000, windowMs: 10000 });
    expect(config.exchange.rateLimit.spot.uid).toEqual({ budget: 500, windowMs: 10000 });
    expect(config.exchange.rateLimit.orderRequests).toEqual({ budget: 10, windowMs: 1000 });
    expect(credentials).toBeUndefined();
  });

  it('reports every error at once, with file, line, column and path', () => {
    const text = [
      'mode: paper', //                      1: bad enum
      'exchange:', //                        2
      '  timeoutMs: "fast"', //              3: wrong type
      '  spotBaseUrll: http://x', //         4: unknown key (typo)
      '  rateLimit:', //                     5
      '    futures:', //                     6
      '      ip: { budget: -5 }', //         7: negative
      'log:', //                             8
      '  level: loud', //                    9: bad enum
    ].join('\n');
    const out = issuesOf(text);
    expect(out).toHaveLength(5);
    expect(out).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^cfg\.yaml:1:7: mode: /),
        expect.stringMatching(/^cfg\.yaml:3:14: exchange\.timeoutMs: .*number/),
        expect.stringMatching(/^cfg\.yaml:4:3: exchange\.spotBaseUrll: unknown key/),
        expect.stringMatching(/^cfg\.yaml:7:\d+: exchange\.rateLimit\.futures\.ip\.budget: /),
        expect.stringMatching(/^cfg\.yaml:9:10: log\.level: /),
      ]),
    );
  });

  it('refuses duplicate strategy ids at the second one, naming the first', () => {
    const out = issuesOf(
      ['strategies:', '  - { id: mm, name: a, symbols: [X] }', '  - { id: grid, name: b, symbols: [Y] }', '  - { id: mm, name: c, symbols: [Z] }'].join('\n'),
    );
    expect(out).toEqual(['cfg.yaml:4:11: strategies[2].id: duplicate strategy id "mm": strategies[0] has it too (an id tags client ids, logs and metrics)']);
  });

  it('lists the errors in file order, and keeps what else can be checked (ConfigError.partial)', () => {
    const text =
      'strategies:\n  - { id: a, name: x, symbols: [] }\n  - { id: b, name: y, symbols: [Y], params: { size: 0.5 } }\nmode: paper\ndaemon: { reconcileCron: "*/5 * *" }\n';
    let error: ConfigError | undefined;
    try {
      parseConfig(text, 'cfg.yaml', {});
    } catch (err) {
      error = err as ConfigError;
    }
    expect(error!.issues.map(formatIssue)).toEqual([
      'cfg.yaml:2:32: strategies[0].symbols: Too small: expected array to have >=1 items',
      expect.stringMatching(/^cfg\.yaml:4:7: mode: /),
    ]);
    const partial = error!.partial!;
    // The strategy in error is skipped at its own index; the rest keeps its values (the mode in error: its default).
    expect([...partial.skipStrategies]).toEqual([0]);
    expect(partial.loaded.config.mode).toBe('live');
    expect(partial.loaded.config.strategies[1]).toMatchObject({ id: 'b', name: 'y', symbols: ['Y'], params: { size: 0.5 } });
    expect(partial.loaded.config.daemon.reconcileCron).toBe('*/5 * *');
    expect(partial.loaded.source!.numberText(['strategies', 1, 'params', 'size'])).toBe('0.5');
    expect(partial.loaded.source!.locate(['daemon', 'reconcileCron'])).toEqual({ line: 5, col: 26 });
  });

  it('reports YAML syntax errors with their line', () => {
    const out = issuesOf('mode: live\nexchange:\n  timeoutMs: [1, 2\n');
    expect(out[0]).toMatch(/^cfg\.yaml:\d+:\d+: \(root\): YAML: /);
  });

  it('refuses secrets in YAML without echoing them', () => {
    const out = issuesOf('exchange:\n  apiSecret: hunter2-canary\n');
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(/^cfg\.yaml:2:3: exchange\.apiSecret: secrets never live in YAML/);
    expect(out.join('\n')).not.toContain('hunter2-canary');
  });

  it('takes base URLs from the environment and names the variable when it is bad', () => {
    const { config } = parseConfig('', 'cfg.yaml', { SEXTANT_SPOT_BASE_URL: 'http://127.0.0.1:9', SEXTANT_FUTURES_BASE_URL: 'http://127.0.0.1:10' });
    expect(config.exchange.spotBaseUrl).toBe('http://127.0.0.1:9');
    expect(config.exchange.futuresBaseUrl).toBe('http://127.0.0.1:10');
    expect(issuesOf('', { SEXTANT_SPOT_BASE_URL: 'ftp://x' })[0]).toMatch(/^environment: SEXTANT_SPOT_BASE_URL: /);
  });
});

describe('secrets', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sextant-secrets-'));

  it('reads them from variables or from *_FILE secret files (trailing newline dropped)', () => {
    writeFileSync(join(dir, 'secret'), 's3cr3t-from-file\n');
    const { credentials } = parseConfig('', 'cfg.yaml', { SEXTANT_API_KEY: 'k', SEXTANT_API_SECRET_FILE: join(dir, 'secret'), SEXTANT_API_PASSPHRASE: 'p' });
    expect(credentials).toEqual({ apiKey: 'k', apiSecret: 's3cr3t-from-file', passphrase: 'p' });
  });

  it('refuses incomplete sets, both forms at once and unreadable files, never printing a value', () => {
    const out = issuesOf('', {
      SEXTANT_API_KEY: 'canary-key',
      SEXTANT_API_KEY_FILE: join(dir, 'secret'),
      SEXTANT_API_SECRET_FILE: join(dir, 'missing'),
    });
    expect(out).toEqual([
      'environment: SEXTANT_API_KEY: set either SEXTANT_API_KEY or SEXTANT_API_KEY_FILE, not both',
      `environment: SEXTANT_API_SECRET_FILE: cannot read secret file ${join(dir, 'missing')}: ENOENT`,
    ]);
    expect(issuesOf('', { SEXTANT_API_KEY: 'canary-key' })[0]).toMatch(/incomplete: set SEXTANT_API_SECRET and SEXTANT_API_PASSPHRASE/);
  });

  it('loads a file from disk and names a missing one', () => {
    const f = join(dir, 'ok.yaml');
    writeFileSync(f, 'mode: dry-run\n');
    expect(loadConfig(f, {}).config.mode).toBe('dry-run');
    expect(() => loadConfig(join(dir, 'nope.yaml'), {})).toThrow(/nope\.yaml: \(root\): cannot read file: ENOENT/);
  });

  it('the shipped configs are valid', () => {
    for (const f of ['config/default.yaml', 'config/live.example.yaml']) expect(() => loadConfig(f, {})).not.toThrow();
  });

  it('the order-rate breaker of the shipped config trips on a runaway, not on its own peak', () => {
    // `npm run reliability -- rate` measured 91–105 orders in the busiest minute of config/default.yaml: with the
    // old default (120) a few retries latched a halt. Headroom of at least 2× that peak.
    const risk = loadConfig('config/default.yaml', {}).config.risk;
    expect(risk.maxOrdersPerMinute).toBeGreaterThanOrEqual(2 * 105);
  });
});

describe('polling plan', () => {
  it('the default plan fits; a faster one is refused, naming the poll to slow', async () => {
    const { checkPollingPlan } = await import('../../../src/app/poll-plan.js');
    const { readFileSync } = await import('node:fs');
    const text = readFileSync('config/default.yaml', 'utf8');
    expect(checkPollingPlan(parseConfig(text, 'default.yaml', {}))).toEqual([]);
    const fast = parseConfig(text.replace('tickersMs: 1000', 'tickersMs: 100'), 'fast.yaml', {});
    // The futures contract is read alone (F12, weight 1): only the spot share runs over.
    const issues = checkPollingPlan(fast);
    expect(issues.map((i) => i.path)).toEqual(['daemon.polls.tickersMs']);
    expect(issues[0]!.message).toMatch(
      /^polling uses 232 IP weight per 10000 ms on spot, more than its share 225 .*slow down tickersMs \(200 per window: S11 1×1, S13 1×1 per cycle\)$/,
    );
    // All contracts at once (F2, weight 40) ten times a second is far over the futures share.
    const f2 = checkPollingPlan(
      parseConfig(text.replace('tickersMs: 1000', 'tickersMs: 100').replace('exchange:', 'exchange:\n  futuresTickers: F2'), 'fast.yaml', {}),
    );
    expect(f2.map((i) => i.path)).toEqual(['daemon.polls.tickersMs', 'daemon.polls.tickersMs']);
    expect(f2[1]!.message).toMatch(/^polling uses 4031 IP weight per 10000 ms on futures, more than its share 450/);
  });
});
