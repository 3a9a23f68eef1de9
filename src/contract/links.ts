/**
 * `_links` (spec 2.10): every JSON reply carries them, relation name to {href} or a list of
 * {href, name}. The front adds `self` and `api` to every reply; handlers add their own with
 * `links({...})`, using hrefOf (src/http/routes.ts) to build hrefs from route names.
 */
export type Link = { href: string; name?: string };
export type Links = Record<string, Link | Link[]>;

export const apiHref = '/AGENTS.md/api';

type LinkLike = string | Link;

/** links({card: '/AGENTS.md/world/a/card', doors: [{href, name}]}) -> {card: {href}, doors: [...]} */
export function links(rels: Record<string, LinkLike | LinkLike[] | undefined>): Links {
  const out: Links = {};
  for (const [rel, v] of Object.entries(rels)) {
    if (v === undefined) continue;
    out[rel] = Array.isArray(v) ? v.map(asLink) : asLink(v);
  }
  return out;
}

const asLink = (v: LinkLike): Link => (typeof v === 'string' ? { href: v } : v);

/** The links of a reply: `self` and `api`, then the handler's own (which may override `self`). */
export function replyLinks(self: string, own?: Links): Links {
  return { self: { href: self }, api: { href: apiHref }, ...own };
}

const apiLinkJson = `,"api":${JSON.stringify({ href: apiHref })}}`;

/** `JSON.stringify(replyLinks(self))`, without building the object. */
export function selfLinksJson(self: string): string {
  return `{"self":{"href":${JSON.stringify(self)}}${apiLinkJson}`;
}
