// The sweep spec file: read as YAML, checked by its schema, every problem with its line and path.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { ConfigError, formatIssue } from '../../../src/config/load.js';
import { readSweepSpec } from '../../../src/config/sweep-spec.js';

const dir = mkdtempSync(join(tmpdir(), 'sextant-sweep-spec-'));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

function problems(path: string): string[] {
  try {
    readSweepSpec(path);
  } catch (err) {
    if (err instanceof ConfigError) return err.issues.map(formatIssue);
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('readSweepSpec', () => {
  it('reads the strategy and the values of each param as YAML gives them', () => {
    const path = file('ok.yaml', 'strategy: mm-btc\nparams:\n  halfSpreadBps: [2, 5]\n  size: ["0.001", "0.002"]\n');
    expect(readSweepSpec(path)).toEqual({ strategy: 'mm-btc', params: { halfSpreadBps: [2, 5], size: ['0.001', '0.002'] } });
  });

  it('names every problem with its line and path', () => {
    const path = file('bad.yaml', 'params:\n  halfSpreadBps: []\n  size: 3\nextra: 1\n');
    expect(problems(path)).toEqual([
      `${path}:1:1: strategy: expected the id of a strategy instance`,
      `${path}:2:18: params.halfSpreadBps: must be a non-empty list`,
      `${path}:3:9: params.size: must be a non-empty list`,
      `${path}:4:1: extra: unknown key`,
    ]);
  });

  it('an empty file, a YAML syntax error and a missing file are each one problem', () => {
    const empty = file('empty.yaml', '');
    expect(problems(empty)).toEqual([`${empty}: (root): expected {strategy: <id>, params: {<name>: [values...]}}`]);
    const broken = file('broken.yaml', 'strategy: [\n');
    expect(problems(broken)).toEqual([expect.stringMatching(new RegExp(`^${broken}:\\d+:\\d+: \\(root\\): YAML: `))]);
    const missing = join(dir, 'missing.yaml');
    expect(problems(missing)).toEqual([`${missing}: (root): cannot read file: ENOENT`]);
  });
});
