/**
 * Citing a scratch receipt: its whole entry kept in this world under the caller's name, once
 * per intent (`cite:<cid>` by default). An entry that does not match its content id is refused
 * as malformed. The open town's quota does not count cites.
 */
import type { CiteCommand } from '../commands.js';
import { contentId, fingerprint, stableJson } from '../content-id.js';
import { defaultOptions } from '../options.js';
import { journal, type Outcome } from '../outcome.js';
import { zeroUsage } from '../receipt.js';
import { seal } from '../seal.js';
import { intentGate } from '../turn/intent.js';
import { quietOrQuota } from '../turn/quiet-quota.js';
import { nameOf } from '../turn.js';
import type { World } from '../world.js';

export function decideCite(world: World, cmd: CiteCommand, clock: number): Outcome {
  const { cid, slug, ...body } = cmd.entry;
  if (contentId(body).cid !== cid) return { kind: 'rejected', error: { class: 'hostRequest', message: 'the cited entry does not match its content id' } };
  const intent = cmd.intent ?? `cite:${cid}`;
  const fp = fingerprint({ cite: { world: cmd.world, cid } });
  const repeat = intentGate(world, cmd.principal, intent, fp, cmd.world, 'cite');
  if (repeat) return repeat;
  const gate = quietOrQuota(world, cmd.principal, clock, { ...defaultOptions, turnQuota: undefined }, cmd.world, 'cite');
  if (gate) return gate;
  return journal([
    seal({
      height: world.height,
      clock,
      kind: 'cite',
      principal: cmd.principal,
      intent: { intent, fingerprint: fp },
      request: { object: cmd.world, method: 'cite' },
      cited: { world: cmd.world, cid, slug, height: cmd.entry.height, entry: stableJson(cmd.entry) },
      receipt: {
        status: 'done',
        line: `${nameOf(cmd.principal)} cited ${slug} from ${cmd.world}: ${cmd.entry.receipt.line}`,
        revealed: [],
        offers: [],
        usage: zeroUsage(),
        object: cmd.world,
        method: 'cite',
      },
    }),
  ]);
}
