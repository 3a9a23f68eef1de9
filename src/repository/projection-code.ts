/**
 * The AT Protocol code the repository projection's fold uses, in one module that projection.ts
 * loads with its first fold rather than at start: the projector threads load the projections'
 * registry, and @atproto/repo (with zod and the curves) was ~40 % of what a thread without the
 * repository loaded before it could start (docs/decisions/repository-commits.md).
 */
export { TID } from '@atproto/common-web';
export { cidForCbor, parseCid } from '@atproto/lex-data';
export { encode as cborEncode } from '@atproto/lex-cbor';
export { def, MST } from '@atproto/repo';
export { DocBlockstore } from './block-store.js';
export { blockTexts, carOf } from './block-texts.js';
export { commitAt } from './commit.js';
export { hostedFrame } from './hosted/frames.js';
export { HostedTrees } from './hosted/tree.js';
