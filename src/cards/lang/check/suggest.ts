/** "Did you mean …?": the known name closest to a misspelt one, if any is close enough. */

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 2) return 3;
  const d: number[] = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = d[0]!;
    d[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = d[j]!;
      d[j] = Math.min(d[j]! + 1, d[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = tmp;
    }
  }
  return d[b.length]!;
}

export function suggest(name: string, known: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestD = 3;
  for (const k of known) {
    const dd = editDistance(name.toLowerCase(), k.toLowerCase());
    if (dd < bestD) {
      best = k;
      bestD = dd;
    }
  }
  return best;
}
