// Jobs run on worker threads of this process, all cores by default. A thread runs one job at a time and is kept
// for the next; a thread that dies fails the job it held and is replaced. The thread's entry is given (the
// composition in app/ runs the job: research only hands it over).
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { JobError, type BacktestJob, type JobResult, type JobRunner } from './jobs.js';

/** What a thread answers for each job posted to it: its result, why it refused it (a JobError), or what broke. */
export type ThreadReply = { id: string; result: JobResult } | { id: string; refused: string } | { id: string; error: string };

export interface LocalRunnerOptions {
  /** The thread's entry: a module that answers every BacktestJob posted to it with a ThreadReply. */
  script: URL;
  /** Threads at most; default: the cores this process may use. */
  threads?: number;
}

interface Task {
  job: BacktestJob;
  resolve(result: JobResult): void;
  reject(err: Error): void;
}

export class LocalRunner implements JobRunner {
  readonly threads: number;
  private readonly idle: Worker[] = [];
  private readonly busy = new Map<Worker, Task | undefined>();
  private readonly waiting: Task[] = [];
  private closed = false;

  constructor(private readonly opts: LocalRunnerOptions) {
    this.threads = Math.max(1, opts.threads ?? availableParallelism());
  }

  /**
   * Runs one job on the next free thread. Rejects with a JobError when the job refused to run, with an Error when
   * its thread failed (the same job may well run elsewhere).
   */
  runOne(job: BacktestJob): Promise<JobResult> {
    if (this.closed) return Promise.reject(new Error('the local job runner is closed'));
    return new Promise((resolve, reject) => {
      this.waiting.push({ job, resolve, reject });
      this.dispatch();
    });
  }

  async run(jobs: readonly BacktestJob[], onProgress?: (done: number, total: number) => void): Promise<JobResult[]> {
    let done = 0;
    onProgress?.(0, jobs.length);
    const mine = new Set<BacktestJob>(jobs);
    try {
      return await Promise.all(
        jobs.map((job) =>
          this.runOne(job).then((result) => {
            done += 1;
            onProgress?.(done, jobs.length);
            return result;
          }),
        ),
      );
    } catch (err) {
      // The batch has failed: its jobs not started yet are dropped (those running finish, unheard).
      for (let i = this.waiting.length - 1; i >= 0; i--) if (mine.has(this.waiting[i]!.job)) this.waiting.splice(i, 1);
      throw err;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const task of this.waiting.splice(0)) task.reject(new Error(`job ${task.job.id}: the local job runner closed before it ran`));
    const threads = [...this.idle, ...this.busy.keys()];
    this.idle.length = 0;
    this.busy.clear();
    await Promise.all(threads.map((thread) => thread.terminate()));
  }

  private dispatch(): void {
    while (this.waiting.length > 0 && (this.idle.length > 0 || this.idle.length + this.busy.size < this.threads)) {
      const task = this.waiting.shift()!;
      const thread = this.idle.pop() ?? this.spawn();
      this.busy.set(thread, task);
      // A thread at work keeps the process alive; an idle one does not (a runner left open holds nothing up).
      thread.ref();
      thread.postMessage(task.job);
    }
  }

  private spawn(): Worker {
    const thread = new Worker(this.opts.script);
    this.busy.set(thread, undefined);
    thread.on('message', (reply: ThreadReply) => {
      const task = this.busy.get(thread);
      if (!task || task.job.id !== reply.id) return;
      this.busy.delete(thread);
      thread.unref();
      this.idle.push(thread);
      if ('result' in reply) task.resolve(reply.result);
      else if ('refused' in reply) task.reject(new JobError(reply.id, reply.refused));
      else task.reject(new Error(`job ${reply.id} failed on its thread: ${reply.error}`));
      this.dispatch();
    });
    let lost = false;
    const lose = (why: string) => {
      if (lost || this.closed) return;
      lost = true;
      const task = this.busy.get(thread);
      this.busy.delete(thread);
      const at = this.idle.indexOf(thread);
      if (at >= 0) this.idle.splice(at, 1);
      task?.reject(new Error(`the thread running job ${task.job.id} failed: ${why}`));
      this.dispatch();
    };
    thread.on('error', (err) => lose(err.message));
    thread.on('exit', (code) => lose(`it ended with exit code ${code}`));
    return thread;
  }
}
