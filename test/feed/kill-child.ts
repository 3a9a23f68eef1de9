/**
 * For the reactor kill test: a town process that posts to the feed, makes the town's turn for
 * the post exactly as the reactor does (castPost), reports the receipt, and then dies by SIGKILL
 * before it can answer: the reactor killed between the turn and the answer.
 *
 *   node kill-child.js <dataDir>
 */
import { settingsFromEnv } from '../../src/config.js';
import { castPost } from '../../src/commands/feed-reactor.js';
import { FeedService } from '../../src/commands/feed-service.js';
import { postUri } from '../../src/events/feed.js';
import { identityOf } from '../../src/contract/names.js';
import { openTown } from '../../src/town.js';

const dir = process.argv[2]!;
const clock = () => Date.UTC(2026, 10, 23, 12, 0, 0);
// No projectors and so no reactor here: this process plays the reactor itself, up to the turn.
const town = await openTown({ settings: { ...settingsFromEnv({}), port: 0, dataDir: dir, inProcessProjectors: false }, clock, origin: 'http://town.test' });
const feed = new FeedService(town.events, clock, town.config.host);
const ada = identityOf(town.config.host, 'ada');
const posted = await feed.post({ principal: ada.principal, did: ada.did, handle: ada.handle }, 'hello, is anyone there?');
const decided = await castPost({ world: town.world, host: town.config.host }, posted.event.data);
const receipt = 'receipt' in decided.outcome ? decided.outcome.receipt : undefined;
process.stdout.write(`${JSON.stringify({ uri: postUri(town.config.host, posted.event.data.rkey), slug: receipt?.slug })}\n`, () =>
  process.kill(process.pid, 'SIGKILL'),
);
