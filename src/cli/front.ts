/**
 * `npm run front`: one extra HTTP front beside a running town on the same TOWN_DATA
 * (src/cli/front-process.ts), listening on PORT; a load balancer spreads requests over the
 * town's port and the fronts'.
 */
import { settingsFromEnv } from '../config.js';
import { runFront } from './front-process.js';

runFront(settingsFromEnv()).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(2);
});
