/** What a play form asks for (src/pages/play-page.ts playRequest), given a card's package. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { PackageDoc } from '../../src/projections/cards.js';
import { playRequest } from '../../src/pages/play-page.js';
import { TownError } from '../../src/contract/town-error.js';

const lamp = {
  _id: 'p',
  pin: 'p',
  pinSlug: 'p',
  kind: 'lamp',
  modules: [],
  compiled: true,
  stateType: 'Lamp',
  clauses: [],
  wants: [],
  rules: [],
  methods: [
    {
      name: 'fill',
      kind: 'spell',
      signature: '',
      template: 'fill measures=<natural 0..9>',
      form: [{ name: 'measures', form: { kind: 'natural', min: 0, max: 9 }, optional: false }],
    },
    { name: 'give', kind: 'spell', signature: '', template: 'give to=<object 1..128> note=<text 0..80>', form: [] },
    { name: 'receive', kind: 'receive', signature: '' },
    { name: 'paint', kind: 'view', signature: '' },
  ],
} as unknown as PackageDoc;

test('`text` goes to receive as {text, post: ""}', () => {
  assert.equal(playRequest({ text: 'fill measures=2' }, lamp), { method: 'receive', fields: { text: 'fill measures=2', post: '' } });
  assert.equal(playRequest({ text: '' }, lamp), { method: 'receive', fields: { text: '', post: '' } });
});

test('`do` carries its own fields; `f.<field>` fields are what the reader typed, and win', () => {
  assert.equal(playRequest({ do: 'fill', 'f.measures': '3' }, lamp), { method: 'fill', fields: { measures: '3' } });
  assert.equal(playRequest({ do: 'give?to=ann&note=a%20gift' }, lamp), { method: 'give', fields: { to: 'ann', note: 'a gift' } });
  assert.equal(playRequest({ do: 'give?to=ann&note=x', 'f.note': 'typed', other: 'ignored' }, lamp), { method: 'give', fields: { to: 'ann', note: 'typed' } });
});

test('`do` naming anything but an offered form is refused before a turn', () => {
  for (const name of ['become?kind=note', 'receive?text=x', 'paint', '', '?measures=1', 'nosuch']) {
    try {
      playRequest({ do: name }, lamp);
      assert.unreachable(`${name} was taken`);
    } catch (err) {
      assert.instance(err, TownError);
      assert.is((err as TownError).cls, 'hostRequest');
    }
  }
  assert.throws(
    () => playRequest({ do: 'fill' }, undefined),
    (e: unknown) => e instanceof TownError,
  );
});

test.run();
