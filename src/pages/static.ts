/**
 * GET /static/{file}: the stylesheet and the script, read once from src/pages/static (found by
 * walking up from this file, so it works from src/ and dist/src/ alike). Only the files named
 * here are served: a request can never name a path of its own.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const types: Record<string, string> = {
  'town.css': 'text/css; charset=utf-8',
  'town.js': 'text/javascript; charset=utf-8',
};

function staticDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i++) {
    const candidate = join(dir, 'src', 'pages', 'static');
    if (existsSync(join(candidate, 'town.css'))) return candidate;
    if (existsSync(join(dir, 'static', 'town.css')) && dir.endsWith(join('src', 'pages'))) return join(dir, 'static');
    dir = dirname(dir);
  }
  throw new Error('the page assets (src/pages/static) were not found above ' + fileURLToPath(import.meta.url));
}

export interface Asset {
  type: string;
  body: Buffer;
}

let assets: Map<string, Asset> | undefined;

export function assetNamed(file: string): Asset | undefined {
  if (!assets) {
    const dir = staticDir();
    assets = new Map(Object.entries(types).map(([name, type]) => [name, { type, body: readFileSync(join(dir, name)) }]));
  }
  return assets.get(file);
}
