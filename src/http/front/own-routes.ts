/**
 * The front's own routes: the guide, the catalogue, the worked examples, the documents the
 * catalogue cites, llms.txt and the liveness probe.
 * They are generated from the route table and the contract's tables, so they describe exactly
 * what the town answers; each is made once per town mode and kept as bytes, so neither koa nor
 * the reply guard measures tens of kilobytes of text on every request.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { TownConfig } from '../../contract/town-config.js';
import { buildCatalogue } from '../catalogue.js';
import { earlierExamplesText, earlierGuideText } from '../earlier-guide.js';
import { examplesText, guideText, projectRoot } from '../guide.js';
import { llmsText } from '../llms-txt.js';
import type { FrontRoute, RoomHandlers } from '../route-types.js';
import { agentDocs, type Route, routesFor } from '../routes.js';
import { TownError } from '../../contract/town-error.js';

/** `built(name)`: whether the route of that name has a handler in this town. */
export function frontHandlers(config: TownConfig, townOpen: () => boolean | Promise<boolean>, built: (name: string) => boolean): RoomHandlers<FrontRoute> {
  const made = new Map<string, Buffer>();
  const once = (key: string, make: () => string): Buffer => {
    let bytes = made.get(key);
    if (bytes === undefined) made.set(key, (bytes = Buffer.from(make())));
    return bytes;
  };
  const catalogue = (open: boolean, self: string) =>
    once(`catalogue ${open} ${self}`, () =>
      JSON.stringify(
        buildCatalogue({ ...config, open }, routesFor(open, config.catalogue), (r: Route) => built(r.base ?? r.name), self),
        null,
        2,
      ),
    );
  const earlier = config.catalogue === 'earlier';
  const examples = Buffer.from(earlier ? earlierExamplesText() : examplesText());

  return {
    guide: async (ctx) => {
      ctx.vary('Accept');
      const open = await townOpen();
      if (ctx.accepts('text/plain', 'application/json') === 'application/json') {
        ctx.type = 'application/json';
        ctx.body = catalogue(open, '/AGENTS.md');
      } else {
        ctx.type = 'text/plain; charset=utf-8';
        ctx.body = once(`guide ${open}`, () => (earlier ? earlierGuideText() : guideText(open, built)));
      }
    },
    api: async (ctx) => {
      ctx.type = 'application/json';
      ctx.body = catalogue(await townOpen(), '/AGENTS.md/api');
    },
    examples: async (ctx) => {
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = examples;
    },
    doc: async (ctx) => {
      const name = ctx.params.name;
      if (!(agentDocs as readonly string[]).includes(name)) {
        throw new TownError('unknownRoute', `no document ${JSON.stringify(name.slice(0, 80))}; the documents are ${agentDocs.join(', ')}`, {
          hintHref: '/AGENTS.md/api',
        });
      }
      ctx.type = 'text/markdown; charset=utf-8';
      ctx.body = once(`doc ${name}`, () => fs.readFileSync(path.join(projectRoot(), 'docs', name), 'utf8'));
    },
    llmsTxt: async (ctx) => {
      const open = await townOpen();
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = once(`llms ${open}`, () => llmsText(config.origin, routesFor(open, config.catalogue), (r: Route) => built(r.base ?? r.name)));
    },
    health: async () => ({ status: 'ok' }),
  };
}
