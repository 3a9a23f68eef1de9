/**
 * GET /static/{file}: the stylesheet and the script, read once from src/pages/static (found by
 * walking up from this file, so it works from src/ and dist/src/ alike), and the guest door's
 * arrival script, kept as text beside the proof it solves (src/identity/proof-script.ts). Only
 * the files named here are served: a request can never name a path of its own.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { arrivalFormScript } from '../identity/proof-script.js';

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
    assets.set('arrive.js', { type: 'text/javascript; charset=utf-8', body: Buffer.from(arrivalFormScript) });
  }
  return assets.get(file);
}
