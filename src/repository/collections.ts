/**
 * Names of repository collections, in a module that loads no AT Protocol code, so that the
 * projection names them without loading that code (projection.ts loads it with its first fold:
 * a projector thread without the repository never does). block-store.ts and hosted/frames.ts
 * export them again for their importers.
 */
export const blocksCollection = 'repository.blocks';
export const accountsCollection = 'repository.accounts';
