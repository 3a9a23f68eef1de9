/**
 * The registry of the world's read models: every projection by name, as the server, the
 * projector workers, rebuild and digest all know them.
 */
import type { Programs } from '../cards/kernel/programs.js';
import { cardsProjection } from './cards.js';
import { feedProjection } from './feed.js';
import { guestsProjection } from './guests.js';
import { offersProjection } from './offers.js';
import { pendingProjection } from './pending.js';
import type { Projection } from './projection.js';
import { receiptsProjection } from './receipts.js';
import { repositoryProjection, type RepositoryProjectionOptions } from '../repository/projection.js';

export const projectionNames = ['cards', 'receipts', 'offers', 'pending', 'guests', 'feed', 'repository'] as const;
export type ProjectionName = (typeof projectionNames)[number];

/** `repository`: the keys it signs with (none: records without a tree; src/repository/keys.ts). */
export function allProjections(programs: Programs, repository: RepositoryProjectionOptions = {}): Record<ProjectionName, Projection> {
  return {
    cards: cardsProjection(programs),
    receipts: receiptsProjection(),
    offers: offersProjection(),
    pending: pendingProjection(),
    guests: guestsProjection(),
    feed: feedProjection(),
    repository: repositoryProjection(repository),
  };
}

export function isProjectionName(name: string): name is ProjectionName {
  return (projectionNames as readonly string[]).includes(name);
}
