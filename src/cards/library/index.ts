/**
 * The sealed library: the modules shipped with the project, written in the card language
 * (`<name>.card`), each with its library page (`<name>.md`). They are read from the source
 * tree, found by walking up from this file, so the loader works from `src/` and from
 * `dist/src/` alike (tsc does not copy `.card` files into `dist/`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile } from '../compile.js';
import type { Library, Module } from '../program.js';

/** The modules of the sealed library, in the order genesis loads them. */
export const libraryNames = ['core', 'room', 'door', 'avatar', 'note', 'board', 'lamp', 'bench', 'postbox', 'market', 'town'] as const;

/** The folder holding `<name>.card` and `<name>.md`. */
export function libraryDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i++) {
    const candidate = join(dir, 'src', 'cards', 'library');
    if (existsSync(join(candidate, 'core.card'))) return candidate;
    if (existsSync(join(dir, 'core.card'))) return dir;
    dir = dirname(dir);
  }
  throw new Error('the sealed library (src/cards/library/*.card) was not found above ' + fileURLToPath(import.meta.url));
}

let sealed: Library | undefined;

/** The sealed library, read once. */
export function sealedLibrary(): Library {
  if (sealed) return sealed;
  const dir = libraryDir();
  const modules = new Map<string, Module>();
  const pages = new Map<string, string>();
  for (const name of libraryNames) {
    modules.set(name, { name, source: readFileSync(join(dir, `${name}.card`), 'utf8') });
    pages.set(name, readFileSync(join(dir, `${name}.md`), 'utf8'));
  }
  sealed = { modules, pages };
  return sealed;
}

/**
 * The library modules that program cards (kinds a guest can `make` or `become`): every module
 * that compiles on its own to a program with a first state. `core` is helpers only.
 */
export function libraryKinds(library: Library = sealedLibrary()): string[] {
  return [...library.modules.values()]
    .filter((m) => {
      const r = compile({ modules: [m] }, library);
      return r.ok && r.program.card;
    })
    .map((m) => m.name);
}
