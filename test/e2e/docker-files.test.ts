// The Dockerfile and compose file, checked offline (no Docker engine here): the linters pass; the image is the
// packed package installed, run in the user folder `sextant init` writes; the compose file mounts that folder, runs
// its dry-run config by default, publishes on loopback only, checks health with `sextant health` on the config it
// runs (the port from there), and names only secret files the guide tells how to make.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { parse, parseDocument } from 'yaml';
import { Metrics, OpsServer } from '../../src/app/http.js';
import { loadConfig } from '../../src/config/load.js';

const run = (bin: string, args: string[]) => execFileSync(`node_modules/.bin/${bin}`, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const REPO = process.cwd();
const SEXTANT = join(REPO, 'bin', 'sextant.js');

/** The Dockerfile's instructions, stage by stage: continuation lines joined, comments dropped. */
function dockerfileStages(text: string): Array<Array<{ op: string; args: string }>> {
  const lines = text.split('\n').filter((l) => !/^\s*#/.test(l));
  const joined = lines.join('\n').replace(/\\\n/g, ' ');
  const stages: Array<Array<{ op: string; args: string }>> = [];
  for (const line of joined.split('\n')) {
    const m = /^([A-Z]+)\s+(.*)$/.exec(line.trim());
    if (!m) continue;
    if (m[1] === 'FROM') stages.push([]);
    stages.at(-1)!.push({ op: m[1]!, args: m[2]!.replace(/\s+/g, ' ').trim() });
  }
  return stages;
}

type Service = Record<string, unknown> & {
  command?: string[];
  environment?: Record<string, string>;
  secrets?: string[];
  volumes?: string[];
  ports?: string[];
  profiles?: string[];
  healthcheck?: { test: string[] };
};
interface Compose {
  services: Record<string, Service>;
  secrets: Record<string, { file: string }>;
}

const dockerfile = readFileSync('Dockerfile', 'utf8');
const [buildStage, runtime] = dockerfileStages(dockerfile) as [Array<{ op: string; args: string }>, Array<{ op: string; args: string }>];
const instr = (op: string) => runtime.filter((i) => i.op === op).map((i) => i.args);
const execForm = (op: string) =>
  JSON.parse(
    instr(op)
      .at(-1)!
      .replace(/^(--\S+\s+)*(CMD\s+)?/, ''),
  ) as string[];
const compose = parse(readFileSync('docker-compose.yml', 'utf8'), { merge: true }) as Compose;
const daemons = Object.entries(compose.services).filter(([, s]) => s.command?.[0] === 'run');
const guide = readFileSync('docs/docker.md', 'utf8');
const WORKDIR = instr('WORKDIR').at(-1)!;

/** A user folder as `sextant init` writes it. */
const userdir = join(mkdtempSync(join(tmpdir(), 'sextant-docker-')), 'userdir');
beforeAll(() => {
  execFileSync(process.execPath, [SEXTANT, 'init', userdir], { stdio: 'ignore' });
});

/** A port nothing listens on now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '0.0.0.0', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

/** Runs a health check command as the container would: `sextant` is this package's, in the user folder. */
function healthCheck(argv: string[], cwd: string, env: Record<string, string>): Promise<number> {
  expect(argv[0]).toBe('sextant');
  return new Promise((resolveCode) =>
    execFile(process.execPath, [SEXTANT, ...argv.slice(1)], { cwd, env: { PATH: process.env.PATH, ...env } }, (err) =>
      resolveCode(err ? (typeof err.code === 'number' ? err.code : -1) : 0),
    ),
  );
}

/** The YAML block of the guide that starts with `# <name>`, merged onto `base` (the keys it names replaced). */
function guideConfig(name: string, base: string): string {
  // A block may be indented (inside a list item): its lines are taken back to the fence's indentation.
  const blocks = [...guide.matchAll(/^( *)```yaml\n([\s\S]*?)^\1```$/gm)].map((m) => m[2]!.replace(new RegExp(`^${m[1]!}`, 'gm'), ''));
  const block = blocks.find((b) => b.startsWith(`# ${name}`));
  if (!block) throw new Error(`docs/docker.md has no yaml block starting with "# ${name}"`);
  const doc = parseDocument(base);
  const merge = (path: string[], value: unknown) => {
    if (value && typeof value === 'object' && !Array.isArray(value) && doc.getIn(path) && typeof doc.getIn(path) === 'object') {
      for (const [k, v] of Object.entries(value)) merge([...path, k], v);
    } else doc.setIn(path, value);
  };
  merge([], parse(block) as unknown);
  return doc.toString();
}

describe('Dockerfile', () => {
  it('passes dockerfile-utils lint', () => {
    expect(() => run('dockerfile-utils', ['lint', 'Dockerfile'])).not.toThrow();
  });

  it('the build stage packs the package (npm ci, npm pack; an installed copy packed as it is) and installs the tarball, production dependencies only', () => {
    const script = buildStage.filter((i) => i.op === 'RUN').map((i) => i.args);
    const pack = script.find((s) => s.includes('npm pack'))!;
    expect(pack).toMatch(/npm ci\b[^&]*&& npm pack --pack-destination \/pack/);
    expect(pack).toMatch(/npm pack --ignore-scripts --pack-destination \/pack/);
    expect(pack).toMatch(/npm install --global --prefix \/opt\/sextant --omit=dev \/pack\/sextant-\*\.tgz/);
  });

  it('the runtime holds that install and nothing else of the build context: runs as node under tini, `sextant` on PATH, in the user folder', () => {
    expect(instr('COPY')).toEqual(['--from=build /opt/sextant /opt/sextant']);
    expect(instr('ENV')).toContain('PATH=/opt/sextant/bin:$PATH');
    expect(instr('USER')).toEqual(['node']);
    expect(execForm('ENTRYPOINT')).toEqual(['/usr/bin/tini', '--', 'sextant']);
    expect(WORKDIR).toBe('/userdir');
    expect(instr('VOLUME')).toEqual([]);
  });

  it('its command runs the dry-run config `sextant init` writes, on the port it exposes; the health check reads that same config', () => {
    const cmd = execForm('CMD');
    expect(cmd).toEqual(['run', '--config', 'config/dry-run.yaml']);
    const cfg = loadConfig(join(userdir, cmd[2]!), {}).config;
    expect(cfg.mode).toBe('dry-run');
    expect(instr('EXPOSE')).toEqual([String(cfg.daemon.http.port)]);
    const check = execForm('HEALTHCHECK');
    expect(check).toEqual(['sextant', 'health', '--config', cmd[2]]);
    expect(instr('HEALTHCHECK').join(' ')).not.toMatch(/\d{4}/);
  });
});

describe('docker-compose.yml', () => {
  it('passes dclint (compose spec)', () => {
    expect(() => run('dclint', ['docker-compose.yml'])).not.toThrow();
  });

  it('every daemon: read-only root, no capabilities, the user folder mounted read-only at the image’s working folder with data/ writable, a tmpfs on /tmp', () => {
    expect(daemons.map(([n]) => n).sort()).toEqual(['sextant', 'sextant-a', 'sextant-b', 'sextant-live']);
    for (const [, s] of daemons) {
      expect(s).toMatchObject({ read_only: true, cap_drop: ['ALL'], security_opt: ['no-new-privileges:true'] });
      expect(s.volumes).toEqual(['${SEXTANT_USERDIR:-./userdir}:' + WORKDIR + ':ro', '${SEXTANT_USERDIR:-./userdir}/data:' + WORKDIR + '/data']);
      expect(s.tmpfs).toEqual([expect.stringMatching(/^\/tmp(:|$)/)]);
    }
    // The journal of the dry-run config is in data/ of the user folder, the writable mount.
    expect(loadConfig(join(userdir, 'config/dry-run.yaml'), {}).config.journal.path).toBe(join(userdir, 'data', 'journal.sqlite'));
  });

  it('the default profile `single`: dry-run on the user folder, no API keys, published on 127.0.0.1 only', () => {
    expect(readFileSync('.env', 'utf8')).toMatch(/^COMPOSE_PROFILES=single$/m);
    const bot = compose.services.sextant!;
    expect(bot.profiles).toEqual(['single']);
    expect(bot.command).toEqual(['run', '--config', 'config/dry-run.yaml']);
    expect(bot.command).toEqual(execForm('CMD'));
    const cfg = loadConfig(join(userdir, bot.command![2]!), {}).config;
    expect(cfg.mode).toBe('dry-run');
    expect(bot.ports).toEqual([`127.0.0.1:${cfg.daemon.http.port}:${cfg.daemon.http.port}`]);
    expect(bot.secrets).toEqual(['sextant_http_token']);
    expect(Object.keys(bot.environment!).filter((k) => k.startsWith('SEXTANT_API_'))).toEqual([]);
  });

  it('ports are published on loopback only, in every profile', () => {
    for (const s of Object.values(compose.services)) for (const p of s.ports ?? []) expect(p).toMatch(/^127\.0\.0\.1:/);
  });

  it('each daemon binds 0.0.0.0 in its container with its token from a secret file, and checks health with `sextant health` on the config it runs', () => {
    for (const [, s] of daemons) {
      expect(s.environment).toMatchObject({ SEXTANT_HTTP_HOST: '0.0.0.0', SEXTANT_HTTP_TOKEN_FILE: '/run/secrets/sextant_http_token' });
      expect(s.healthcheck!.test).toEqual(['CMD', 'sextant', 'health', '--config', s.command![2]]);
      expect(JSON.stringify(s.healthcheck)).not.toMatch(/\d{4}/);
    }
  });

  it('the health check passes against a daemon bound beyond loopback, with the token of the secret file; fails without it', async () => {
    const port = await freePort();
    // The user folder's config with the port of this test; the compose environment, its secret paths on this machine.
    const folder = join(dirname(userdir), 'health');
    mkdirSync(join(folder, 'config'), { recursive: true });
    mkdirSync(join(folder, 'strategies'));
    const doc = parseDocument(readFileSync(join(userdir, 'config/dry-run.yaml'), 'utf8'));
    doc.setIn(['daemon', 'http', 'port'], port);
    writeFileSync(join(folder, 'config/dry-run.yaml'), doc.toString());
    const secrets = join(dirname(userdir), 'secrets');
    mkdirSync(secrets, { recursive: true, mode: 0o700 });
    const token = 'compose-hc-t0ken-0123456789';
    writeFileSync(join(secrets, basename(compose.secrets.sextant_http_token!.file)), `${token}\n`, { mode: 0o600 });
    const env = Object.fromEntries(
      Object.entries(compose.services.sextant!.environment!).map(([k, v]) => [
        k,
        v.startsWith('/run/secrets/') ? join(secrets, basename(compose.secrets[basename(v)]!.file)) : v,
      ]),
    );
    const ops = new OpsServer(new Metrics(), { health: () => ({ ok: true, detail: {} }), ready: () => ({ ok: true, detail: {} }) }, token);
    await ops.listen(port, '0.0.0.0');
    try {
      expect(await healthCheck(compose.services.sextant!.healthcheck!.test.slice(1), folder, env)).toBe(0);
      expect(await healthCheck(execForm('HEALTHCHECK'), folder, env)).toBe(0);
      expect(await healthCheck(execForm('HEALTHCHECK'), folder, { SEXTANT_HTTP_HOST: '0.0.0.0' })).toBe(1);
    } finally {
      await ops.close();
    }
  });

  it('secrets: the *_FILE variables name secrets the service mounts, each a file under ./secrets/, git-ignored and kept out of the image', () => {
    for (const [, s] of daemons) {
      for (const [k, v] of Object.entries(s.environment!)) {
        if (!k.endsWith('_FILE')) continue;
        expect(v).toMatch(/^\/run\/secrets\//);
        expect(s.secrets).toContain(basename(v));
      }
      for (const name of s.secrets!) expect(compose.secrets[name]!.file).toMatch(/^\.\/secrets\/[a-z_]+$/);
    }
    expect(JSON.stringify(compose)).not.toMatch(/SEXTANT_API_SECRET"?:\s*"?[^/]/);
    expect(readFileSync('.gitignore', 'utf8')).toMatch(/^\/?secrets\/$/m);
    const dockerignore = readFileSync('.dockerignore', 'utf8');
    expect(dockerignore).toMatch(/^secrets\/$/m);
    expect(dockerignore).toMatch(/^userdir\/$/m);
  });

  it('every secret file the compose file names is one docs/docker.md tells how to make', () => {
    expect(guide).toContain('mkdir -m 700 secrets');
    expect(guide).toContain('umask 077');
    for (const { file } of Object.values(compose.secrets)) expect(guide).toContain(file.replace(/^\.\//, ''));
  });

  it('one profile at a time: `single`, `live`, or the `failover` pair (active and standby) with PostgreSQL and Redis', () => {
    const byProfile = (p: string) =>
      Object.entries(compose.services)
        .filter(([, s]) => s.profiles!.includes(p))
        .map(([n]) => n)
        .sort();
    expect(byProfile('single')).toEqual(['sextant']);
    expect(byProfile('live')).toEqual(['sextant-live']);
    expect(byProfile('failover')).toEqual(['postgres', 'redis', 'sextant-a', 'sextant-b']);
    expect(compose.services.redis!.profiles).toEqual(['shared-budget', 'failover']);
    const live = compose.services['sextant-live']!;
    expect(live.command).toEqual(['run', '--config', 'config/live.yaml']);
    expect(live.environment).toMatchObject({ SEXTANT_API_SECRET_FILE: '/run/secrets/sextant_api_secret' });
    const [a, b] = [compose.services['sextant-a']!, compose.services['sextant-b']!];
    // The same daemon twice, told apart only by the host name (the holder's name in the lease).
    expect({ ...a, hostname: undefined }).toEqual({ ...b, hostname: undefined });
    expect([a.hostname, b.hostname]).toEqual(['sextant-a', 'sextant-b']);
    expect(a).toMatchObject({
      read_only: true,
      cap_drop: ['ALL'],
      depends_on: { postgres: { condition: 'service_healthy' }, redis: { condition: 'service_healthy' } },
      command: ['run', '--config', 'config/failover.yaml'],
    });
    expect(a.environment).toMatchObject({ SEXTANT_JOURNAL_PASSWORD_FILE: '/run/secrets/sextant_journal_password' });
    expect(compose.services.postgres!.environment).toMatchObject({
      POSTGRES_USER: 'sextant',
      POSTGRES_DB: 'sextant',
      POSTGRES_PASSWORD_FILE: '/run/secrets/sextant_journal_password',
    });
    expect(compose.services.postgres!.healthcheck!.test).toEqual(['CMD', 'pg_isready', '-U', 'sextant', '-d', 'sextant']);
  });

  it('the configs the guide has a trader write for `live` and `failover` (from dry-run.yaml) load, and reach the compose file’s services', () => {
    const dryRun = readFileSync(join(userdir, 'config/dry-run.yaml'), 'utf8');
    const liveFile = join(userdir, 'config/live.yaml');
    writeFileSync(liveFile, guideConfig('config/live.yaml', dryRun));
    const live = loadConfig(liveFile, {}).config;
    expect(live.mode).toBe('live');
    // A journal of its own in the user folder's data/ (the dry run's is bound to its paper venue).
    expect(dirname(resolve(live.journal.path!))).toBe(join(userdir, 'data'));
    expect(resolve(live.journal.path!)).not.toBe(resolve(userdir, 'data/journal.sqlite'));

    const failoverFile = join(userdir, 'config/failover.yaml');
    // The guide has the dry run's `journal:` lines left out (a PostgreSQL journal takes no path).
    const withoutJournal = parseDocument(dryRun);
    withoutJournal.delete('journal');
    writeFileSync(failoverFile, guideConfig('config/failover.yaml', withoutJournal.toString()));
    const cfg = loadConfig(failoverFile, {}).config;
    // The journal in the compose file's PostgreSQL, the lease beside it, the budget in its Redis; the database
    // password from a secret file, never in the URL.
    expect({ mode: cfg.mode, url: cfg.journal.url, lease: cfg.daemon.lease?.store, redis: cfg.exchange.rateLimit.redis?.url }).toEqual({
      mode: 'live',
      url: 'postgres://sextant@postgres:5432/sextant',
      lease: 'journal',
      redis: 'redis://redis:6379',
    });
    expect(cfg.strategies.length).toBeGreaterThan(0);
  });
});

describe('the package ships what the guide builds from', () => {
  it('npm pack holds the Dockerfile, the compose file, .dockerignore and the guide', () => {
    const [pack] = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }),
    ) as [{ files: Array<{ path: string }> }];
    const files = pack.files.map((f) => f.path);
    for (const f of ['Dockerfile', 'docker-compose.yml', '.dockerignore', 'docs/docker.md']) expect(files).toContain(f);
  });

  it('docs/docker.md links only to files of the repository, relatively, that exist', () => {
    const links = [...guide.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(0);
    for (const link of links) {
      if (/^https?:/.test(link)) {
        expect(link).not.toMatch(/github\.com\/[^/]+\/sextant/i);
        continue;
      }
      expect({ link, exists: existsSync(resolve('docs', link.replace(/#.*$/, ''))) }).toEqual({ link, exists: true });
    }
  });
});
