/** Text order for the language: by code point, as `length` and `slice` count characters. */

/**
 * Order of two texts by code point (negative, zero, positive), as `length` and `slice` count
 * them. UTF-16 unit order agrees except where a surrogate (a code point past U+FFFF) meets a
 * unit at U+E000 or above; the first differing units are lifted so surrogates sort above.
 */
export function cmpText(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}
