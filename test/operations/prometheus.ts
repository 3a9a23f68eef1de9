/**
 * A strict reader of the Prometheus text exposition format (0.0.4), for the tests: every line is
 * a comment (HELP, TYPE), blank, or a sample of the grammar below, and anything else fails. It
 * also checks what a scraper relies on: a family's TYPE comes once and before its samples, no
 * sample repeats a name and label set, and a histogram's buckets are cumulative, end in +Inf and
 * agree with its _count. (No Prometheus text parser is installed; prom-client writes the format
 * but reads none.)
 */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Family {
  name: string;
  type: string;
  help?: string;
  samples: Sample[];
}

const metricName = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const labelName = '[a-zA-Z_][a-zA-Z0-9_]*';
const labelValue = '"(?:[^"\\\\\\n]|\\\\[\\\\"n])*"';
const number = '(?:[+-]?(?:\\d+\\.?\\d*(?:[eE][+-]?\\d+)?|\\.\\d+(?:[eE][+-]?\\d+)?)|[Nn][Aa][Nn]|[+-]?[Ii][Nn][Ff])';
const sampleLine = new RegExp(`^(${metricName})(?:\\{((?:${labelName}=${labelValue})(?:,${labelName}=${labelValue})*,?)?\\})? (${number})(?: -?\\d+)?$`);
const labelPair = new RegExp(`(${labelName})=(${labelValue})`, 'g');
const typeLine = new RegExp(`^# TYPE (${metricName}) (counter|gauge|histogram|summary|untyped)$`);
const helpLine = new RegExp(`^# HELP (${metricName})(?: (.*))?$`);

/** As Prometheus reads a value (Go's ParseFloat: NaN and Inf in any case; prom-client writes `Nan`). */
const parseNumber = (text: string) => (/^[+]?inf$/i.test(text) ? Infinity : /^-inf$/i.test(text) ? -Infinity : /^nan$/i.test(text) ? NaN : Number(text));
const unquote = (quoted: string) => quoted.slice(1, -1).replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));

export function parsePrometheus(text: string): Map<string, Family> {
  const families = new Map<string, Family>();
  const seen = new Set<string>();
  const familyOf = (name: string): Family | undefined => {
    const direct = families.get(name);
    if (direct) return direct;
    const base = name.replace(/_(bucket|sum|count)$/, '');
    const f = families.get(base);
    return f && (f.type === 'histogram' || f.type === 'summary') ? f : undefined;
  };
  if (!text.endsWith('\n')) throw new Error('the exposition does not end with a line feed');
  text.split('\n').forEach((line, i) => {
    const where = `line ${i + 1}: ${line}`;
    if (line === '') return;
    if (line.startsWith('#')) {
      const t = typeLine.exec(line);
      if (t) {
        const f = families.get(t[1]!);
        if (f?.type) throw new Error(`second TYPE for ${t[1]}: ${where}`);
        if (f?.samples.length) throw new Error(`TYPE after samples: ${where}`);
        families.set(t[1]!, { name: t[1]!, type: t[2]!, help: f?.help, samples: [] });
        return;
      }
      const h = helpLine.exec(line);
      if (h) {
        const f = families.get(h[1]!);
        if (f?.help !== undefined) throw new Error(`second HELP for ${h[1]}: ${where}`);
        if (f) f.help = h[2] ?? '';
        else families.set(h[1]!, { name: h[1]!, type: '', help: h[2] ?? '', samples: [] });
        return;
      }
      if (/^# (TYPE|HELP) /.test(line)) throw new Error(`malformed comment: ${where}`);
      return;
    }
    const m = sampleLine.exec(line);
    if (!m) throw new Error(`not a sample: ${where}`);
    const labels: Record<string, string> = {};
    for (const [, k, v] of (m[2] ?? '').matchAll(labelPair)) {
      if (k! in labels) throw new Error(`label ${k} twice: ${where}`);
      labels[k!] = unquote(v!);
    }
    const family = familyOf(m[1]!);
    if (!family?.type) throw new Error(`sample of a family with no TYPE before it: ${where}`);
    const key = `${m[1]}${JSON.stringify(Object.entries(labels).sort())}`;
    if (seen.has(key)) throw new Error(`sample repeated: ${where}`);
    seen.add(key);
    family.samples.push({ name: m[1]!, labels, value: parseNumber(m[3]!) });
  });
  for (const f of families.values()) {
    if (!f.type) throw new Error(`HELP without TYPE for ${f.name}`);
    if (f.type === 'histogram') checkHistogram(f);
  }
  return families;
}

function checkHistogram(f: Family): void {
  const series = new Map<string, { buckets: [number, number][]; count?: number; sum?: number }>();
  for (const s of f.samples) {
    const { le, ...rest } = s.labels;
    const key = JSON.stringify(Object.entries(rest).sort());
    const one = series.get(key) ?? { buckets: [] };
    series.set(key, one);
    if (s.name === `${f.name}_bucket`) {
      if (le === undefined) throw new Error(`${f.name}: a bucket without le`);
      one.buckets.push([parseNumber(le), s.value]);
    } else if (s.name === `${f.name}_count`) one.count = s.value;
    else if (s.name === `${f.name}_sum`) one.sum = s.value;
    else throw new Error(`${f.name}: a sample ${s.name} of no histogram part`);
  }
  for (const [key, one] of series) {
    const sorted = [...one.buckets].sort((a, b) => a[0] - b[0]);
    if (sorted[sorted.length - 1]?.[0] !== Infinity) throw new Error(`${f.name}${key}: no +Inf bucket`);
    for (let i = 1; i < sorted.length; i++) if (sorted[i]![1] < sorted[i - 1]![1]) throw new Error(`${f.name}${key}: buckets not cumulative`);
    if (one.count === undefined || one.sum === undefined) throw new Error(`${f.name}${key}: no _count or _sum`);
    if (sorted[sorted.length - 1]![1] !== one.count)
      throw new Error(`${f.name}${key}: +Inf bucket ${sorted[sorted.length - 1]![1]} is not _count ${one.count}`);
  }
}

/** The value of the sample of `name` whose labels include `labels` (0 when there is none). */
export function sampleValue(families: Map<string, Family>, name: string, labels: Record<string, string> = {}): number {
  const base = families.get(name) ?? families.get(name.replace(/_(bucket|sum|count)$/, ''));
  const s = base?.samples.find((x) => x.name === name && Object.entries(labels).every(([k, v]) => x.labels[k] === v));
  return s?.value ?? 0;
}
