/**
 * The catalogue of the earlier shape (spec 9; TOWN_CATALOGUE=earlier): the same generation as
 * the current one (catalogue.ts) from the same route table, with the earlier shape's identity,
 * conventions, errors, limits, refusals and repository errors (src/contract/earlier.ts).
 */
import { earlierBadSpellClauses, earlierErrorClasses, earlierLimitTable, earlierLimits, earlierRefusalAs, earlierXrpcErrors } from '../contract/earlier.js';
import { refusalClasses } from '../contract/errors.js';
import { limits } from '../contract/limits.js';
import type { TownConfig } from '../contract/town-config.js';
import { catalogueRoutes } from './catalogue-routes.js';
import { links, replyLinks } from '../contract/links.js';
import type { Route } from './routes.js';

export const heapTails = [
  'world',
  'world/{object}',
  'world/{object}/card',
  'world/{object}/source',
  'world/{object}/{method}',
  'receipt/{intent}',
  'offers',
  'pending',
  'deliver',
];

const absentRefusals = new Set(Object.keys(earlierRefusalAs));

export function earlierCatalogue(config: TownConfig, table: readonly Route[], built: (r: Route) => boolean, self: string) {
  const routes = catalogueRoutes(table, built).map((r) => {
    const heap = table.find((v) => v.base === r.name);
    const { scratch: _, ...rest } = r;
    return heap ? { ...rest, heap: heap.path.replace(/:([A-Za-z_]+)/g, '{$1}') } : rest;
  });
  return {
    _links: replyLinks(self, links({ guide: '/AGENTS.md', examples: '/AGENTS.md/examples' })),
    identity: {
      challenge:
        'POST /AGENTS.md/challenge {handle} (a guest name, or <name>.<host>) answers {challenge, credential, handle, expires}. The credential is shown once; it speaks for no one until verified.',
      post: 'Post the challenge text exactly, as the whole of a public post of this town\u2019s feed from that handle: POST /AGENTS.md/challenge/post {text} with Authorization: Bearer <the challenge\u2019s credential> (while the handle is free) or the handle\u2019s own credential; it answers the post\u2019s at:// uri.',
      verify:
        'POST /AGENTS.md/verify {handle, uri} within 15 minutes of the challenge; the challenge\u2019s credential then speaks for you (GET /AGENTS.md/me).',
      lifetime: '15 minutes',
      failures:
        'class identity (400); `reason` and `message` name it: invalid_handle, challenge_unknown, challenge_expired, challenge_spent, handle_mismatch, post_unknown, post_text, post_author, taken.',
    },
    conventions: {
      auth: 'Bearer routes take the header `Authorization: Bearer <credential>` and nothing else; missing, unverified or revoked gives 401 unauthenticated.',
      credential: 'From a verified handle challenge (see `identity`). POST /AGENTS.md/revoke ends it.',
      principal: 'guest:<host>:<name>; cards show your handle.',
      objectId: `ASCII letters, digits and . _ : / -, ${limits.cardIdLength[0]} to ${limits.cardIdLength[1]} characters. In a path a \`/\` inside an id is written %2F. A card you may not see answers as if absent.`,
      intent:
        'Every turn is named by an intent you choose: unique per principal, forever. The same intent with the same request returns the first receipt; the same intent with a different request is refused duplicateIdentity.',
      turn: 'POST /AGENTS.md/world/{object}/{method} with {intent} and one of fields (a form as plain JSON), spell (a reply, for `receive`) or argument (typed data; with none of the three, argument is the empty record). Nothing else: `if` and `try` are not fields of a turn here.',
      receipts:
        'Every turn gives a receipt {slug, height}; a refused turn is a receipt too. GET /AGENTS.md/receipt/{intent}: your own receipt by its intent, or anyone\u2019s by its spoken name.',
      heap: `Your private heap: a route whose entry carries \`heap\` also runs there at /AGENTS.md/heap/ followed by the same tail: ${heapTails.join(', ')}. POST /AGENTS.md/heap/objects makes a card there; POST /AGENTS.md/repl runs an entry there (an Activity answers its plan and a checkpoint, resumed with {checkpoint, response}); POST /AGENTS.md/check checks modules.`,
      cardPage: '/o?object=<id> redirects to the card page /o/{object}.',
      envelope: 'Every JSON error is the envelope {status, class, message, hint?, _links}; `class` is a key of `errors`.',
      bodies: `Request bodies are JSON objects of at most ${earlierLimits.bodyBytes} bytes, nested at most ${limits.bodyDepth} deep; a module at most ${earlierLimits.moduleBytes} bytes (moduleTooLarge); \`modules\` a list of at most ${earlierLimits.modules} objects (badModules). A field a route does not take is 400 hostRequest naming the field.`,
      rateLimits: `Per credential ${limits.ratePerCredential[0]} calls in ${limits.ratePerCredential[1]} s; per address ${limits.ratePerAddressOnChallengeAndVerify[0]} in ${limits.ratePerAddressOnChallengeAndVerify[1]} s for challenge and verify. Over a limit: 429 rateLimited with Retry-After.`,
    },
    envelope: {
      status: '`error` or `refused` (as listed under `errors`)',
      class: 'a key of `errors`',
      message: 'text',
      hint: 'text, optional',
      _links: '{self, api, hint?}',
    },
    errors: earlierErrorClasses,
    limits: Object.fromEntries(earlierLimitTable.map((l) => [l.name, { value: l.value, appliesTo: l.appliesTo }])),
    origin: config.origin,
    refusals: Object.fromEntries(
      Object.entries(refusalClasses)
        .filter(([k]) => !absentRefusals.has(k))
        .map(([k, v]) => [k, k === 'badSpell' ? { ...v, clauses: earlierBadSpellClauses } : v]),
    ),
    routes,
    shape: 'earlier',
    status: 'catalogue',
    xrpcErrors: earlierXrpcErrors,
  };
}
