/**
 * A guest's arrival: the host's consequence of its admission, an avatar of the library's
 * `avatar` kind in the entrance room, owned by the guest. Idempotent: a guest with an avatar
 * gets `nothing`, so replayed identity events make one avatar.
 */
import type { ArriveCommand } from '../commands.js';
import type { EntryBody } from '../entry.js';
import { fitSeed } from '../genesis.js';
import type { KernelOptions } from '../options.js';
import { journal, type Outcome } from '../outcome.js';
import type { Programs } from '../programs.js';
import { doneBody, refusedBody, undecided } from '../receipt.js';
import { sealed } from '../seal.js';
import { checkLaw } from '../turn/law.js';
import { nameOf, Refused, Turn } from '../turn.js';
import type { World } from '../world.js';

export function decideArrive(world: World, cmd: ArriveCommand, clock: number, programs: Programs, options: KernelOptions): Outcome {
  if (world.avatars.has(cmd.principal)) return { kind: 'nothing', reason: `${cmd.name} already has an avatar` };
  const src = programs.kind('avatar');
  if (!src) return { kind: 'nothing', reason: 'the library has no avatar kind' };
  const turn = new Turn({ world, programs, options, clock, height: world.height, principal: cmd.principal, caller: 'town', depth: 0, run: world.height });
  let id = `avatar-${cmd.name.replace(/[^A-Za-z0-9._:/-]/g, '')}`;
  for (let n = 2; world.cards.has(id); n++) id = `avatar-${cmd.name}-${n}`;
  const base: EntryBody = {
    height: world.height,
    clock,
    kind: 'arrival',
    principal: cmd.principal,
    avatars: [{ principal: cmd.principal, object: id }],
    receipt: undecided,
  };
  try {
    turn.make(src, {
      id,
      maker: 'town',
      owner: cmd.principal,
      place: world.entrance,
      seed: fitSeed(programs, src, { name: cmd.name, room: world.entrance }, options, clock),
      offer: false,
    });
    turn.say(id, `${nameOf(cmd.principal)} arrived${world.entrance ? ` in ${world.entrance}` : ''}`);
    enterRoom(turn, world.entrance, id);
    const effects = checkLaw(turn);
    base.receipt = doneBody(turn, id, 'arrive');
    return journal([sealed(base, effects)]);
  } catch (e) {
    if (!(e instanceof Refused)) throw e;
    base.avatars = [];
    base.receipt = refusedBody(e.refusal, turn.usage, id, 'arrive');
    return journal([sealed(base)]);
  }
}

/** The room hears that the avatar came in, from the avatar itself, when it keeps such a list. */
function enterRoom(turn: Turn, roomId: string, avatar: string): void {
  const room = roomId ? turn.card(roomId) : undefined;
  if (!room) return;
  const enter = turn.programOf(room).methods.find((m) => m.name === 'enter' && m.kind === 'spell');
  const form = enter?.form;
  if (form?.length !== 1 || form[0]!.form.kind !== 'object') return;
  turn.call(roomId, 'enter', { tag: 'record', fields: [{ name: form[0]!.name, value: { tag: 'label', value: avatar } }] }, avatar);
}
