// Loading TypeScript strategies without loader hooks: compiled in one module that shares this process's modules,
// with each file's own import.meta, errors at the .ts lines, a cache reused only while everything it was made
// from is unchanged, and nothing written where nothing can be. Runs the built loader in child processes.
import { existsSync, mkdtempSync, readFileSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from '@jest/globals';
import { files, inChild, strategyPackage } from './loader-child.js';

const tmp = () => realpathSync(mkdtempSync(join(tmpdir(), 'sextant-loader-')));

/** A folder strategy: index.ts with a local TypeScript file, JSON files (one imported without its attribute, as
 * TypeScript let one write it) and a text file read next to it. */
function folderStrategy(root: string): string {
  return files(strategyPackage(root), {
    'strategies/folder/index.ts': [
      "import { readFileSync } from 'node:fs';",
      "import { Decimal, defineStrategy, z } from 'sextant/strategy';",
      "import { gridUrl, level } from './grid.js';",
      "import levels from './levels.json' with { type: 'json' };",
      "import limits from './limits.json';",
      '',
      'interface Probe { notes: string }',
      "const probe: Probe = { notes: readFileSync(new URL('./notes.txt', import.meta.url), 'utf8') };",
      "const def = defineStrategy({ name: 'folder', params: z.strictObject({}) });",
      'export default Object.assign(def, {',
      '  probe: { ...probe, Decimal, level: level(levels[1]!), limits, url: import.meta.url, dirname: import.meta.dirname, filename: import.meta.filename, gridUrl },',
      '});',
      '',
    ].join('\n'),
    'strategies/folder/grid.ts': [
      'export const gridUrl: string = import.meta.url;',
      'export function level(n: number): number {',
      '  return n * 2;',
      '}',
      '',
    ].join('\n'),
    'strategies/folder/levels.json': '[1, 5, 9]\n',
    'strategies/folder/limits.json': '{ "max": 3 }\n',
    'strategies/folder/notes.txt': 'beside index.ts\n',
  });
}

describe('loading a TypeScript strategy', () => {
  it("compiles a folder strategy: sextant/strategy is the process's own module, import.meta names each file", () => {
    const root = folderStrategy(tmp());
    const out = inChild(
      [
        `const d = await loadStrategy('folder', [${JSON.stringify(join(root, 'strategies'))}]);`,
        'const { Decimal, ...probe } = d.probe;',
        'Object.assign(out, { name: d.name, sameDecimal: Decimal === api.Decimal, sameZod: typeof d.params.safeParse, probe });',
      ].join('\n'),
      [join(root, 'cache')],
    );
    const dir = join(root, 'strategies', 'folder');
    expect(out).toEqual({
      name: 'folder',
      sameDecimal: true,
      sameZod: 'function',
      probe: {
        notes: 'beside index.ts\n',
        level: 10,
        limits: { max: 3 },
        url: pathToFileURL(join(dir, 'index.ts')).href,
        dirname: dir,
        filename: join(dir, 'index.ts'),
        gridUrl: pathToFileURL(join(dir, 'grid.ts')).href,
      },
    });
  });

  it("loads the shipped strategies (sextant/strategy as the package's own export), each once per process", () => {
    const cache = join(tmp(), 'cache');
    const out = inChild(
      [
        "const d = await loadStrategy('futures-grid', ['strategies']);",
        "const b = await loadStrategy('bench-watch', ['bench/strategies']);",
        "const again = await loadStrategy('futures-grid', ['strategies']);",
        'Object.assign(out, { names: [d.name, b.name], same: again === d });',
      ].join('\n'),
      [cache],
    );
    expect(out).toEqual({ names: ['futures-grid', 'bench-watch'], same: true });
  });

  // A folder strategy that throws where THROW_AT says: while loading (in index.ts, or in a file it imports), or in a hook.
  const thrower = {
    'strategies/thrower/index.ts': [
      "import { defineStrategy, z } from 'sextant/strategy';",
      "import { check } from './check.js';",
      "const mode: string = process.env.THROW_AT ?? 'hook';",
      "if (mode === 'load') {",
      "  throw new Error('thrown while loading');",
      '}',
      'check(mode);',
      'export default defineStrategy({',
      "  name: 'thrower',",
      '  params: z.strictObject({}),',
      '  onMarket() {',
      "    throw new Error('thrown in a hook');",
      '  },',
      '});',
      '',
    ].join('\n'),
    'strategies/thrower/check.ts': "export function check(mode: string): void {\n  if (mode === 'check') throw new Error('thrown in a file it imports');\n}\n",
  };
  /** Loads `thrower` with THROW_AT set to each of `modes`, each in a new process: the load error or the hook's stack. */
  const throwing = (root: string, cache: string[], modes: string[]) =>
    modes.map((mode) => {
      const out = inChild(
        `const d = await loadStrategy('thrower', [${JSON.stringify(join(root, 'strategies'))}]);\ntry { d.onMarket(); } catch (err) { out.stack = err.stack; }`,
        cache,
        { env: { THROW_AT: mode } },
      );
      return out.error ?? String(out.stack).split('\n').slice(0, 2).join('\n');
    });

  it("errors show the strategy's own file and line: thrown while loading, and thrown in a hook", () => {
    const root = files(strategyPackage(tmp()), thrower);
    const [index, check] = [join(root, 'strategies', 'thrower', 'index.ts'), join(root, 'strategies', 'thrower', 'check.ts')];
    // Compiled by the first, from the cache after.
    expect(throwing(root, [join(root, 'cache')], ['load', 'load', 'check', 'hook'])).toEqual([
      `${index}: cannot load: thrown while loading (at ${index}:5:9)`,
      `${index}: cannot load: thrown while loading (at ${index}:5:9)`,
      `${index}: cannot load: thrown in a file it imports (at ${check}:2:31)`,
      `Error: thrown in a hook\n    at Object.onMarket (${index}:12:11)`,
    ]);
  });

  it('with no cache folder that can be written: nothing is written, it loads all the same, a load error still names the .ts line', () => {
    const root = files(strategyPackage(tmp()), thrower);
    const blocked = join(root, 'not-a-folder');
    writeFileSync(blocked, '');
    const [index, check] = [join(root, 'strategies', 'thrower', 'index.ts'), join(root, 'strategies', 'thrower', 'check.ts')];
    const [load, imported, hook] = throwing(root, [join(blocked, 'cache'), join(blocked, 'tmp')], ['load', 'check', 'hook']);
    expect({ load, imported }).toEqual({
      load: `${index}: cannot load: thrown while loading (at ${index}:5:9)`,
      imported: `${index}: cannot load: thrown in a file it imports (at ${check}:2:31)`,
    });
    // A hook's frames are the compiled module's (Node maps none for a data: URL module), named after the file.
    expect(hook).toMatch(new RegExp(`^Error: thrown in a hook\n    at Object.onMarket \\(${pathToFileURL(index).href}\\.compiled\\.mjs:\\d+:\\d+\\)$`));
    expect(readdirSync(root).sort()).toEqual(['node_modules', 'not-a-folder', 'package.json', 'strategies']);
    expect(readdirSync(join(root, 'strategies', 'thrower')).sort()).toEqual(['check.ts', 'index.ts']);
  });

  it('a cached module is reused while its files and imports are unchanged, and compiled again when one changes', () => {
    const root = files(strategyPackage(tmp()), {
      'strategies/cached/index.ts':
        "import { tag } from './part.js';\nimport { dep } from 'dep';\nexport default { name: 'cached', params: { safeParse: () => ({ success: true, data: {} }) }, tag: tag + '/' + dep };\n",
      'strategies/cached/part.ts': "export const tag: string = 'part-v1';\n",
      'node_modules/dep/package.json': '{ "name": "dep", "type": "module", "exports": "./a.js" }\n',
      'node_modules/dep/a.js': "export const dep = 'a';\n",
      'node_modules/dep/b.js': "export const dep = 'b';\n",
    });
    const cache = join(root, 'cache');
    const tag = () => inChild(`out.tag = (await loadStrategy('cached', [${JSON.stringify(join(root, 'strategies'))}])).tag;`, [cache]).tag;
    const modules = () => readdirSync(cache).filter((f) => f.endsWith('.mjs'));

    expect(tag()).toBe('part-v1/a');
    expect(modules()).toHaveLength(1);
    // The cached module is what loads (changed here behind the loader's back, which nothing else does).
    const compiled = join(cache, modules()[0]!);
    writeFileSync(compiled, readFileSync(compiled, 'utf8').replace('"part-v1"', '"from the cache"'));
    expect(tag()).toBe('from the cache/a');

    files(root, { 'strategies/cached/part.ts': "export const tag: string = 'part-v2';\n" });
    expect(tag()).toBe('part-v2/a');
    expect(modules()).toHaveLength(1);
    expect(existsSync(compiled)).toBe(false);

    // Where an import leads is part of what the module was made from: the package now exports another file.
    files(root, { 'node_modules/dep/package.json': '{ "name": "dep", "type": "module", "exports": "./b.js" }\n' });
    expect(tag()).toBe('part-v2/b');
  });

  it('TypeScript that does not compile, and an import of nothing, are refused naming the file and line', () => {
    const root = files(strategyPackage(tmp()), {
      'strategies/broken.ts': "export default {\n  name: 'broken' +,\n};\n",
      'strategies/missing.ts': "import { defineStrategy } from 'sextant/strategy';\nimport { x } from './nowhere.js';\nexport default defineStrategy(x);\n",
    });
    const dir = join(root, 'strategies');
    const out = inChild(
      [`for (const n of ['broken', 'missing']) { try { await loadStrategy(n, [${JSON.stringify(dir)}]); } catch (err) { out[n] = err.message; } }`].join('\n'),
      [join(root, 'cache')],
    );
    expect(out).toEqual({
      broken: `${join(dir, 'broken.ts')}: cannot compile: ${join(dir, 'broken.ts')}:2:19: Unexpected ","`,
      missing: `${join(dir, 'missing.ts')}: cannot compile: ${join(dir, 'missing.ts')}:2:19: Cannot find module '${join(dir, 'nowhere.js')}' imported from ${join(dir, 'missing.ts')}`,
    });
  });

  it('a .ts file outside an ES module package loads as an ES module; CommonJS names are refused with the reason', () => {
    const dir = tmp();
    files(dir, {
      'plain.ts': "const n: number = 2;\nexport default { name: 'plain', params: { safeParse: () => ({ success: true, data: n }) } };\n",
      'old.ts': "const fs = require('node:fs');\nexport default { name: 'old', params: { safeParse: () => ({ success: true, data: fs }) } };\n",
      'older.ts': "const here: string = __dirname;\nexport default { name: 'older', params: { safeParse: () => ({ success: true, data: here }) } };\n",
    });
    const out = inChild(
      `for (const n of ['plain', 'old', 'older']) { try { out[n] = (await loadStrategy(n, [${JSON.stringify(dir)}])).name; } catch (err) { out[n] = err.message; } }`,
      [join(dir, 'cache')],
    );
    const hint =
      ' (TypeScript strategies load as ES modules: import instead of require, import.meta.url and import.meta.dirname instead of __filename and __dirname)';
    expect(out).toEqual({
      plain: 'plain',
      old: `${join(dir, 'old.ts')}: cannot load: Dynamic require of "node:fs" is not supported (at ${join(dir, 'old.ts')}:1:12)${hint}`,
      older: `${join(dir, 'older.ts')}: cannot load: __dirname is not defined in ES module scope (at ${join(dir, 'older.ts')}:1:22)${hint}`,
    });
  });
});
