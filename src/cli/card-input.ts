/**
 * Where the card commands read modules from: files, a directory of modules, or standard input
 * (`-`). Each file is one module named after it (`lamp.card` is `lamp`); the first module given
 * programs the card, as the first of `modules` does over HTTP. The files are remembered so that
 * a diagnostic names the file the author wrote, not the module.
 */
import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import { limits } from '../contract/limits.js';
import type { Module } from '../cards/program.js';

/** The command line itself is wrong, or a file cannot be read: the host was never asked (exit 2). */
export class InputError extends Error {
  override name = 'InputError';
}

/** A file or directory named on the command line cannot be read (no usage is printed for it). */
export class FileError extends InputError {
  override name = 'FileError';
}

/** A value given on the command line does not fit what it is for (no usage is printed for it). */
export class ValueError extends InputError {
  override name = 'ValueError';
}

export interface InputIo {
  /** Where relative paths start. */
  cwd: string;
  readStdin(): Promise<Buffer>;
}

export interface Modules {
  modules: Module[];
  /** Module name → the path the author gave (or `<stdin>`), for diagnostics. */
  files: Map<string, string>;
}

export const stdinName = '<stdin>';

/**
 * Reads at most one byte over the module limit: the kernel refuses a module over it with its
 * own words, and a huge file is never read whole.
 */
function readCapped(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(limits.moduleBytes + 1);
    let got = 0;
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, null);
      if (n === 0) break;
      got += n;
    }
    return withoutBom(buf.subarray(0, got).toString('utf8'));
  } finally {
    closeSync(fd);
  }
}

/**
 * The text of a file without the byte-order mark some editors put first (U+FEFF): it is no part
 * of the module, and the lexer would refuse it as a character no token starts with.
 */
export function withoutBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function why(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file or directory';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'is a directory';
  return e instanceof Error ? e.message : String(e);
}

/** A text file given on the command line (a law file, a module), read whole up to the cap. */
export function readText(given: string, io: InputIo, what = 'file'): string {
  const file = path.resolve(io.cwd, given);
  try {
    if (statSync(file).isDirectory()) throw new FileError(`${what} ${given} is a directory`);
    return readCapped(file);
  } catch (e) {
    if (e instanceof InputError) throw e;
    throw new FileError(`cannot read ${what} ${given}: ${why(e)}`);
  }
}

export const moduleName = (file: string) => path.basename(file).replace(/\.[^.]*$/, '') || path.basename(file);

/**
 * The `.card` files of a directory, the one that programs the card first: the module named
 * after the directory, else `main`, else the first by name.
 */
function directoryModules(given: string, dir: string): { name: string; file: string; shown: string }[] {
  const names = readdirSync(dir)
    .filter((f) => f.endsWith('.card') && !statSync(path.join(dir, f)).isDirectory())
    .sort();
  if (!names.length) throw new FileError(`no .card modules in the directory ${given}`);
  const lead = names.find((f) => moduleName(f) === path.basename(dir)) ?? names.find((f) => moduleName(f) === 'main');
  const ordered = lead ? [lead, ...names.filter((f) => f !== lead)] : names;
  return ordered.map((f) => ({ name: moduleName(f), file: path.join(dir, f), shown: path.join(given, f) }));
}

/** The modules named by `args` (files, directories, `-`), in order. */
export async function readModules(args: readonly string[], io: InputIo): Promise<Modules> {
  if (!args.length) throw new InputError('give a .card file, a directory of modules, or - for standard input');
  const modules: Module[] = [];
  const files = new Map<string, string>();
  let stdinRead = false;
  for (const given of args) {
    if (given === '-') {
      if (stdinRead) throw new InputError('standard input (-) can be given once');
      stdinRead = true;
      const buf = await io.readStdin();
      const source = withoutBom(buf.subarray(0, limits.moduleBytes + 1).toString('utf8'));
      modules.push({ name: 'main', source });
      if (!files.has('main')) files.set('main', stdinName);
      continue;
    }
    const full = path.resolve(io.cwd, given);
    let isDir: boolean;
    try {
      isDir = statSync(full).isDirectory();
    } catch (e) {
      throw new FileError(`cannot read ${given}: ${why(e)}`);
    }
    let found: { name: string; file: string; shown: string }[];
    try {
      found = isDir ? directoryModules(given, full) : [{ name: moduleName(given), file: full, shown: given }];
    } catch (e) {
      if (e instanceof FileError) throw e;
      throw new FileError(`cannot read the directory ${given}: ${why(e)}`);
    }
    for (const f of found) {
      let source: string;
      try {
        source = readCapped(f.file);
      } catch (e) {
        throw new FileError(`cannot read ${f.shown}: ${why(e)}`);
      }
      modules.push({ name: f.name, source });
      // Two modules of one name are the kernel's to refuse; the first file keeps the name.
      if (!files.has(f.name)) files.set(f.name, f.shown);
    }
  }
  return { modules, files };
}
