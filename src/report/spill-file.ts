// A file a run appends text to as it goes (what the report would otherwise hold in memory until the end), written in
// chunks through one buffer (text encoded into it, or bytes written straight into it); at the end it is read or copied
// out a chunk at a time, moved into place, or removed.
import { closeSync, openSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';

/** Writes all of `buf` to `fd`. */
export function writeAll(fd: number, buf: Uint8Array): void {
  for (let at = 0; at < buf.length;) at += writeSync(fd, buf, at, buf.length - at);
}

export class SpillFile {
  private fd: number | null;
  /** Text is encoded into this buffer as it comes (no string outlives its write), written out when full. */
  private readonly buf: Buffer;
  private used = 0;
  private written = 0;

  constructor(
    readonly path: string,
    bufferBytes = 1 << 18,
  ) {
    this.fd = openSync(path, 'w');
    this.buf = Buffer.allocUnsafe(bufferBytes);
  }

  write(text: string): void {
    // UTF-8 takes at most 3 bytes per UTF-16 unit.
    if (this.used + text.length * 3 > this.buf.length) {
      this.flush();
      if (text.length * 3 > this.buf.length) {
        writeAll(this.fd!, Buffer.from(text, 'utf8'));
        this.written += Buffer.byteLength(text, 'utf8');
        return;
      }
    }
    this.used += this.buf.write(text, this.used, 'utf8');
  }

  /**
   * Room for `n` more bytes (at most the buffer's size): the offset in `buffer` to write them at, what was buffered
   * written out first when they would not fit. commit() then takes what was written.
   */
  room(n: number): number {
    if (this.used + n > this.buf.length) this.flush();
    return this.used;
  }

  /** The bytes written into `buffer` from room()'s offset up to `end`. */
  commit(end: number): void {
    this.used = end;
  }

  /** Where room() makes room. */
  get buffer(): Buffer {
    return this.buf;
  }

  /** How many bytes room() may ask for. */
  get capacity(): number {
    return this.buf.length;
  }

  /** The bytes written so far, what is buffered included. */
  offset(): number {
    return this.written + this.used;
  }

  /**
   * Copies bytes [from, to) of what was written to `fd`, a chunk at a time through one buffer (the file is closed
   * first): a large spill is never held whole.
   */
  copyTo(fd: number, from = 0, to = this.offset()): void {
    this.close();
    if (to <= from) return;
    const src = openSync(this.path, 'r');
    try {
      for (let at = from; at < to;) {
        const n = readSync(src, this.buf, 0, Math.min(this.buf.length, to - at), at);
        if (n === 0) throw new Error(`${this.path} ends at ${at}, before ${to}`);
        writeAll(fd, this.buf.subarray(0, n));
        at += n;
      }
    } finally {
      closeSync(src);
    }
  }

  /**
   * Reads what was written (bytes [from, to)) a chunk at a time: `visit(chunk, at)` gets each chunk (a view of one
   * buffer, valid until it returns) and the offset of its first byte.
   */
  scan(visit: (chunk: Buffer, at: number) => void, from = 0, to = Number.POSITIVE_INFINITY): void {
    this.close();
    const src = openSync(this.path, 'r');
    try {
      for (let at = from; at < to;) {
        const n = readSync(src, this.buf, 0, Math.min(this.buf.length, to - at), at);
        if (n === 0) return;
        visit(this.buf.subarray(0, n), at);
        at += n;
      }
    } finally {
      closeSync(src);
    }
  }

  /** Closes the file and moves it to `file` (what was there before is removed first, not replaced in place). */
  moveTo(file: string): void {
    this.close();
    rmSync(file, { force: true });
    renameSync(this.path, file);
  }

  /** Closes the file and deletes it (nothing happens when it was moved). */
  remove(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    rmSync(this.path, { force: true });
  }

  private close(): void {
    if (this.fd === null) return;
    this.flush();
    closeSync(this.fd);
    this.fd = null;
  }

  private flush(): void {
    if (this.used === 0) return;
    if (this.fd === null) throw new Error(`${this.path} is closed`);
    writeAll(this.fd, this.buf.subarray(0, this.used));
    this.written += this.used;
    this.used = 0;
  }
}
