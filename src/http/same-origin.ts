/**
 * Cross-site request protection for cookie-authenticated POSTs. A browser names the page a
 * request comes from in `Origin` (every POST in current browsers) or at least in `Referer`;
 * a request from another site's page is refused. A request naming neither is not from a
 * browser page (curl, a script): it cannot ride on a victim's cookie, so it passes.
 */
import type { TownContext } from './handler.js';
import type { TownConfig } from '../contract/town-config.js';
import { TownError } from '../contract/town-error.js';

function originOf(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.origin === 'null' ? undefined : parsed.origin;
  } catch {
    return undefined;
  }
}

/** Throws `denied` (403) when the request comes from a page of another site. */
export function checkSameOrigin(ctx: TownContext, config: Pick<TownConfig, 'origin'>): void {
  const allowed = new Set<string>();
  const configured = originOf(config.origin);
  if (configured) allowed.add(configured);
  // The address the browser itself used: it reaches us by it, whatever origin was configured.
  const own = originOf(`${ctx.protocol}://${ctx.host}`);
  if (own) allowed.add(own);

  if (ctx.get('Sec-Fetch-Site') === 'cross-site') throw crossSite();
  const origin = ctx.get('Origin');
  if (origin) {
    if (!allowed.has(originOf(origin) ?? '')) throw crossSite();
    return;
  }
  const referer = ctx.get('Referer');
  if (referer && !allowed.has(originOf(referer) ?? '')) throw crossSite();
}

function crossSite(): TownError {
  return new TownError('denied', 'a form of another site cannot post here', { hint: "use the form on this town's own page" });
}
