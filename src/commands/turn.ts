/**
 * The turn command: a guest's POST world/{object}/{method} as the kernel's TurnCommand, decided
 * and journaled by the world service. A guest is admitted before any turn it can make, so a
 * guest the world has no avatar for yet (the arrival reactor has not caught up with its
 * admission) gets its avatar first, in the same order as its turn: the host's consequence of
 * admission never trails the guest's first act.
 */
import type { TurnCommand } from '../cards/kernel/commands.js';
import type { TurnBody } from '../contract/bodies.js';
import type { Decided, WorldService } from './world-service.js';

/** A turn's request is its route's body, as the codec decodes it (spec 4.2). */
export type TurnRequest = TurnBody;

export interface Guest {
  principal: string;
  name: string;
}

export function turnCommand(guest: Guest, object: string, method: string, body: TurnRequest): TurnCommand {
  const cmd: TurnCommand = { kind: 'turn', principal: guest.principal, intent: body.intent, object, method };
  if (body.fields !== undefined) cmd.fields = body.fields;
  if (body.spell !== undefined) cmd.spell = body.spell;
  if (body.argument !== undefined) cmd.argument = body.argument;
  if (body.if !== undefined) cmd.if = body.if;
  if (body.try !== undefined) cmd.try = body.try;
  return cmd;
}

/** Makes sure the guest stands in the world (idempotent: the kernel answers `nothing` twice). */
export function ensureArrived(service: WorldService, guest: Guest): void {
  if (service.current.avatars.has(guest.principal)) return;
  service.submit({ kind: 'arrive', principal: guest.principal, name: guest.name }).catch(() => {
    // The turn that follows reports any failure of its own; an arrival is retried by the next.
  });
}

export function castTurn(service: WorldService, guest: Guest, object: string, method: string, body: TurnRequest): Promise<Decided> {
  ensureArrived(service, guest);
  return service.submit(turnCommand(guest, object, method, body));
}
