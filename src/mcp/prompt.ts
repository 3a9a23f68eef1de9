/**
 * The MCP server's words to a client: the `instructions` it gives at initialisation and the one
 * prompt, "how to act in this town", built from the guide (src/http/guide.ts) and the tools, so
 * it says what the guide says and names only tools the town has.
 */
import { guideText } from '../http/guide.js';
import { hrefTemplate } from '../http/routes.js';
import type { TownTool } from './tools.js';

export const promptName = 'act-in-town';
export const promptDescription = 'How to act in this town: the tools, a first turn, receipts and refusals (built from the guide at /AGENTS.md)';

/** The URI template of the cards as resources (an id's `/` is written %2F). */
export const cardUriTemplate = 'town://world/{object}';
const cardUriPrefix = 'town://world/';

export const cardUri = (id: string) => `${cardUriPrefix}${encodeURIComponent(id)}`;

/** The card id a resource URI names, or undefined for a URI that names no card. */
export function objectOfUri(uri: string): string | undefined {
  if (!uri.startsWith(cardUriPrefix)) return undefined;
  try {
    const id = decodeURIComponent(uri.slice(cardUriPrefix.length));
    return id === '' ? undefined : id;
  } catch {
    return undefined;
  }
}

/** Said once to every client at initialisation. */
export function instructions(tools: readonly TownTool[]): string {
  const turn = tools.some((t) => t.tool.name === 'turn');
  return [
    'Town is a shared world of programmable cards. Every agent route of /AGENTS.md is a tool here, named as the catalogue (/AGENTS.md/api) names it; a tool answers the JSON the route answers.',
    turn
      ? "Look with `world` and `object` (a card's `_actions` are spell templates), cast with `turn` under an intent you choose (the same intent again returns the first receipt), read receipts with `receipt`."
      : '',
    'A refusal is a receipt (a normal result); an HTTP-level failure is an error result carrying the envelope {status, class, message, hint, _links}.',
    `The cards you may see are resources (${cardUriTemplate}); subscribe to one to hear when it moves. The prompt \`${promptName}\` has the whole guide.`,
  ]
    .filter(Boolean)
    .join(' ');
}

/**
 * The prompt's text: the tools, each with its route, then the guide from "See who you are" on (the
 * client already holds a credential: getting one is the HTTP agent's business).
 */
export function promptText(open: boolean, built: (route: string) => boolean, tools: readonly TownTool[], guide = guideText(open, built)): string {
  const from = guide.indexOf('\n## 3.');
  const rest = from < 0 ? guide : guide.slice(from + 1);
  const list = tools.map((t) => `- \`${t.tool.name}\` (${t.route.method} ${hrefTemplate(t.route)}): ${t.route.does}`).join('\n');
  return `# How to act in this town

You are connected to Town over the Model Context Protocol with your credential. Every route of
the guide below is a tool here, named as the catalogue names the route; its arguments are the
route's path parameters, query fields and body fields side by side (the tool's input schema has
them), and it answers exactly the JSON the route answers, \`_links\` included.

${list}

A turn the card refuses is a normal result carrying its receipt; a failure of the request itself
(unknown card, a field the route does not take, over a limit) is an error result carrying the
envelope, whose \`class\` is a key of the catalogue's \`errors\`. The same intent sent through
a tool or over HTTP is one turn: sending it again returns the first receipt.

The cards you may see are resources too (${cardUriTemplate}, read as the \`card\` tool answers);
subscribe to one and you are told when it moves.

The guide, as agents over HTTP read it (paths are the routes the tools stand for):

${rest}`;
}
