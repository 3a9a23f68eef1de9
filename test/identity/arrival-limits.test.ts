/** Arrivals per hour: 30 per address, 300 in all (spec 4.1, 5, 8). */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TownError } from '../../src/contract/town-error.js';
import { arrivalLimits } from '../../src/identity/arrival-limits.js';
import { testClock } from './support.js';

function refusal(fn: () => void): TownError | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    return error as TownError;
  }
}

test('30 an hour from one address; other addresses are not held back; an hour later again', () => {
  const clock = testClock();
  const limits = arrivalLimits(clock);
  for (let i = 0; i < 30; i++) {
    limits.admit('10.0.0.1');
    clock.advance(1000);
  }
  const over = refusal(() => limits.admit('10.0.0.1'));
  assert.is(over?.cls, 'rateLimited');
  assert.is(over?.extra.headers?.['Retry-After'], String(3600 - 30));
  assert.is(
    refusal(() => limits.admit('10.0.0.2')),
    undefined,
  );
  clock.advance(3600_000);
  assert.is(
    refusal(() => limits.admit('10.0.0.1')),
    undefined,
  );
});

test('300 an hour in all, whatever the addresses; a refusal spends nothing', () => {
  const clock = testClock();
  const limits = arrivalLimits(clock);
  for (let i = 0; i < 300; i++) limits.admit(`10.0.${i >> 4}.${i & 15}`);
  const over = refusal(() => limits.admit('192.168.0.1'));
  assert.is(over?.cls, 'rateLimited');
  assert.match(over!.message, /300/);
  assert.is(limits.perAddress.peek('192.168.0.1').remaining, 30, 'the refused address kept its own budget');
  clock.advance(3600_000);
  assert.is(
    refusal(() => limits.admit('192.168.0.1')),
    undefined,
  );
});

test.run();
