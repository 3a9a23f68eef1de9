/**
 * The names of the world's read models, as the server, the projector workers, rebuild, digest
 * and read-your-writes all know them. Only the names: the projections themselves, the
 * repository's among them, are put together above the repository (src/projectors/registry.ts),
 * whose type checks that each one is named here.
 */

/** In the order rebuilds and digests list them. Readers name them by these literals, checked. */
export const projectionNames = ['cards', 'receipts', 'offers', 'pending', 'guests', 'feed', 'hosted', 'repository'] as const;
export type ProjectionName = (typeof projectionNames)[number];

export function isProjectionName(name: string): name is ProjectionName {
  return (projectionNames as readonly string[]).includes(name);
}
