/**
 * The registry of the world's read models: every projection by name (src/projections/index.ts
 * names them), as the server, the projector workers, rebuild and digest all run them. It sits
 * above the repository because the repository's own projections are among them.
 */
import type { Programs } from '../cards/kernel/programs.js';
import { cardsModel, cardsProjection } from '../projections/cards.js';
import { feedModel, feedProjection } from '../projections/feed.js';
import { guestsModel, guestsProjection } from '../projections/guests.js';
import type { ProjectionName } from '../projections/index.js';
import { offersModel, offersProjection } from '../projections/offers.js';
import { pendingModel, pendingProjection } from '../projections/pending.js';
import type { Projection } from '../projections/projection.js';
import { receiptsModel, receiptsProjection } from '../projections/receipts.js';
import { repositoryName, repositoryProjection, type RepositoryProjectionOptions } from '../repository/projection.js';
import { hostedModel, hostedProjection } from '../repository/hosted/projection.js';

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
