// loadCheckedConfig: the one way a config file is loaded, with strategies (everything `run` refuses) or without.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { loadCheckedConfig } from '../../../src/app/config-check.js';
import { formatIssue } from '../../../src/config/load.js';

const dir = mkdtempSync(join(tmpdir(), 'sextant-load-'));

function file(name: string, lines: string[]): string {
  const path = join(dir, name);
  writeFileSync(path, [...lines, ''].join('\n'));
  return path;
}

describe('loadCheckedConfig', () => {
  const unknownStrategy = () =>
    file('strategy.yaml', ['sim: { embedded: true }', 'strategies:', '  - { id: a, name: no-such-strategy, symbols: [BTCUSDT_SPBL] }']);

  it('with strategies: a strategy that cannot be loaded is refused', async () => {
    const path = unknownStrategy();
    const result = await loadCheckedConfig(path);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.issues.map(formatIssue)).toEqual([
      expect.stringMatching(new RegExp(`^${path}:3:20: strategies\\[0\\]\\.name: strategy "no-such-strategy" not found`)),
    ]);
  });

  it('without strategies (strategies: false): the same file loads, params as written', async () => {
    const result = await loadCheckedConfig(unknownStrategy(), { strategies: false });
    expect(result.ok && { notes: result.check.notes, name: result.check.loaded.config.strategies[0]!.name }).toEqual({ notes: [], name: 'no-such-strategy' });
  });

  it('a schema error with strategies: the rest of the file is checked too; without: the schema errors only', async () => {
    const path = file('both.yaml', ['mode: nope', 'sim: { embedded: true }', 'strategies:', '  - { id: a, name: no-such-strategy, symbols: [BTCUSDT_SPBL] }']);
    const all = await loadCheckedConfig(path);
    expect(!all.ok && all.issues.map((issue) => issue.path)).toEqual(['mode', 'strategies[0].name']);
    const schemaOnly = await loadCheckedConfig(path, { strategies: false });
    expect(!schemaOnly.ok && schemaOnly.issues.map((issue) => issue.path)).toEqual(['mode']);
  });

  it('checks symbols against the list chosen for the loaded config', async () => {
    const path = file('symbols.yaml', ['sim: { embedded: true }']);
    let askedFor: string | undefined;
    const result = await loadCheckedConfig(path, { instrumentsFor: (loaded) => ((askedFor = loaded.file), { why: 'no list here' }) });
    expect({ ok: result.ok, askedFor }).toEqual({ ok: true, askedFor: path });
  });

  it("reads the environment given, not the process's", async () => {
    const path = file('env.yaml', []);
    const result = await loadCheckedConfig(path, { strategies: false, env: { SEXTANT_SPOT_BASE_URL: 'http://127.0.0.1:1' } });
    expect(result.ok && result.check.loaded.config.exchange.spotBaseUrl).toBe('http://127.0.0.1:1');
  });
});
