/**
 * The market's coins counted from its state, not by its law (docs/world.md): shared by the
 * property test of the world and the scripted market day.
 */
import * as assert from 'uvu/assert';
import type { World } from '../../../src/cards/kernel/world.js';
import { field, type TypedData } from '../../../src/contract/typed.js';

const label = (state: TypedData, name: string): string | undefined => {
  if (state.tag !== 'record') return undefined;
  const v = field(state, name);
  return v?.tag === 'label' ? v.value : undefined;
};
const count = (state: TypedData, name: string): number => {
  if (state.tag !== 'record') return 0;
  const v = field(state, name);
  return v?.tag === 'list' ? v.items.length : 0;
};

/** A natural of typed data as a number. */
const num = (v: TypedData | undefined): number => (v?.tag === 'natural' ? Number(v.value) : Number.NaN);

/**
 * The market's coins, counted here from its state, not by its law: the coins in purses and held
 * for guests' bounties add up to what was minted, and nothing minted them but purses of 10 and
 * the town's bounties.
 */
export function checkCoins(w: World, where: string): void {
  for (const c of w.cards.values()) {
    if (c.kind !== 'market' || c.state.tag !== 'record') continue;
    const coins = field(c.state, 'coins');
    const purses = coins?.tag === 'list' ? coins.items.reduce((t, e) => t + (e.tag === 'record' ? num(field(e, 'value')) : 0), 0) : Number.NaN;
    const bounties = field(c.state, 'bounties');
    let escrow = 0;
    for (const b of bounties?.tag === 'list' ? bounties.items : []) {
      if (b.tag === 'record' && label(b, 'by') !== 'town') escrow += num(field(b, 'reward')) * num(field(b, 'crew'));
    }
    const minted = num(field(c.state, 'minted'));
    assert.is(purses + escrow, minted, `${where}: ${c.id} holds ${purses} in purses and ${escrow} in escrow, and minted ${minted}`);
    assert.is(minted, 10 * count(c.state, 'granted') + num(field(c.state, 'townPaid')), `${where}: ${c.id} minted by no rule`);
  }
}

/** A guest's coins at a market, 0 without a purse. */
export function coinsOf(w: World, market: string, principal: string): number {
  const c = w.cards.get(market);
  const coins = c && c.state.tag === 'record' ? field(c.state, 'coins') : undefined;
  for (const e of coins?.tag === 'list' ? coins.items : []) if (e.tag === 'record' && label(e, 'key') === principal) return num(field(e, 'value'));
  return 0;
}
