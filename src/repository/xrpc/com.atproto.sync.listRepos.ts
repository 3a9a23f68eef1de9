/**
 * com.atproto.sync.listRepos: the repositories this box signs, the town's first, then the
 * hosted accounts with a commit, by did (the cursor). A box without a signing key lists none.
 */
import type { RepoRow } from '../hosted/reads.js';
import type { XrpcMethod } from './method.js';
import { lexiconParams, limitOf } from './params.js';
import { townRepo } from './shared.js';

const nsid = 'com.atproto.sync.listRepos';

export const listRepos: XrpcMethod = {
  nsid,
  handler: async (deps, q) => {
    await lexiconParams(nsid, q);
    const limit = limitOf(q, 500, 1000);
    if (!deps.keys) return { repos: [] };
    const head = await townRepo(deps).head();
    const rows: RepoRow[] = q.cursor === undefined && head?.commit ? [{ did: head.did, head: head.commit, rev: head.rev!, active: true }] : [];
    if (rows.length < limit) rows.push(...(await deps.hosted.repos(limit - rows.length, q.cursor)));
    return { repos: rows, ...(rows.length === limit ? { cursor: rows[rows.length - 1]!.did } : {}) };
  },
};
