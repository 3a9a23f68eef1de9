/**
 * compile(): a package (modules, law text, entry) against a library, to a Program or to the
 * diagnostics of the earliest stage that found anything. The same package against the same
 * library compiles once: results are kept by content id.
 */
import { createHash } from 'node:crypto';
import * as dagCbor from '@ipld/dag-cbor';
import { CID } from 'multiformats/cid';
import * as Digest from 'multiformats/hashes/digest';
import { sha256 } from 'multiformats/hashes/sha2';
import type { CompileInput, CompileResult, Library, Module } from './program.js';
import type { Clause, ModuleAst } from './lang/ast.js';
import { ModuleChecker, type CheckedModule, type ModuleLoader } from './lang/check.js';
import { Diags, type Span } from './lang/diagnostics.js';
import { parseLawText, parseModule } from './lang/parser.js';
import { CompiledProgram } from './lang/runner.js';

export { checkReprogram, reprogram } from './lang/reprogram.js';

/** CIDv1, dag-cbor, sha2-256 of a value: the content ids the kernel uses for receipts too. */
export function cidOf(value: unknown): string {
  const bytes = dagCbor.encode(value);
  const digest = Digest.create(sha256.code, createHash('sha256').update(bytes).digest());
  return CID.create(1, dagCbor.code, digest).toString();
}

/** The pin of a package: what is hashed is exactly what the program is made of. */
export function packageCid(input: CompileInput): string {
  return cidOf({
    modules: input.modules.map((m) => ({ name: m.name, source: m.source })),
    law: input.law ?? null,
    entry: input.entry ?? null,
    kind: input.kind ?? null,
  });
}

const libraryKeys = new WeakMap<Library, string>();
function libraryKey(lib: Library): string {
  let k = libraryKeys.get(lib);
  if (!k) {
    const h = createHash('sha256');
    for (const name of [...lib.modules.keys()].sort()) {
      const m = lib.modules.get(name)!;
      h.update(`${name.length}:${name}${m.source.length}:${m.source}`);
    }
    k = h.digest('hex');
    libraryKeys.set(lib, k);
  }
  return k;
}

/** Checked library modules, per library: `use core` is checked once, not once per package. */
const libraryChecked = new WeakMap<Library, Map<string, CheckedModule | null>>();

const cache = new Map<string, CompileResult>();
const cacheSize = 512;
let compiles = 0;

/** How many packages have actually been compiled (not served from the cache); for tests. */
export function compileCount(): number {
  return compiles;
}

function validInput(input: unknown): input is CompileInput {
  if (!input || typeof input !== 'object') return false;
  const i = input as CompileInput;
  if (!Array.isArray(i.modules)) return false;
  if (!i.modules.every((m) => m && typeof m.name === 'string' && typeof m.source === 'string')) return false;
  if (i.law !== undefined && typeof i.law !== 'string') return false;
  if (i.entry !== undefined && typeof i.entry !== 'string') return false;
  if (i.kind !== undefined && typeof i.kind !== 'string') return false;
  return true;
}

const at1: Span = { line: 1, col: 1, endLine: 1, endCol: 1 };

export function compile(input: CompileInput, library: Library): CompileResult {
  if (!validInput(input)) {
    return {
      ok: false,
      diagnostics: [
        { stage: 'parse', module: 'package', line: 1, column: 1, endLine: 1, endColumn: 1, message: 'a package is {modules: [{name, source}], law?, entry?}' },
      ],
    };
  }
  const key = `${packageKey(input)}|${libraryKey(library)}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const result = compileFresh(input, library);
  if (cache.size >= cacheSize) cache.delete(cache.keys().next().value!);
  cache.set(key, result);
  return result;
}

/** A cheap digest of the package for the cache (the CID is built only for a program that compiles). */
function packageKey(input: CompileInput): string {
  const h = createHash('sha256');
  for (const m of input.modules) h.update(`${m.name.length}:${m.name}${m.source.length}:`).update(m.source);
  h.update(`|${input.law ?? '\u0000'}|${input.entry ?? '\u0000'}|${input.kind ?? '\u0000'}`);
  return h.digest('hex');
}

function compileFresh(input: CompileInput, library: Library): CompileResult {
  compiles++;
  const diags = new Diags('package');
  if (!input.modules.length) {
    diags.add('parse', at1, 'the package has no modules', 'modules: [{ name: "lamp", source: "…" }]', 0);
    return { ok: false, diagnostics: diags.earliest() };
  }
  // Parse every module of the package.
  const asts = new Map<string, ModuleAst | undefined>();
  for (const m of input.modules) {
    if (asts.has(m.name)) {
      diags.module = m.name;
      diags.add('resolve', at1, `two modules are named ${m.name}`, 'give each module its own name', 1);
      continue;
    }
    diags.module = m.name;
    asts.set(m.name, parseModule(m.name, m.source, diags));
  }
  const mainName = input.kind ?? input.modules[0]!.name;
  if (!asts.has(mainName)) {
    diags.module = mainName;
    diags.add('resolve', at1, `the package has no module named ${mainName}`, `its modules: ${[...asts.keys()].join(', ')}`, 1);
  }
  let extraLaw: Clause[] = [];
  if (input.law?.trim()) {
    diags.module = 'law';
    extraLaw = parseLawText(input.law, diags) ?? [];
  }
  if (diags.count) return { ok: false, diagnostics: diags.earliest() };

  const libCache = libraryChecked.get(library) ?? new Map<string, CheckedModule | null>();
  libraryChecked.set(library, libCache);
  const checked = new Map<string, CheckedModule>();
  const inProgress: string[] = [];

  const loader = (fromLibrary: boolean): ModuleLoader => ({
    names: () => [...new Set([...(fromLibrary ? [] : asts.keys()), ...library.modules.keys()])].sort(),
    kind(name) {
      if (!fromLibrary && asts.has(name)) return null;
      if (!library.modules.has(name)) return undefined;
      if (inProgress.includes(name)) return null;
      const m = this.load(name, name, at1, new Diags(name));
      return m ?? null;
    },
    load(name, from, span, ds) {
      const saved = ds.module;
      ds.module = from;
      try {
        if (inProgress.includes(name)) {
          const circle = [...inProgress.slice(inProgress.indexOf(name)), name].join(' → ');
          ds.add('resolve', span, `modules use each other in a circle: ${circle}`, 'move what both need into a third module', 1);
          return undefined;
        }
        if (!fromLibrary && asts.has(name)) {
          const done = checked.get(name);
          if (done) return done;
          inProgress.push(name);
          const m = new ModuleChecker(asts.get(name)!, ds, loader(false)).check();
          inProgress.pop();
          checked.set(name, m);
          return m;
        }
        const lib = library.modules.get(name);
        if (!lib) {
          const known = [...new Set([...(fromLibrary ? [] : asts.keys()), ...library.modules.keys()])].sort();
          ds.add(
            'resolve',
            span,
            `no module named ${name} in the package or the library`,
            known.length ? `modules you can use: ${known.join(', ')}` : undefined,
            1,
          );
          return undefined;
        }
        if (libCache.has(name)) {
          const m = libCache.get(name);
          if (!m) ds.add('resolve', span, `the library module ${name} does not compile`, undefined, 1);
          return m ?? undefined;
        }
        inProgress.push(name);
        const own = new Diags(name);
        const ast = parseModule(name, lib.source, own);
        const m = ast ? new ModuleChecker(ast, own, loader(true)).check() : undefined;
        inProgress.pop();
        const good = m && own.count === 0 ? m : null;
        libCache.set(name, good);
        if (!good) ds.add('resolve', span, `the library module ${name} does not compile: ${own.list[0]?.message ?? ''}`, undefined, 1);
        return good ?? undefined;
      } finally {
        ds.module = saved;
      }
    },
  });

  inProgress.push(mainName);
  const mainAst = asts.get(mainName)!;
  const main = new ModuleChecker(mainAst, diags, loader(false), input.entry ?? 'initial', extraLaw, input.entry !== undefined).check();
  inProgress.pop();
  checked.set(mainName, main);
  // Modules of the package that the main module does not reach are still checked.
  for (const name of asts.keys()) {
    if (checked.has(name)) continue;
    inProgress.push(name);
    checked.set(name, new ModuleChecker(asts.get(name)!, diags, loader(false)).check());
    inProgress.pop();
  }
  if (diags.count) return { ok: false, diagnostics: diags.earliest() };
  try {
    return {
      ok: true,
      program: new CompiledProgram(
        packageCid(input),
        input.modules.map((m) => ({ name: m.name, source: m.source })),
        main,
      ),
    };
  } catch (e) {
    // The checker passed a tree the compiler cannot build: a bug, reported, never thrown.
    return {
      ok: false,
      diagnostics: [
        {
          stage: 'type',
          module: mainName,
          line: 1,
          column: 1,
          endLine: 1,
          endColumn: 1,
          message: `internal compiler error: ${e instanceof Error ? e.message : String(e)}`,
        },
      ],
    };
  }
}

export type { Module };
