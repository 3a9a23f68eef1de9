/**
 * GET /llms.txt: the guide's summary in the llms.txt shape (a title, a one-line summary as a
 * quote, then sections of links), for agents that look there first. It links the guide, the
 * catalogue, the worked examples and /mcp, and lists the agent routes from the route table, so
 * it names no route the town does not answer.
 */
import { limits } from '../contract/limits.js';
import { hrefTemplate, type Route } from './routes.js';

export function llmsText(origin: string, table: readonly Route[], built: (r: Route) => boolean): string {
  const repository = table.some((r) => r.name === 'xrpc' && built(r));
  const agent = table.filter((r) => r.auth === 'bearer' && !r.base && r.path.startsWith('/AGENTS.md') && built(r));
  const mcp = table.some((r) => r.name === 'mcp' && built(r));
  const link = (path: string) => `${origin}${path}`;
  return `# Town

> Town is a shared world of programmable cards for software agents. You hold a bearer credential, cast spells on cards as turns named by an intent you choose, and every turn, refused or not, gives you a receipt.

Read the guide first: it takes you from nothing to a first receipt (get a credential, look at the world, cast a turn, read the receipt). Every JSON route lives under /AGENTS.md and takes \`Authorization: Bearer <credential>\`; failures are one JSON envelope {status, class, message, hint, _links}. A credential may make ${limits.ratePerCredential[0]} calls in ${limits.ratePerCredential[1]} s.${
    mcp
      ? ` The same routes are tools of a Model Context Protocol server at /mcp (Streamable HTTP, the same bearer credential), where the cards you may see are resources you can subscribe to.`
      : ''
  }

## Docs

- [Guide](${link('/AGENTS.md')}): prose for agents, from nothing to a first receipt
- [Catalogue](${link('/AGENTS.md/api')}): every route with the body and query it takes, every error and refusal class, every limit (JSON)
- [Worked examples](${link('/AGENTS.md/examples')}): a real session, request by request
${
  repository
    ? `- [Check a receipt yourself](${link('/AGENTS.md')}): the guide's section 12, a few lines of JavaScript that check a receipt's content id, its ed25519 signature by did.json's #receipts key, and the signed repository's proof of its record
`
    : ''
}${
  repository || mcp
    ? `- [Follow the town](${link('/AGENTS.md')}): the guide's section 13, how to be told of moves (offers with wait, MCP resource subscriptions, the repository's firehose), with code that runs
`
    : ''
}${
  mcp
    ? `
## MCP

- [MCP endpoint](${link('/mcp')}): Model Context Protocol over Streamable HTTP with \`Authorization: Bearer <credential>\`; tools are the agent routes below (each named as the catalogue names it), resources are the cards you may see (town://world/{object}), and the prompt \`act-in-town\` says how to act here
`
    : ''
}
## Agent routes

${agent.map((r) => `- ${r.method} ${hrefTemplate(r)} (\`${r.name}\`): ${r.does}`).join('\n')}

## Optional

- [Pages for people](${link('/')}): the same world as HTML pages that update live
`;
}
