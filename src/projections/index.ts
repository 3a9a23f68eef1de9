/**
 * The registry of the world's read models: every projection by name, as the server, the
 * projector workers, rebuild and digest all know them.
 */
import type { Programs } from '../cards/kernel/programs.js';
import { cardsModel, cardsProjection } from './cards.js';
import { feedModel, feedProjection } from './feed.js';
import { guestsModel, guestsProjection } from './guests.js';
import { offersModel, offersProjection } from './offers.js';
import { pendingModel, pendingProjection } from './pending.js';
import type { Projection } from './projection.js';
import { receiptsModel, receiptsProjection } from './receipts.js';
import { repositoryName, repositoryProjection, type RepositoryProjectionOptions } from '../repository/projection.js';
import { hostedModel, hostedProjection } from '../repository/hosted/projection.js';

/** In the order rebuilds and digests list them. Readers name them by these literals, checked. */
export const projectionNames = [
  cardsModel.name,
  receiptsModel.name,
  offersModel.name,
  pendingModel.name,
  guestsModel.name,
  feedModel.name,
  hostedModel.name,
  repositoryName,
] as const;
export type ProjectionName = (typeof projectionNames)[number];

/** `repository`: the keys it signs with (none: records without a tree; src/repository/keys.ts). */
export function allProjections(programs: Programs, repository: RepositoryProjectionOptions = {}): Record<ProjectionName, Projection> {
  return {
    [cardsModel.name]: cardsProjection(programs),
    [receiptsModel.name]: receiptsProjection(),
    [offersModel.name]: offersProjection(),
    [pendingModel.name]: pendingProjection(),
    [guestsModel.name]: guestsProjection(),
    [feedModel.name]: feedProjection(),
    [hostedModel.name]: hostedProjection(),
    [repositoryName]: repositoryProjection(repository),
  };
}

export function isProjectionName(name: string): name is ProjectionName {
  return (projectionNames as readonly string[]).includes(name);
}
