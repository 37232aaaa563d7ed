// The strategy author's daily loop: `sextant list-strategies` (what is found where, its params and defaults, its
// timeframes, whether it loads and why not) and `sextant test-strategy` (a strategy's own tests, compiled the way
// strategies are and run by Node's test runner, with the `sextant/testing` harness).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import { loadConfig } from '../../config/load.js';
import type { StrategyDefinition } from '../../strategy/api.js';
import { CompileError, compile } from '../../strategy/compile.js';
import { SHIPPED_STRATEGIES, loadStrategy, strategyEntries } from '../../strategy/loader.js';
import type { Io, SetCode } from './io.js';

/** The strategy folders of the config given (its strategyDirs), else the user folder's `strategies/`. */
function strategyDirsOf(config: string | undefined): string[] {
  return config ? loadConfig(config).config.strategyDirs : ['strategies'];
}

const where = (path: string) =>
  path.startsWith(SHIPPED_STRATEGIES) ? `shipped example (${relative(SHIPPED_STRATEGIES, path)})` : relative(process.cwd(), path) || path;

/** One param of a strategy as a line: name, type, default (or required), description. */
interface ParamLine {
  name: string;
  type: string;
  default?: unknown;
  required: boolean;
  description?: string;
}

/** The params a strategy's schema takes, from its JSON Schema (zod): each with its type and default. */
export function paramsOf(def: StrategyDefinition<unknown>): ParamLine[] {
  let schema: { properties?: Record<string, { type?: unknown; enum?: unknown[]; default?: unknown; description?: string }>; required?: string[] };
  try {
    schema = z.toJSONSchema(def.params as z.ZodType, { io: 'input', unrepresentable: 'any' }) as typeof schema;
  } catch {
    return [];
  }
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, p]) => ({
    name,
    type: p.enum ? p.enum.map((v) => JSON.stringify(v)).join('|') : Array.isArray(p.type) ? p.type.join('|') : typeof p.type === 'string' ? p.type : 'any',
    ...(p.default !== undefined ? { default: p.default } : {}),
    required: required.has(name) && p.default === undefined,
    ...(p.description ? { description: p.description } : {}),
  }));
}

interface StrategyListing {
  name: string;
  where: string;
  file: string;
  shadowedBy?: string;
  loads: boolean;
  error?: string;
  description?: string;
  hooks?: string[];
  timeframes?: string[];
  schedules?: string[];
  params?: ParamLine[];
}

async function listStrategies(dirs: string[]): Promise<StrategyListing[]> {
  const first = new Map<string, string>();
  const out: StrategyListing[] = [];
  // The user's strategies first, then the shipped examples; each by name (a name's first entry is the one loaded).
  const shipped = (e: { dir: string }) => (e.dir === SHIPPED_STRATEGIES ? 1 : 0);
  for (const e of strategyEntries(dirs).sort((a, b) => shipped(a) - shipped(b))) {
    const item: StrategyListing = { name: e.name, where: where(e.file), file: e.file, loads: false };
    const earlier = first.get(e.name);
    if (earlier !== undefined) {
      out.push({ ...item, shadowedBy: earlier });
      continue;
    }
    first.set(e.name, item.where);
    try {
      const def = await loadStrategy(e.name, dirs);
      item.loads = true;
      if (def.description) item.description = def.description;
      item.hooks = (['onStart', 'onMarket', 'onBar', 'onEvent'] as const).filter((h) => typeof def[h] === 'function');
      item.schedules = Object.keys(def.onSchedule ?? {});
      item.timeframes = [...(def.timeframes ?? [])];
      item.params = paramsOf(def);
    } catch (err) {
      item.error = err instanceof Error ? err.message : String(err);
    }
    out.push(item);
  }
  return out;
}

function showListing(s: StrategyListing): string {
  if (s.shadowedBy) return `${s.name}  ${s.where}\n  shadowed by ${s.shadowedBy} (the first folder's wins)`;
  const lines = [`${s.name}  ${s.where}  ${s.loads ? 'loads' : 'DOES NOT LOAD'}`];
  if (s.error) lines.push(`  why: ${s.error}`);
  if (s.description) lines.push(`  ${s.description}`);
  if (s.hooks) lines.push(`  hooks: ${[...s.hooks, ...(s.schedules ?? []).map((n) => `onSchedule.${n}`)].join(', ') || 'none'}`);
  if (s.loads) lines.push(`  timeframes: ${s.timeframes?.length ? s.timeframes.join(', ') : 'none (no bars)'}`);
  for (const p of s.params ?? []) {
    const value = p.required ? 'required' : p.default !== undefined ? `default ${JSON.stringify(p.default)}` : 'optional';
    lines.push(`  ${p.name}: ${p.type}, ${value}${p.description ? ` (${p.description})` : ''}`);
  }
  return lines.join('\n');
}

/** The tests of a strategy: `<name>.test.*` beside a single-file strategy, every `*.test.*` in a strategy's folder. */
export function testFilesOf(file: string): string[] {
  const dir = dirname(file);
  const stem = basename(file).replace(/\.[cm]?[jt]s$/, '');
  const isTest = (f: string) => /\.test\.[cm]?[jt]s$/.test(f);
  if (stem !== 'index')
    return readdirSync(dir)
      .filter((f) => isTest(f) && f.startsWith(`${stem}.test.`))
      .map((f) => join(dir, f));
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => isTest(f) && !f.split('/').includes('node_modules'))
    .sort()
    .map((f) => join(dir, f));
}

/** Hands `stream`'s text to `write` a whole line at a time (the rest when it ends). */
function byLines(stream: NodeJS.ReadableStream, write: (line: string) => void): void {
  let rest = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop()!;
    for (const line of lines) write(line);
  });
  stream.on('end', () => rest && write(rest));
}

/**
 * Compiles each test file into a folder of its own (as strategies are compiled) and runs them with `node --test`,
 * each test failed after `timeoutMs` and its file ended once its tests are (a timer a test left behind does not keep
 * it running); its exit code. The folder goes when the run ends, stopped by a signal too.
 */
async function runTests(files: string[], timeoutMs: number, io: Io): Promise<number> {
  const out = mkdtempSync(join(tmpdir(), 'sextant-test-'));
  let child: ReturnType<typeof spawn> | undefined;
  const stop = (signal: NodeJS.Signals) => {
    child?.kill(signal);
    rmSync(out, { recursive: true, force: true });
    process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
  };
  process.once('SIGINT', stop).once('SIGTERM', stop);
  try {
    const compiled: string[] = [];
    for (const [i, f] of files.entries()) {
      let code: string;
      try {
        code = (await compile(f)).code;
      } catch (err) {
        if (!(err instanceof CompileError)) throw err;
        io.err(`${f}: cannot compile: ${err.message}`);
        return 1;
      }
      // Named as the file it was compiled from (under the user folder), so the runner's lines name it.
      const rel = relative(process.cwd(), f);
      const to = join(out, rel.startsWith('..') || isAbsolute(rel) ? `${i}-${basename(f)}` : rel).replace(/\.[cm]?[jt]s$/, '.mjs');
      mkdirSync(dirname(to), { recursive: true });
      writeFileSync(to, code);
      compiled.push(to);
    }
    const running = spawn(
      process.execPath,
      ['--enable-source-maps', '--test', '--test-reporter=spec', `--test-timeout=${timeoutMs}`, '--test-force-exit', ...compiled],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    child = running;
    byLines(running.stdout, io.out);
    byLines(running.stderr, io.err);
    return await new Promise<number>((resolve) => running.on('close', (code) => resolve(code ?? 1)));
  } finally {
    process.off('SIGINT', stop).off('SIGTERM', stop);
    rmSync(out, { recursive: true, force: true });
  }
}

async function testStrategy(name: string | undefined, opts: { all?: boolean; config?: string; timeout: string }, io: Io): Promise<number> {
  const timeoutMs = Number(opts.timeout);
  if (!/^\d+$/.test(opts.timeout) || timeoutMs < 1) {
    io.err(`test-strategy: --timeout expects milliseconds, got ${JSON.stringify(opts.timeout)}`);
    return 1;
  }
  const dirs = strategyDirsOf(opts.config);
  const entries = strategyEntries(dirs);
  let chosen: Array<{ name: string; file: string }>;
  if (opts.all) {
    // Every strategy of the configured folders (the shipped examples only when a configured folder is theirs).
    const configured = new Set(dirs.map((d) => resolve(d)));
    const seen = new Set<string>();
    chosen = entries.filter((e) => configured.has(e.dir) && !seen.has(e.name) && seen.add(e.name));
  } else if (name) {
    const e = entries.find((x) => x.name === name);
    if (!e) {
      io.err(`test-strategy: no strategy ${JSON.stringify(name)} in ${dirs.join(', ')} or the shipped examples`);
      return 1;
    }
    chosen = [e];
  } else {
    io.err('test-strategy: name a strategy, or --all');
    return 1;
  }
  const files: string[] = [];
  for (const e of chosen) {
    const tests = testFilesOf(e.file);
    if (tests.length === 0 && !opts.all) {
      io.err(`test-strategy: ${e.name} (${where(e.file)}) has no tests: write ${e.name}.test.ts beside it (see \`sextant new-strategy\`)`);
      return 1;
    }
    files.push(...tests);
  }
  if (files.length === 0) {
    io.err(`test-strategy: no tests in ${dirs.join(', ')}`);
    return 1;
  }
  return runTests(files, timeoutMs, io);
}

export function registerStrategyTools(program: Command, io: Io, setCode: SetCode): void {
  program
    .command('list-strategies')
    .description(
      "each strategy found (the config's strategyDirs, else strategies/, then the shipped examples): where, params with their defaults, timeframes, hooks, and whether it loads (and why not)",
    )
    .option('-c, --config <file>', 'take strategyDirs from this config')
    .option('--json', 'as JSON')
    .action(async (opts: { config?: string; json?: boolean }) => {
      const list = await listStrategies(strategyDirsOf(opts.config));
      io.out(opts.json ? JSON.stringify(list, null, 2) : list.map(showListing).join('\n\n'));
      setCode(list.some((s) => !s.loads && !s.shadowedBy) ? 1 : 0);
    });
  program
    .command('test-strategy')
    .description("run a strategy's own tests (`*.test.ts` beside it), compiled as strategies are, with Node's test runner and the sextant/testing harness")
    .argument('[name]', 'the strategy')
    .option('--all', "every strategy's tests in the strategy folders")
    .option('-c, --config <file>', 'take strategyDirs from this config')
    .option('--timeout <ms>', 'a test still running after this long fails', '30000')
    .action(async (name: string | undefined, opts: { all?: boolean; config?: string; timeout: string }) => setCode(await testStrategy(name, opts, io)));
}
