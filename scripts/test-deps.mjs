// What the test suite needs beyond Node and npm, made present before it runs (`npm test` runs this first):
// a Redis answering on 127.0.0.1:6379 (the shared rate-limit budget test) and a Chromium for the report test
// (Debian's package: npm browser downloads reach no network here). Each is used where it already is; otherwise
// started, or installed from Debian's packages when this runs as root with apt. Imported by the tests for
// `findChromium()`.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
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
  execFileSync('redis-server', ['--daemonize', 'yes', '--bind', '127.0.0.1', '--port', '6379', '--save', '', '--appendonly', 'no', '--dir', dir, '--logfile', join(dir, 'redis.log')], { stdio: 'ignore' });
  for (let i = 0; i < 50; i++) {
    if (await redisAnswers()) {
      say('started redis-server on 127.0.0.1:6379');
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  say('redis-server did not answer on 127.0.0.1:6379');
}

function ensureChromium() {
  if (findChromium()) return;
  if (!aptInstall('chromium') || !findChromium()) say('no Chromium found or installed (set SEXTANT_CHROMIUM to one): the report test will fail');
}

if (process.argv[1] && process.argv[1].endsWith('test-deps.mjs')) {
  await ensureRedis();
  ensureChromium();
}
