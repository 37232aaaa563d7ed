// What the test suite needs beyond Node and npm, made present before it runs (`npm test` runs this first):
// a Redis answering on 127.0.0.1:6379 (the shared rate-limit budget test), a PostgreSQL answering where
// $SEXTANT_TEST_POSTGRES_URL says (by default postgres://postgres@127.0.0.1:5432/postgres: the PostgreSQL journal and
// lease tests), and a Chromium for the report test (Debian's package: npm browser downloads reach no network here). Each is used where it already is; otherwise
// started, or installed from Debian's packages when this runs as root with apt. Imported by the tests for
// `findChromium()`.
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const CHROMIUM_CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable', '/snap/bin/chromium'];

/** A Chromium to drive: $SEXTANT_CHROMIUM, or the usual install places; undefined when there is none. */
export function findChromium() {
  const given = process.env.SEXTANT_CHROMIUM;
  if (given) return existsSync(given) ? given : undefined;
  return CHROMIUM_CANDIDATES.find((p) => existsSync(p));
}

function say(text) {
  process.stderr.write(`[test deps] ${text}\n`);
}

function redisAnswers() {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port: 6379 });
    let got = '';
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (d) => {
      got += String(d);
      if (got.includes('\r\n')) done(got.startsWith('+PONG'));
    });
  });
}

function onPath(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

let aptUpdated = false;
function aptInstall(pkg) {
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!root || !onPath('apt-get')) return false;
  say(`installing ${pkg} from Debian's packages`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  if (!aptUpdated) {
    spawnSync('apt-get', ['update', '-qq'], { stdio: 'ignore', env });
    aptUpdated = true;
  }
  return spawnSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', pkg], { stdio: 'ignore', env }).status === 0;
}

async function ensureRedis() {
  if (await redisAnswers()) return;
  if (!onPath('redis-server') && !aptInstall('redis-server')) {
    say('no Redis on 127.0.0.1:6379 and none could be installed: the shared-budget test will fail');
    return;
  }
  // A fresh private folder: a predictable path in /tmp could be planted by another user.
  const dir = mkdtempSync(join(tmpdir(), 'sextant-test-redis-'));
  execFileSync(
    'redis-server',
    ['--daemonize', 'yes', '--bind', '127.0.0.1', '--port', '6379', '--save', '', '--appendonly', 'no', '--dir', dir, '--logfile', join(dir, 'redis.log')],
    { stdio: 'ignore' },
  );
  for (let i = 0; i < 50; i++) {
    if (await redisAnswers()) {
      say('started redis-server on 127.0.0.1:6379');
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  say('redis-server did not answer on 127.0.0.1:6379');
}

/** The PostgreSQL the tests use (test/fixtures/postgres.ts reads the same variable). */
const POSTGRES_URL = process.env.SEXTANT_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Whether a PostgreSQL server answers at host:port (its answer to an SSL request: S or N). */
function postgresAnswers(host, port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(1000, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write(Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f])));
    socket.on('data', (d) => done(d[0] === 0x53 || d[0] === 0x4e));
  });
}

/** Debian's PostgreSQL programs (initdb, pg_ctl): the newest version installed. */
function postgresBin() {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const version = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a))[0];
  return version ? join(root, version, 'bin') : undefined;
}

async function ensurePostgres() {
  const url = new URL(POSTGRES_URL);
  const host = url.hostname || '127.0.0.1';
  const port = Number(url.port || 5432);
  if (await postgresAnswers(host, port)) return;
  if (host !== '127.0.0.1' && host !== 'localhost') {
    say(`no PostgreSQL answers at ${host}:${port} ($SEXTANT_TEST_POSTGRES_URL): the PostgreSQL journal tests will fail`);
    return;
  }
  if (!postgresBin() && !aptInstall('postgresql')) {
    say(`no PostgreSQL on 127.0.0.1:${port} and none could be installed: the PostgreSQL journal tests will fail`);
    return;
  }
  const bin = postgresBin();
  if (!bin) {
    say('the postgresql package installed no initdb: the PostgreSQL journal tests will fail');
    return;
  }
  // A cluster of the tests' own in a fresh private folder, trusting loopback only. PostgreSQL refuses to run as
  // root: as root, the cluster belongs to Debian's postgres user.
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'sextant-test-postgres-'));
  const as = (cmd, args) => (root ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args]);
  if (root) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
  }
  chmodSync(dir, 0o700);
  const data = join(dir, 'data');
  const user = url.username || 'postgres';
  const run = (cmd, args) => {
    const [c, a] = as(join(bin, cmd), args);
    return spawnSync(c, a, { stdio: 'ignore', cwd: dir }).status === 0;
  };
  if (!run('initdb', ['-D', data, '-U', user, '--auth=trust', '-E', 'UTF8', '--no-sync'])) {
    say(`initdb failed in ${dir}: the PostgreSQL journal tests will fail`);
    return;
  }
  const options = `-c listen_addresses=127.0.0.1 -p ${port} -c unix_socket_directories=${dir}`;
  if (!run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'postgres.log'), '-w', 'start'])) {
    say(`PostgreSQL did not start (its log: ${join(dir, 'postgres.log')}): the PostgreSQL journal tests will fail`);
    return;
  }
  for (let i = 0; i < 50; i++) {
    if (await postgresAnswers(host, port)) {
      say(`started PostgreSQL on 127.0.0.1:${port} (cluster in ${data})`);
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  say(`PostgreSQL did not answer on 127.0.0.1:${port}`);
}

function ensureChromium() {
  if (findChromium()) return;
  if (!aptInstall('chromium') || !findChromium()) say('no Chromium found or installed (set SEXTANT_CHROMIUM to one): the report test will fail');
}

if (process.argv[1] && process.argv[1].endsWith('test-deps.mjs')) {
  await ensureRedis();
  await ensurePostgres();
  ensureChromium();
}
