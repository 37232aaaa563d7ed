// Part of the build (after tsc): the trading-signals library as one ES module, dist/vendor/trading-signals.js,
// which `#trading-signals` (package.json "imports") names at run time. The package ships ~180 modules; loading
// them one by one costs a backtest or a daemon start ~80 ms, the single file ~10 ms. The types still come from
// the package itself.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const PACKAGE = 'trading-signals';
const result = await build({
  stdin: { contents: `export * from '${PACKAGE}';`, resolveDir: root, loader: 'js' },
  outfile: join(root, 'dist', 'vendor', `${PACKAGE}.js`),
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  legalComments: 'eof',
  metafile: true,
  logLevel: 'warning',
});
// The bundled package's name, version and licence, at the top of the file.
const input = Object.keys(result.metafile.inputs).find((f) => f.includes(`node_modules/${PACKAGE}/`));
if (!input) throw new Error(`${PACKAGE} was not found from ${root}`);
const pkgDir = join(root, input.slice(0, input.indexOf(`node_modules/${PACKAGE}/`) + `node_modules/${PACKAGE}`.length));
const pkg = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
const out = join(root, 'dist', 'vendor', `${PACKAGE}.js`);
// Its licence text goes with it (a copy carries the notice).
const licenceFile = ['LICENSE', 'LICENSE.md', 'license'].map((f) => join(pkgDir, f)).find((f) => existsSync(f));
const licence = licenceFile ? `\n/*\n${readFileSync(licenceFile, 'utf8').replaceAll('*/', '* /')}*/\n` : '';
const text = readFileSync(out, 'utf8');
writeFileSync(out, `// ${pkg.name} ${pkg.version} (${pkg.license} licence, ${pkg.homepage}), one module made by scripts/bundle-vendor.mjs.\n${text}${licence}`);
