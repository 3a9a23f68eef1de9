/**
 * The repository's queries over GET /xrpc/{nsid} (spec 4.5), one module each in this folder,
 * as a table by NSID: AT Protocol's own (server, repo, sync, identity) and the town's live
 * values. The HTTP room (src/http/handlers/xrpc.ts) looks a method up here and calls it.
 */
import { resolveHandle } from './com.atproto.identity.resolveHandle.js';
import { describeRepo } from './com.atproto.repo.describeRepo.js';
import { getRecord } from './com.atproto.repo.getRecord.js';
import { listRecords } from './com.atproto.repo.listRecords.js';
import { describeServer } from './com.atproto.server.describeServer.js';
import { getLatestCommit } from './com.atproto.sync.getLatestCommit.js';
import { syncGetRecord } from './com.atproto.sync.getRecord.js';
import { getRepo } from './com.atproto.sync.getRepo.js';
import { getRepoStatus } from './com.atproto.sync.getRepoStatus.js';
import { listRepos } from './com.atproto.sync.listRepos.js';
import { subscribeRepos } from './com.atproto.sync.subscribeRepos.js';
import type { XrpcMethod } from './method.js';
import { getProjection } from './town.world.getProjection.js';
import { listProjections } from './town.world.listProjections.js';

export type { CarReply, XrpcDeps, XrpcMethod, XrpcReply } from './method.js';

export const xrpcMethods: Readonly<Record<string, XrpcMethod>> = Object.fromEntries(
  [
    describeServer,
    describeRepo,
    getRecord,
    listRecords,
    getRepo,
    getLatestCommit,
    syncGetRecord,
    listRepos,
    getRepoStatus,
    subscribeRepos,
    resolveHandle,
    getProjection,
    listProjections,
  ].map((method) => [method.nsid, method]),
);
