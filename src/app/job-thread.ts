// A worker thread of the local job runner: runs the jobs it is sent, one at a time, and answers each with its
// result, or why it could not run (a JobError: the job's fault, not the thread's).
import { parentPort } from 'node:worker_threads';
import { JobError, type BacktestJob } from '../research/jobs.js';
import type { ThreadReply } from '../research/local-runner.js';
import { runJob } from './job-run.js';

const port = parentPort!;
port.on('message', (job: BacktestJob) => {
  runJob(job).then(
    (result): void => port.postMessage({ id: job.id, result } satisfies ThreadReply),
    (err: unknown): void =>
      port.postMessage({
        id: job.id,
        ...(err instanceof JobError ? { refused: err.reason } : { error: err instanceof Error ? err.message : String(err) }),
      } satisfies ThreadReply),
  );
});
