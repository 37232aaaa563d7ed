// Compiles a TypeScript strategy file into one ES module with esbuild: its own TypeScript files (the entry and
// the local files it imports) are bundled, each with `import.meta.url`, `.dirname` and `.filename` naming its own
// file; every other import is left to Node, its specifier replaced by what Node's resolution finds from the
// importing file (so `sextant/strategy` is this process's own module). A JSON file imported without
// `with { type: 'json' }` (which Node would refuse) is bundled too. The inline source map points at the .ts
// files. Records what the result depends on (each input's content, each import's resolution) for the cache.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { SourceMapPayload } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Message, Plugin } from 'esbuild';
import { resolveImport } from './resolve.js';

export interface Compiled {
  /** The module's code, ending with its inline source map. */
  code: string;
  /** The source map (sources as file URLs of the .ts files). */
  map: SourceMapPayload;
  /** The files compiled in, with the SHA-256 of the content compiled. */
  inputs: Array<[path: string, sha256: string]>;
  /** Each import (with its `type` attribute) and where it led: `bundle:<path>` or `external:<url or specifier>`. */
  imports: Array<[importer: string, specifier: string, type: string, to: string]>;
}

/** Options every strategy file is compiled with (no tsconfig.json is read: the result depends on the files alone). */
const COMPILER_OPTIONS = { useDefineForClassFields: true };

export const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

/** Where an import leads, as recorded: compared again when a cached compilation is reused. */
export function importTarget(specifier: string, importer: string, type: string): string {
  const r = resolveImport(specifier, importer);
  if ('bundle' in r) return `bundle:${r.bundle}`;
  if (type !== 'json' && r.external.startsWith('file:') && /\.json$/.test(new URL(r.external).pathname)) return `bundle:${fileURLToPath(r.external)}`;
  return `external:${r.external}`;
}

/** A compilation that failed: the messages name the file, line and column. */
export class CompileError extends Error {}

type Esbuild = typeof import('esbuild');
let running = 0;

/** Compiles `entry` (an absolute real path). esbuild's service runs only while compilations do. */
export async function compile(entry: string): Promise<Compiled> {
  running++;
  const esbuild: Esbuild = await import('esbuild');
  try {
    return await build(esbuild, entry);
  } finally {
    if (--running === 0) await esbuild.stop();
  }
}

async function build(esbuild: Esbuild, entry: string): Promise<Compiled> {
  const target = `node${process.versions.node}`;
  const inputs: Compiled['inputs'] = [];
  const imports = new Map<string, Compiled['imports'][number]>();
  const plugin: Plugin = {
    name: 'sextant-strategy',
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === 'entry-point') return { path: args.path };
        const type = args.with.type ?? '';
        let to: string;
        try {
          to = importTarget(args.path, args.importer, type);
        } catch (err) {
          return { errors: [{ text: (err as Error).message }] };
        }
        imports.set(`${args.importer}\0${args.path}\0${type}`, [args.importer, args.path, type, to]);
        return to.startsWith('bundle:') ? { path: to.slice(7) } : { path: to.slice(9), external: true };
      });
      b.onLoad({ filter: /.*/ }, async (args) => {
        const source = readFileSync(args.path);
        inputs.push([args.path, sha256(source)]);
        if (args.path.endsWith('.json')) return { contents: source, loader: 'json' };
        const url = pathToFileURL(args.path).href;
        let out;
        try {
          out = await esbuild.transform(source, {
            loader: args.path.endsWith('.tsx') ? 'tsx' : 'ts',
            format: 'esm',
            target,
            sourcemap: 'inline',
            sourcefile: args.path,
            sourcesContent: false,
            tsconfigRaw: { compilerOptions: COMPILER_OPTIONS },
            define: {
              'import.meta.url': JSON.stringify(url),
              'import.meta.filename': JSON.stringify(args.path),
              'import.meta.dirname': JSON.stringify(dirname(args.path)),
            },
            logLevel: 'silent',
          });
        } catch (err) {
          const errors = (err as { errors?: Message[] }).errors;
          if (errors?.length) return { errors };
          throw err;
        }
        return { contents: out.code, loader: 'js', resolveDir: dirname(args.path) };
      });
    },
  };
  const outDir = dirname(entry);
  let result;
  try {
    result = await esbuild.build({
      entryPoints: [entry],
      absWorkingDir: outDir,
      outfile: join(outDir, 'strategy.mjs'),
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'node',
      target,
      treeShaking: false,
      sourcemap: 'external',
      sourcesContent: false,
      logLevel: 'silent',
      plugins: [plugin],
    });
  } catch (err) {
    const errors = (err as { errors?: Message[] }).errors;
    if (!errors?.length) throw err;
    throw new CompileError(errors.map((m) => formatMessage(m, outDir)).join('; '));
  }
  const js = result.outputFiles.find((f) => f.path.endsWith('.mjs'));
  const mapFile = result.outputFiles.find((f) => f.path.endsWith('.map'));
  if (!js || !mapFile) throw new CompileError('esbuild produced no module');
  const map = { file: '', sourceRoot: '', sourcesContent: [], ...(JSON.parse(mapFile.text) as Partial<SourceMapPayload>) } as SourceMapPayload;
  map.sources = map.sources.map((s) => pathToFileURL(resolve(outDir, s)).href);
  const code = `${js.text}//# sourceMappingURL=data:application/json;base64,${Buffer.from(JSON.stringify(map)).toString('base64')}\n`;
  return { code, map, inputs, imports: [...imports.values()] };
}

/** An esbuild message as `file:line:column: text` (its file is relative to the folder compiled in). */
function formatMessage(m: Message, dir: string): string {
  const loc = m.location;
  return loc ? `${resolve(dir, loc.file)}:${loc.line}:${loc.column + 1}: ${m.text}` : m.text;
}
