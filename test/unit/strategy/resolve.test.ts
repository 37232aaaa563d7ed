// The strategy compiler's import resolution against Node's own: for every kind of package (exports with
// conditions, patterns and null targets, imports, self-reference, legacy main, scopes, nested and linked
// node_modules), what a strategy's bare and `#` imports lead to is what import.meta.resolve gives in its folder.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, realpathSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import { dist, files } from './loader-child.js';

const js = (name: string) => `export default ${JSON.stringify(name)};\n`;
const json = (v: unknown) => `${JSON.stringify(v)}\n`;

/** A package tree with one of each shape, and the specifiers to resolve from `app/` and `app/nested/`. */
function tree(): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'sextant-resolve-')));
  files(root, {
    'app/package.json': json({
      name: 'app',
      type: 'module',
      exports: { '.': './main.js', './feature/*': './features/*.js', './features/private/*': null },
      imports: { '#config': { node: './config-node.js', default: './config.js' }, '#lib/*': './lib/*.js', '#dep': 'conditional' },
    }),
    'app/main.js': js('main'),
    'app/features/a.js': js('feature a'),
    'app/features/private/x.js': js('private'),
    'app/config-node.js': js('config node'),
    'app/config.js': js('config'),
    'app/lib/util.js': js('util'),
    'app/node_modules/conditional/package.json': json({
      name: 'conditional',
      exports: {
        '.': { types: './index.d.ts', require: './index.cjs', import: './index.mjs', default: './index.js' },
        './sub': { worker: './sub-worker.js', node: { import: './sub-node.mjs', default: './sub-node.js' }, default: './sub.js' },
        './pattern/*.js': './lib/*.mjs',
        './hidden': null,
        './fallback': [{ browser: './b.js' }, './fallback.js'],
        './custom': { custom: './custom.js', default: './not-custom.js' },
      },
    }),
    'app/node_modules/conditional/index.mjs': js('import'),
    'app/node_modules/conditional/index.cjs': 'module.exports = 1;\n',
    'app/node_modules/conditional/index.js': js('default'),
    'app/node_modules/conditional/sub-node.mjs': js('sub node'),
    'app/node_modules/conditional/lib/x.mjs': js('pattern x'),
    'app/node_modules/conditional/fallback.js': js('fallback'),
    'app/node_modules/conditional/custom.js': js('custom'),
    'app/node_modules/conditional/not-custom.js': js('not custom'),
    'app/node_modules/sync/package.json': json({ exports: { 'module-sync': './sync.js', default: './async.js' } }),
    'app/node_modules/sync/sync.js': js('sync'),
    'app/node_modules/sync/async.js': js('async'),
    'app/node_modules/sugar/package.json': json({ exports: './only.js' }),
    'app/node_modules/sugar/only.js': js('only'),
    'app/node_modules/legacy/package.json': json({ main: 'lib/entry' }),
    'app/node_modules/legacy/lib/entry.js': js('legacy'),
    'app/node_modules/legacy/extra/file.js': js('extra'),
    'app/node_modules/plain/package.json': json({}),
    'app/node_modules/plain/index.js': js('plain'),
    'app/node_modules/@scope/pkg/package.json': json({ exports: { '.': './s.js', './deep/*': './d/*' } }),
    'app/node_modules/@scope/pkg/s.js': js('scoped'),
    'app/node_modules/@scope/pkg/d/y.js': js('scoped deep'),
    'app/nested/node_modules/sugar/package.json': json({ exports: './nested.js' }),
    'app/nested/node_modules/sugar/nested.js': js('nested'),
    'outside/linked/package.json': json({ exports: './real.js' }),
    'outside/linked/real.js': js('linked'),
  });
  symlinkSync(join(root, 'outside', 'linked'), join(root, 'app', 'node_modules', 'linked'), 'dir');
  return root;
}

const SPECIFIERS = [
  'app',
  'app/feature/a',
  'app/features/private/x',
  '#config',
  '#lib/util',
  '#dep',
  '#missing',
  'conditional',
  'conditional/sub',
  'conditional/pattern/x.js',
  'conditional/hidden',
  'conditional/fallback',
  'conditional/custom',
  'conditional/absent',
  'sync',
  'sugar',
  'sugar/only.js',
  'legacy',
  'legacy/extra/file.js',
  'plain',
  '@scope/pkg',
  '@scope/pkg/deep/y.js',
  'linked',
  'not-installed',
  'fs',
  'node:fs',
  'node:test',
];

/** Each specifier as Node resolves it from a module in `folder`, and as the strategy compiler does: as JSON. */
function compare(folder: string, args: string[] = []): Array<{ specifier: string; node: string; ours: string }> {
  const script = [
    `const { resolveImport } = await import(${dist('strategy/resolve.js')});`,
    `const importer = ${JSON.stringify(join(folder, 'strategy.ts'))};`,
    `const rows = ${JSON.stringify(SPECIFIERS)}.map((specifier) => {`,
    '  const outcome = (f) => { try { return f(); } catch (err) { return `error ${err.code}`; } };',
    '  const node = outcome(() => import.meta.resolve(specifier));',
    "  const ours = outcome(() => { const r = resolveImport(specifier, importer); return 'external' in r ? r.external : `bundle ${r.bundle}`; });",
    '  return { specifier, node, ours };',
    '});',
    'console.log(JSON.stringify(rows));',
  ].join('\n');
  // The probe module sits where the strategy would: import.meta.resolve resolves from its folder.
  files(folder, { 'probe.mjs': script });
  const r = spawnSync(process.execPath, [...args, join(folder, 'probe.mjs')], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout) as Array<{ specifier: string; node: string; ours: string }>;
}

/** Node names builtins `node:x`; the compiler leaves a builtin as it was written. */
const asWritten = (row: { specifier: string; node: string }) => (row.node === `node:${row.specifier.replace(/^node:/, '')}` ? row.specifier : row.node);

describe('strategy import resolution', () => {
  it("leads every bare and # import where Node's own resolution does, from the package and from a nested folder", () => {
    const root = tree();
    for (const folder of [join(root, 'app'), join(root, 'app', 'nested')]) {
      const rows = compare(folder);
      expect(rows.map((r) => ({ specifier: r.specifier, to: r.ours }))).toEqual(rows.map((r) => ({ specifier: r.specifier, to: asWritten(r) })));
    }
    // The cases meant to be covered are: every one resolved or refused as intended.
    const byName = Object.fromEntries(compare(join(root, 'app')).map((r) => [r.specifier, r.ours.replace(`file://${root}/`, '')]));
    expect(byName).toMatchObject({
      app: 'app/main.js',
      '#config': 'app/config-node.js',
      '#dep': 'app/node_modules/conditional/index.mjs',
      '#missing': 'error ERR_PACKAGE_IMPORT_NOT_DEFINED',
      'conditional/sub': 'app/node_modules/conditional/sub-node.mjs',
      'conditional/hidden': 'error ERR_PACKAGE_PATH_NOT_EXPORTED',
      'conditional/fallback': 'app/node_modules/conditional/fallback.js',
      'conditional/custom': 'app/node_modules/conditional/not-custom.js',
      sync: 'app/node_modules/sync/sync.js',
      legacy: 'app/node_modules/legacy/lib/entry.js',
      linked: 'outside/linked/real.js',
      'not-installed': 'error ERR_MODULE_NOT_FOUND',
      fs: 'fs',
      'node:test': 'node:test',
    });
  });

  it('with the options the process was started with: its conditions, symlinks kept', () => {
    const root = tree();
    const custom = compare(join(root, 'app'), ['--conditions=custom']);
    expect(custom.map((r) => r.ours)).toEqual(custom.map(asWritten));
    expect(custom.find((r) => r.specifier === 'conditional/custom')!.ours).toBe(`file://${root}/app/node_modules/conditional/custom.js`);
    const kept = compare(join(root, 'app'), ['--preserve-symlinks']);
    expect(kept.map((r) => r.ours)).toEqual(kept.map(asWritten));
    expect(kept.find((r) => r.specifier === 'linked')!.ours).toBe(`file://${root}/app/node_modules/linked/real.js`);
  });
});
