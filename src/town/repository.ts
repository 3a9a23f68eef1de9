/**
 * The town's repository: its signing keys, its DID, the hosted accounts' trees, and the xrpc
 * room that serves the repository, the hosted accounts and the calls of other services. Off
 * (TownOptions.repository false), the projection does not run and the room serves no commits.
 */
import type { Clock } from '../contract/clock.js';
import type { TownConfig } from '../contract/town-config.js';
import type { Settings } from '../config.js';
import type { Programs } from '../cards/kernel/programs.js';
import type { WorldService } from '../commands/world-service.js';
import { xrpcHandlers } from '../http/handlers/xrpc.js';
import type { ReadYourWrites } from '../queries/fresh.js';
import { publicKeys, townDid } from '../repository/identity.js';
import { loadRepositoryKeys, type RepositoryKeys } from '../repository/keys.js';
import { RepositoryReads } from '../repository/reads.js';
import { ServiceAuth } from '../repository/service-auth.js';
import { HostedReads } from '../repository/hosted/reads.js';
import { HostedTrees } from '../repository/hosted/tree.js';
import { HostedWrites } from '../repository/hosted/writes.js';
import type { TownOptions } from './options.js';
import type { Stores } from './stores.js';

/**
 * The repository keys (~0.1 s of the main thread: the curve's tables for the commit key) are
 * made once the world is open, while the start may still wait for the projector threads; their
 * failure is the start's when the repository is opened (openRepository).
 */
export function repositoryKeysAfter(worldOpened: Promise<void>, settings: Settings): Promise<RepositoryKeys | undefined> {
  const keysLoaded = worldOpened.then(() => (settings.signing !== false ? loadRepositoryKeys(settings.dataDir) : undefined));
  keysLoaded.catch(() => {});
  return keysLoaded;
}

export async function openRepository(reads: Stores['reads'], config: TownConfig, keysLoaded: Promise<RepositoryKeys | undefined>) {
  const repository = new RepositoryReads(reads);
  const worldDid = async () => (await repository.head())?.did ?? townDid(config.host);
  const repositoryKeys = await keysLoaded;
  const keys = repositoryKeys ? publicKeys(repositoryKeys) : undefined;
  // The hosted accounts' trees, shared by their writes and their CARs (src/repository/hosted/tree.ts).
  const hostedTrees = new HostedTrees();
  return { worldDid, repositoryKeys, keys, hostedTrees };
}

export type TownRepository = Awaited<ReturnType<typeof openRepository>>;

export interface RepositoryRoomParts {
  options: TownOptions;
  stores: Stores;
  programs: Programs;
  clock: Clock;
  config: TownConfig;
  repository: TownRepository;
  firehoseUrl: string | undefined;
  world: WorldService;
  fresh: ReadYourWrites;
}

/** The xrpc room: the repository's reads, the hosted accounts' reads and writes, service calls. */
export function repositoryRoom({ options, stores, programs, clock, config, repository, firehoseUrl, world, fresh }: RepositoryRoomParts) {
  const { events, reads } = stores;
  const { worldDid, repositoryKeys, keys, hostedTrees } = repository;
  return xrpcHandlers({
    reads,
    events,
    programs,
    clock,
    config,
    keys,
    firehoseUrl: () => firehoseUrl,
    past: () => world.committed.past,
    hosted: new HostedReads({ reads, events, trees: hostedTrees, origin: config.origin, keys }),
    writes: {
      writes: new HostedWrites({ events, clock, signer: repositoryKeys?.commit, trees: hostedTrees }),
      events,
      host: config.host,
      townDid: worldDid,
      waits: fresh.waits,
      waitMs: options.readYourWritesMs ?? 2000,
    },
    calls: {
      auth: new ServiceAuth({
        host: config.host,
        townDid: worldDid,
        signer: repositoryKeys?.commit,
        guestExists: async (name) => (await events.streamRevision(`guest-${name}`)) !== undefined,
        ...(options.serviceTokenCustody !== undefined ? { capacity: options.serviceTokenCustody } : {}),
      }),
      service: world,
      fresh,
      world: { reads, events, programs, world: world.world, clock, past: () => world.committed.past },
    },
  });
}
