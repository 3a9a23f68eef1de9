/**
 * Typed data (spec 2.6) as one readable line, the way the card language writes values; the card
 * CLI and the pages show values with it.
 */
import type { TypedData } from '../contract/typed.js';

/** Typed data as the card language writes values: `{ lit: true, fuel: 2 }`, `"text"`, `[1, 2]`, `open { by: "ann" }`. */
export function showData(d: TypedData, depth = 0): string {
  if (depth > 64) return '…';
  switch (d.tag) {
    case 'natural':
      return String(d.value);
    case 'label':
      return JSON.stringify(d.value);
    case 'boolean':
      return String(d.value);
    case 'list':
      return `[${d.items.map((x) => showData(x, depth + 1)).join(', ')}]`;
    case 'record':
      return d.fields.length ? `{ ${d.fields.map((f) => `${f.name}: ${showData(f.value, depth + 1)}`).join(', ')} }` : '{}';
    case 'variant':
      return d.payload && !(d.payload.tag === 'record' && d.payload.fields.length === 0) ? `${d.label} ${showData(d.payload, depth + 1)}` : d.label;
  }
}
