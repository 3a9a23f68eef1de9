/**
 * com.atproto.sync.subscribeRepos over GET: the firehose is a WebSocket on its own listener, so
 * a plain request is UpgradeRequired, naming where the listener is. The answer is the same
 * whatever the parameters: the listener reads the cursor, not this route.
 */
import type { XrpcMethod } from './method.js';
import { fail } from './params.js';

export const subscribeRepos: XrpcMethod = {
  nsid: 'com.atproto.sync.subscribeRepos',
  handler: async (deps) => {
    const url = deps.firehoseUrl();
    return fail(
      'UpgradeRequired',
      url
        ? `subscribeRepos is a WebSocket on the firehose listener: ${url}`
        : 'subscribeRepos is a WebSocket on the configured firehose listener, and this town has none configured (TOWN_FIREHOSE_PORT)',
    );
  },
};
