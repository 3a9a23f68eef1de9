/**
 * The project's own text, as the documentation tests read it: every file under `src`, `test`,
 * `bench` and `docs`, plus the top-level documents, read from the source tree (tests run from
 * `dist/test/…`, so the root is found from this file, as test/fixtures/path.ts finds it).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const root = path.resolve(here, here.includes(`${path.sep}dist${path.sep}`) ? '../../..' : '../..');

const folders = ['src', 'test', 'bench', 'docs'];
const topLevel = ['README.md', 'CHANGELOG.md'];

export interface TextFile {
  /** Path from the project root, with forward slashes. */
  name: string;
  text: string;
}

function walk(dir: string, out: string[]): void {
  for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const name = `${dir}/${entry.name}`;
    if (entry.isDirectory()) walk(name, out);
    else if (entry.isFile()) out.push(name);
  }
}

/** Every text file of the tree (a file holding a NUL byte is binary and left out). */
export function projectText(): TextFile[] {
  const names: string[] = [];
  for (const dir of folders) walk(dir, names);
  for (const name of topLevel) if (fs.existsSync(path.join(root, name))) names.push(name);
  const files: TextFile[] = [];
  for (const name of names.sort()) {
    const bytes = fs.readFileSync(path.join(root, name));
    if (bytes.includes(0)) continue;
    files.push({ name, text: bytes.toString('utf8') });
  }
  return files;
}

export function exists(name: string): boolean {
  return fs.existsSync(path.join(root, name));
}
