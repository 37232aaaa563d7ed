// A worker thread a caller talks to synchronously: post() hands a message over without waiting; call() posts one and
// waits for its answer (Atomics.wait on a shared flag the thread sets once it has posted the answer, the answer taken
// from the port at once). Used by the in-memory SQLite journal's thread and by the PostgreSQL journal's connection.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from 'node:worker_threads';
import { SLOT, SLOTS, type Answer, type ThreadStart, type WireError } from './sync-thread-protocol.js';

/** A thread's script: beside this module once compiled; run from the TypeScript sources, the compiled one in dist/. */
export function threadScript(name: string): URL {
  const here = new URL(`./${name}.js`, import.meta.url);
  if (existsSync(fileURLToPath(here))) return here;
  const built = new URL(`../../dist/journal/${name}.js`, import.meta.url);
  // A thread that cannot load its script would never answer.
  if (!existsSync(fileURLToPath(built))) throw new Error(`no compiled thread script at ${fileURLToPath(built)} (build with tsc -p tsconfig.build.json)`);
  return built;
}

/** Looks at the answer flag before waiting on it (some tens of microseconds). */
const SPINS = 10_000;

export class SyncThread {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  readonly state = new Int32Array(new SharedArrayBuffer(SLOTS * Int32Array.BYTES_PER_ELEMENT));
  /** What the thread said when it failed on its own. */
  private failure: Error | undefined;
  private closed = false;

  /** `data`: what the thread's script is given besides its port and flags; `thrown`: an error as the caller throws it. */
  constructor(
    script: URL,
    data: object,
    private readonly thrown: (e: WireError) => Error = (e) => Object.assign(new Error(e.message), e.code !== undefined ? { code: e.code } : {}),
  ) {
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    const start: ThreadStart = { ...data, port: port2, state: this.state };
    // None of the process's own options (--input-type, loaders, …): some would stop the thread's script from loading.
    this.worker = new Worker(script, { workerData: start, transferList: [port2], execArgv: [] });
    // Never what keeps the process alive: close() ends the thread, and a thread left open ends with the process.
    this.worker.unref();
    this.worker.on('error', (err) => (this.failure ??= err));
  }

  flag(slot: number): number {
    return Atomics.load(this.state, slot);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Hands `message` over without waiting. */
  post(message: unknown): void {
    if (this.closed) throw new TypeError('The database connection is not open');
    this.port.postMessage(message);
  }

  /**
   * Posts `message` after everything posted before and waits for its answer (at most `timeoutMs`, when given: then an
   * error); its error is thrown.
   */
  call(message: unknown, timeoutMs?: number): unknown {
    const state = this.state;
    Atomics.store(state, SLOT.answered, 0);
    this.post(message);
    // A short answer comes within microseconds: looked for before waiting (a thread woken from its wait takes tens).
    for (let i = 0; i < SPINS && Atomics.load(state, SLOT.answered) === 0; i++);
    const until = timeoutMs === undefined ? Infinity : performance.now() + timeoutMs;
    while (Atomics.load(state, SLOT.answered) === 0) {
      if (Atomics.load(state, SLOT.ended) === 1) throw new Error(`the database thread has ended${this.failure ? `: ${this.failure.message}` : ''}`);
      const left = until - performance.now();
      if (left <= 0) throw new Error(`the database thread did not answer within ${timeoutMs} ms`);
      Atomics.wait(state, SLOT.answered, 0, left === Infinity ? undefined : left);
    }
    const answer = receiveMessageOnPort(this.port)!.message as Answer;
    if ('error' in answer) throw this.thrown(answer.error);
    return answer.value;
  }

  /**
   * Ends the thread, after `last` (a call that closes what the thread holds) when given; its failure is thrown. A close
   * that does not answer within 5 s (a connection gone half-open) is given up: the thread is ended all the same, so a
   * stop never hangs on it.
   */
  close(last?: unknown): void {
    if (this.closed) return;
    try {
      if (last !== undefined) this.call(last, 5000);
    } finally {
      this.closed = true;
      this.port.close();
      void this.worker.terminate();
    }
  }
}
