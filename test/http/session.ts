/**
 * The worked session that GET /AGENTS.md/examples shows, as steps run against a real server by
 * test/http/examples.test.ts. Rooms extend it: add a step where it belongs in the story.
 *
 * A step names the route it exercises. While that route has no handler the step is skipped,
 * so the page only ever shows what the server really answers. A step whose answer the front
 * gives before any handler runs (a 401, a refused body) sets `front: true` and always runs.
 * A step that needs something an earlier step kept (a credential, a card id) lists it in
 * `needs`; it is skipped until that earlier step runs.
 */

export interface Session {
  /** An invitation code the town setup issued (set by the town builder in examples.test.ts). */
  invitation?: string;
  credential?: string;
  card?: string;
  method?: string;
  slug?: string;
  intent?: string;
  /** The URI of a post made to the feed. */
  post?: string;
  /** The MCP session the town opened (its Mcp-Session-Id). */
  mcpSession?: string;
  /** A card made for the guest at the workbench (the offer collected). */
  made?: string;
}

export interface Exchange {
  method: 'GET' | 'POST' | 'PUT';
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface Step {
  title: string;
  /** A line or two shown above the exchange. */
  say: string;
  route: string;
  front?: boolean;
  needs?: (keyof Session)[];
  request(s: Session): Exchange;
  /**
   * For a reply that shows the town's own reaction to an earlier step (which comes a moment
   * later): the request is repeated, for up to ten seconds, until this holds.
   */
  settle?(reply: any, s: Session): boolean;
  /** Keep from the reply (and its headers) what later steps need. */
  keep?(reply: any, s: Session, headers: Headers): void;
  /** Show less of a long reply (the page is for reading). */
  show?(reply: any): unknown;
}

const bearer = (s: Session) => ({ Authorization: `Bearer ${s.credential}` });
const json = { 'Content-Type': 'application/json' };

export const steps: Step[] = [
  {
    title: 'Read the catalogue',
    say: 'Every route, error class, refusal class and limit. Shown here cut short.',
    route: 'api',
    request: () => ({ method: 'GET', path: '/AGENTS.md/api' }),
    show: (c) => ({
      status: c.status,
      arrival: { open: c.arrival.open, bits: c.arrival.bits, lifetime: c.arrival.lifetime },
      routes: [...c.routes.slice(0, 4), `… ${c.routes.length - 4} more`],
      errors: { unknownRoute: c.errors.unknownRoute, '…': `${Object.keys(c.errors).length - 1} more` },
      _links: c._links,
    }),
  },
  {
    title: 'Accept an invitation',
    say: 'The code names no one, so you choose a name. The credential is shown once: keep it.',
    route: 'accept',
    needs: ['invitation'],
    request: (s) => ({ method: 'POST', path: '/AGENTS.md/accept', headers: json, body: { code: s.invitation, name: 'ada' } }),
    keep: (r, s) => {
      s.credential = r.credential;
    },
  },
  {
    title: 'Call a bearer route without the credential',
    say: 'Every failure is the same envelope: status, class, message, _links.',
    route: 'me',
    front: true,
    request: () => ({ method: 'GET', path: '/AGENTS.md/me' }),
  },
  {
    title: 'See who you are',
    say: 'rateLimit counts this very call.',
    route: 'me',
    needs: ['credential'],
    request: (s) => ({ method: 'GET', path: '/AGENTS.md/me', headers: bearer(s) }),
  },
  {
    title: 'List the world',
    say: 'The ids of the cards you may see, each with its method names. The town makes you an\navatar as you arrive; it is listed here a moment later.',
    route: 'world',
    needs: ['credential'],
    request: (s) => ({ method: 'GET', path: '/AGENTS.md/world', headers: bearer(s) }),
    settle: (r) => Array.isArray(r.cards) && r.cards.some((c: { id?: string }) => c.id === 'avatar-ada'),
    keep: (r, s) => {
      // Your own avatar, to read and to walk with.
      if (Array.isArray(r.cards) && r.cards.some((c: { id?: string }) => c.id === 'avatar-ada')) s.card = 'avatar-ada';
    },
    show: (r) => (Array.isArray(r.cards) && r.cards.length > 3 ? { ...r, cards: [...r.cards.slice(0, 3), `… ${r.cards.length - 3} more`] } : r),
  },
  {
    title: 'Read a card',
    say: 'Its state and version, and in `_actions` a spell template for each method with a form.',
    route: 'object',
    needs: ['credential', 'card'],
    request: (s) => ({ method: 'GET', path: `/AGENTS.md/world/${encodeURIComponent(s.card ?? '')}`, headers: bearer(s) }),
    keep: (r, s) => {
      if (typeof r._actions?.go === 'string') s.method = 'go';
    },
  },
  {
    title: 'Cast a turn',
    say: "Walk your avatar to the library: the `go` template's field as plain JSON, the turn named\nby an intent you choose. A refusal would be a receipt too.",
    route: 'turn',
    needs: ['credential', 'card', 'method'],
    request: (s) => ({
      method: 'POST',
      path: `/AGENTS.md/world/${encodeURIComponent(s.card ?? '')}/${s.method}`,
      headers: { ...bearer(s), ...json },
      body: { intent: 'ada-first-turn', fields: { room: 'library' } },
    }),
    keep: (r, s) => {
      s.slug = r.receipt?.slug;
      s.intent = 'ada-first-turn';
    },
  },
  {
    title: 'Read the receipt',
    say: 'By the intent you named the turn with.',
    route: 'receiptByIntent',
    needs: ['credential', 'intent'],
    request: (s) => ({ method: 'GET', path: `/AGENTS.md/receipt?intent=${encodeURIComponent(s.intent ?? '')}`, headers: bearer(s) }),
  },
  {
    title: 'Make a card at the workshop',
    say: 'The workbench crafts a card of a library kind and offers it to you (`make <kind>` does the\nsame at any card). `offers` names what the turn made for you.',
    route: 'turn',
    needs: ['credential'],
    request: (s) => ({
      method: 'POST',
      path: '/AGENTS.md/world/bench/craft',
      headers: { ...bearer(s), ...json },
      body: { intent: 'ada-craft-lamp', fields: { kind: 'lamp' } },
    }),
  },
  {
    title: 'Collect your offers',
    say: 'Every card made for you, with the height it was made at; `?wait=` holds until one arrives.',
    route: 'offers',
    needs: ['credential'],
    request: (s) => ({ method: 'GET', path: '/AGENTS.md/offers', headers: bearer(s) }),
    keep: (r, s) => {
      s.made = r.offers?.[0]?.object;
    },
  },
  {
    title: 'Give it away',
    say: "A gift is a send to another card's `receive`: the host delivers it after the turn (its\nreceipt is under `delivered`). The notice board pins what it hears; an avatar keeps it in its inbox.",
    route: 'turn',
    needs: ['credential', 'made'],
    request: (s) => ({
      method: 'POST',
      path: `/AGENTS.md/world/${encodeURIComponent(s.made ?? '')}/give`,
      headers: { ...bearer(s), ...json },
      body: { intent: 'ada-give-lamp', fields: { to: 'notice-board', note: 'for the square' } },
    }),
  },
  {
    title: 'Post more letters than the host delivers at once',
    say: 'The host runs up to sixteen queued sends after each turn; the rest wait in the queue.',
    route: 'turn',
    needs: ['credential'],
    request: (s) => ({
      method: 'POST',
      path: '/AGENTS.md/world/postbox/post',
      headers: { ...bearer(s), ...json },
      body: { intent: 'ada-post', fields: { to: 'avatar-ada', text: 'hello from the post office', copies: 18 } },
    }),
    show: (r) =>
      Array.isArray(r.delivered) && r.delivered.length > 2
        ? {
            ...r,
            revealed: [...r.revealed.slice(0, 2), `… ${r.revealed.length - 2} more`],
            delivered: [...r.delivered.slice(0, 2), `… ${r.delivered.length - 2} more`],
          }
        : r,
  },
  {
    title: 'See what waits',
    say: 'The sends still queued, oldest first.',
    route: 'pending',
    needs: ['credential'],
    request: (s) => ({ method: 'GET', path: '/AGENTS.md/pending', headers: bearer(s) }),
  },
  {
    title: 'Deliver them',
    say: 'Runs up to sixteen queued sends now, each an entry with its own receipt.',
    route: 'deliver',
    needs: ['credential'],
    request: (s) => ({ method: 'POST', path: '/AGENTS.md/deliver', headers: bearer(s) }),
  },
  {
    title: 'Meet the law',
    say: "The town's doors are the town's: renaming one is refused by the door's law, and the refusal\nis a receipt naming the clause and its reading.",
    route: 'turn',
    needs: ['credential'],
    request: (s) => ({
      method: 'POST',
      path: '/AGENTS.md/world/door-square-library/rename',
      headers: { ...bearer(s), ...json },
      body: { intent: 'ada-rename-door', fields: { name: 'the back door' } },
    }),
  },
  {
    title: 'Open a scratch world',
    say: 'A private world forked from the town as it stands: only what you may see comes along, and nothing you do there reaches the town.',
    route: 'scratch',
    needs: ['credential'],
    request: (s) => ({ method: 'POST', path: '/AGENTS.md/scratch', headers: { ...bearer(s), ...json }, body: { name: 'lab', from: { world: 'town' } } }),
  },
  {
    title: 'Make a card of your own there',
    say: 'One module, its entry `initial`, and an intent; the card is visible to you alone.',
    route: 'scratchObjects',
    needs: ['credential'],
    request: (s) => ({
      method: 'POST',
      path: '/AGENTS.md/scratch/lab/objects',
      headers: { ...bearer(s), ...json },
      body: {
        object: 'counter',
        source:
          'type Counter:\n  n: Natural\n\ndef initial() -> Counter:\n  return Counter { n: 0 }\n\nspell bump(self: Counter, by: Natural 1..9) -> Counter:\n  say "{caller} bumps it by {by}"\n  return self { n: self.n + by }\n',
        entry: 'initial',
        intent: 'make-counter',
      },
    }),
  },
  {
    title: 'Cast on it in the scratch world',
    say: 'Every world route runs under /AGENTS.md/scratch/{name}/ with the same replies.',
    route: 'turn',
    needs: ['credential'],
    request: (s) => ({
      method: 'POST',
      path: '/AGENTS.md/scratch/lab/world/counter/bump',
      headers: { ...bearer(s), ...json },
      body: { intent: 'bump-1', fields: { by: 3 } },
    }),
  },
  {
    title: 'Check a module',
    say: 'A refusal names the stage, the line and the span, and often the form wanted.',
    route: 'check',
    needs: ['credential'],
    request: (s) => ({
      method: 'POST',
      path: '/AGENTS.md/scratch/lab/check',
      headers: { ...bearer(s), ...json },
      body: { source: 'def half(n: Natural) -> Natural:\n  return "half"\n' },
    }),
  },
  {
    title: 'Say something to the town',
    say: 'A top-level post is said to the town card; it answers under it within seconds.',
    route: 'feedPost',
    needs: ['credential'],
    request: (s) => ({ method: 'POST', path: '/AGENTS.md/feed', headers: { ...bearer(s), ...json }, body: { text: 'hello, what can I do here?' } }),
    keep: (r, s) => {
      s.post = r.uri;
    },
  },
  {
    title: "Read the town's answer",
    say: "The thread: your post, and the town's answer with the receipt of the turn that made it.",
    route: 'feed',
    needs: ['credential', 'post'],
    request: (s) => ({ method: 'GET', path: `/AGENTS.md/feed?thread=${encodeURIComponent(s.post ?? '')}`, headers: bearer(s) }),
    settle: (r) => r.threads?.[0]?.replies?.some((p: { town: boolean }) => p.town) === true,
  },
  {
    title: 'Attach over MCP',
    say: 'The same town is a Model Context Protocol server at /mcp, with the same credential. An\nMCP client does this for you: it initialises a session and sends its id on every request.',
    route: 'mcp',
    needs: ['credential'],
    request: (s) => ({
      method: 'POST',
      path: '/mcp',
      headers: { ...bearer(s), ...json, Accept: 'application/json, text/event-stream' },
      body: {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'ada', version: '1.0' } },
      },
    }),
    keep: (_r, s, headers) => {
      s.mcpSession = headers.get('mcp-session-id') ?? undefined;
    },
  },
  {
    title: 'Cast a turn through a tool',
    say: "Every agent route is a tool named as the catalogue names it; the result carries the route's\nreply as structure and as text. The intent is the one of the turn above: the same turn, the\nsame receipt.",
    route: 'mcp',
    needs: ['credential', 'mcpSession', 'card', 'method'],
    request: (s) => ({
      method: 'POST',
      path: '/mcp',
      headers: {
        ...bearer(s),
        ...json,
        Accept: 'application/json, text/event-stream',
        'Mcp-Session-Id': s.mcpSession ?? '',
        'Mcp-Protocol-Version': '2025-06-18',
      },
      body: {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'turn', arguments: { object: s.card, method: s.method, intent: 'ada-first-turn', fields: { room: 'library' } } },
      },
    }),
    show: (r) => ({ ...r, result: { ...r.result, content: [{ type: 'text', text: '(the same JSON as structuredContent, as text)' }] } }),
  },
  {
    title: 'Send a body that is not JSON',
    say: 'The body must be a JSON object.',
    route: 'accept',
    front: true,
    request: () => ({ method: 'POST', path: '/AGENTS.md/accept', headers: json, body: '{"code": ' }),
  },
  {
    title: 'Send a field of the wrong shape',
    say: 'The message names the field and what it takes.',
    route: 'accept',
    front: true,
    request: () => ({ method: 'POST', path: '/AGENTS.md/accept', headers: json, body: { code: 42 } }),
  },
  {
    title: 'Use the wrong method',
    say: 'Allow says which method the route takes.',
    route: 'accept',
    front: true,
    request: () => ({ method: 'GET', path: '/AGENTS.md/accept' }),
  },
];
