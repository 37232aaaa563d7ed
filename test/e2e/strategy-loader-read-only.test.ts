// The strategy loader (built, in dist/) loads .ts strategies where no temp dir can be written, as in the
// documented read-only container: a child process whose TMPDIR lies below a regular file (ENOTDIR for any write;
// tests run as root, so permissions would not stop one).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from '@jest/globals';

describe('strategy loader without a writable temp dir', () => {
  it('loads a .ts strategy from the strategy folders and the shipped ones', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sextant-ro-'));
    const blocker = join(dir, 'not-a-dir');
    writeFileSync(blocker, '');
    const strategies = join(dir, 'strategies');
    mkdirSync(strategies);
    // TypeScript-only syntax, so it must be compiled.
    writeFileSync(
      join(strategies, 'typed.ts'),
      [
        'interface Params { size: string }',
        'const params = { safeParse: (raw: unknown) => ({ success: true as const, data: raw as Params }) };',
        "export default { name: 'typed' as const, params };",
        '',
      ].join('\n'),
    );
    const child = [
      `import { loadStrategy } from ${JSON.stringify(pathToFileURL(resolve('dist/strategy/loader.js')).href)};`,
      `const dirs = [${JSON.stringify(strategies)}, ${JSON.stringify(resolve('strategies'))}];`,
      'const names = [];',
      "for (const n of ['typed', 'spot-market-maker']) names.push((await loadStrategy(n, dirs)).name);",
      'console.log(JSON.stringify(names));',
    ].join('\n');
    const tmp = join(blocker, 'tmp');
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', child], {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, TMPDIR: tmp, TMP: tmp, TEMP: tmp },
    });
    expect(r.stderr).toBe('');
    expect({ code: r.status, names: r.stdout.trim() }).toEqual({ code: 0, names: '["typed","spot-market-maker"]' });
  });
});
