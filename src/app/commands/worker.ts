// `sextant worker`: registered here; its options and action are added with the command.
import type { Command } from 'commander';
import type { Io, SetCode } from './io.js';

export function registerWorker(_program: Command, _io: Io, _setCode: SetCode): void {}
