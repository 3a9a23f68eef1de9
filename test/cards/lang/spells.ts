/** Reads a filled-in template by a method's form, for the tests: `add key=market text="Market day"`. */
import type { FormField, MethodInfo } from '../../../src/cards/program.js';
import { label, natural, record, type TypedData } from '../../../src/contract/typed.js';

/** A filled-in template read by the method's form: `add key=market text="Market on the square"`. */
export function readSpell(text: string, methods: MethodInfo[]): { method: string; args: TypedData } {
  const m = /^(\w+)\s*(.*)$/.exec(text.trim());
  if (!m) throw new Error(`not a spell: ${text}`);
  const method = methods.find((x) => x.name === m[1] && x.kind === 'spell');
  if (!method?.form) throw new Error(`no spell with a form named ${m[1]}`);
  const fields: [string, TypedData][] = [];
  const re = /(\w+)=("(?:[^"\\]|\\.)*"|\S+)/g;
  let f: RegExpExecArray | null;
  while ((f = re.exec(m[2]!))) {
    const form = method.form.find((x: FormField) => x.name === f![1]);
    if (!form) throw new Error(`${m[1]} has no field ${f[1]}`);
    const raw = f[2]!.startsWith('"') ? (JSON.parse(f[2]!) as string) : f[2]!;
    fields.push([f[1]!, form.form.kind === 'natural' ? natural(Number(raw)) : form.form.kind === 'oneOf' ? { tag: 'variant', label: raw } : label(raw)]);
  }
  return { method: method.name, args: record(fields) };
}
