// The sha256 of a file's content, read as a stream (data files can be large): how a job's files are compared
// between the machine that submits it and the one that runs it.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

/** Hex sha256 of the file's bytes; rejects as the read does (ENOENT for a missing file). */
export function sha256File(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(file)
      .on('error', reject)
      .on('data', (chunk) => hash.update(chunk))
      .on('end', () => resolve(hash.digest('hex')));
  });
}
