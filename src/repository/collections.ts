/**
 * Names of repository collections that modules loading the AT Protocol code export, kept here
 * too so that the projection names them without loading that code (projection.ts loads it with
 * its first fold: a projector thread without the repository never does).
 */
export const blocksCollection = 'repository.blocks';
export const accountsCollection = 'repository.accounts';
