/**
 * Resolve and type check: a module tree to the checked tree (ir.ts). Names are looked up in
 * this order: locals, the turn's context (caller, owner, now, this — not in defs and views),
 * the module's own declarations, built-ins, then the modules it uses (by name, qualified as
 * `core.clamp` or bare when only one used module has the name). Diagnostics name the stage:
 * `resolve` for names and imports, `type` for types, `law` inside law clauses, `migration`
 * for `migrate`.
 */
import type { Module, Stage } from '../program.js';
import type { Clause, Decl, Expr, FieldInit, ModuleAst, Stmt, TypeExpr } from './ast.js';
import { builtins } from './builtins.js';
import { type Diags, noSpan, type Span } from './diagnostics.js';
import type { CheckedClause, CtxName, E, FnSym, MatchCase, S } from './ir.js';
import {
  BOOL,
  ERR,
  NAT,
  OBJECT,
  PRINCIPAL,
  TEXT,
  compat,
  fillRecord,
  isBool,
  isNat,
  isTextLike,
  layout,
  listOf,
  recordTy,
  show,
  showFull,
  widen,
  type FieldTy,
  type RecordTy,
  type Ty,
  type VariantTy,
} from './types.js';
import { Tagged } from './values.js';

export interface CheckedModule {
  name: string;
  types: Map<string, Ty>;
  fns: Map<string, FnSym>;
  uses: Map<string, CheckedModule>;
  spells: FnSym[];
  views: FnSym[];
  state?: Ty;
  initial?: FnSym;
  migrate?: FnSym;
  law: CheckedClause[];
  wants: CheckedClause[];
  rules: CheckedClause[];
  /** Declares spells, views, law, wants or rules: it programs a card. */
  card: boolean;
  ok: boolean;
}

/** Finds and checks the modules a module uses. */
export interface ModuleLoader {
  load(name: string, from: string, at: Span, diags: Diags): CheckedModule | undefined;
  names(): string[];
}

const ctxTypes: Record<CtxName, Ty> = { caller: PRINCIPAL, owner: PRINCIPAL, now: NAT, this: OBJECT };
const isCtxName = (n: string): n is CtxName => n === 'caller' || n === 'owner' || n === 'now' || n === 'this';
const builtinTypes = new Set(['Natural', 'Text', 'Boolean', 'Object', 'Principal', 'Label', 'List']);
const reservedViews = new Set(['paint', 'render', 'page']);

interface Local {
  slot: number;
  ty: Ty;
}

interface FnCtx {
  kind: 'def' | 'spell' | 'view' | 'clause';
  name: string;
  ret: Ty;
  scopes: Map<string, Local>[];
  slots: number;
  /** Diagnostics inside law clauses carry stage `law`. */
  stage?: Stage;
}

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

function suggest(name: string, known: Iterable<string>): string | undefined {
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

export function fnSignature(f: FnSym): string {
  return `${f.kind} ${f.name}(${f.params.map((p) => `${p.name}: ${show(p.ty)}`).join(', ')}) -> ${show(f.ret)}`;
}

export class ModuleChecker {
  private types = new Map<string, Ty>();
  private typeSpans = new Map<string, Span>();
  private fns = new Map<string, FnSym>();
  private uses = new Map<string, CheckedModule>();
  private errorsAtStart: number;
  private spells: FnSym[] = [];
  /** Checking the law text given beside the package: its diagnostics name the module `law`. */
  private lawText = false;
  private views: FnSym[] = [];

  constructor(
    private ast: ModuleAst,
    private diags: Diags,
    private loader: ModuleLoader,
    private entry = 'initial',
    private extraLaw: Clause[] = [],
    private entryGiven = false,
  ) {
    this.errorsAtStart = diags.count;
  }

  private add(stage: Stage, span: Span, message: string, hint?: string, f?: FnCtx): void {
    const st: Stage = f?.stage === 'law' ? 'law' : stage;
    const phase = stage === 'resolve' ? 1 : 2;
    const saved = this.diags.module;
    this.diags.module = this.lawText ? 'law' : this.ast.name;
    this.diags.add(st, span, message, hint, phase);
    this.diags.module = saved;
  }

  check(): CheckedModule {
    const decls = this.ast.decls;
    // 1. Imports.
    for (const d of decls) {
      if (d.k !== 'use') continue;
      if (this.uses.has(d.name)) {
        this.add('resolve', d.span, `${d.name} is used twice`, 'use each module once');
        continue;
      }
      if (d.name === this.ast.name) {
        this.add('resolve', d.span, `the module ${d.name} cannot use itself`);
        continue;
      }
      const m = this.loader.load(d.name, this.ast.name, d.span, this.diags);
      if (m) this.uses.set(d.name, m);
    }
    // 2. Types: declare all names first so types may refer to each other and to themselves.
    for (const d of decls) {
      if (d.k !== 'type') continue;
      if (builtinTypes.has(d.name)) {
        this.add('resolve', d.nameSpan, `${d.name} is a built-in type and cannot be declared again`, `choose another name, like My${d.name}`);
        continue;
      }
      const first = this.typeSpans.get(d.name);
      if (first) {
        this.add('resolve', d.nameSpan, `the type ${d.name} is declared twice (first at line ${first.line})`, 'give one of them another name');
        continue;
      }
      this.typeSpans.set(d.name, d.nameSpan);
      if (d.ctors) this.types.set(d.name, { k: 'variant', name: d.name, module: this.ast.name, ctors: [], tag: new Map() });
      else this.types.set(d.name, recordTy([], d.name));
    }
    for (const d of decls) {
      if (d.k !== 'type' || this.typeSpans.get(d.name) !== d.nameSpan) continue;
      const t = this.types.get(d.name)!;
      if (t.k === 'record') fillRecord(t, this.fieldTys(d.fields ?? [], `type ${d.name}`));
      else if (t.k === 'variant') {
        for (const c of d.ctors ?? []) {
          if (t.tag.has(c.name)) {
            this.add('resolve', c.span, `${d.name} has the tag ${c.name} twice`, 'give each tag its own name');
            continue;
          }
          if (/^[A-Z]/.test(c.name) && this.typeSpans.has(c.name)) {
            this.add('resolve', c.span, `the tag ${c.name} has the name of a type`, 'tags are usually lowercase: ' + c.name.toLowerCase());
          }
          const fields = this.fieldTys(c.fields, `tag ${c.name}`);
          t.tag.set(c.name, t.ctors.length);
          t.ctors.push({ name: c.name, fields, ...layout(fields) });
        }
      }
    }
    // 3. Functions.
    for (const d of decls) {
      if (d.k !== 'fn') continue;
      const prior = this.fns.get(d.name);
      if (prior) {
        this.add('resolve', d.nameSpan, `${d.name} is defined twice (first at line ${prior.span.line})`, 'give one of them another name');
        continue;
      }
      // A spell may share a built-in's name (board's `remove`): it is cast, and in code the
      // built-in keeps the name.
      if (builtins.has(d.name) && d.kind !== 'spell') {
        this.add(
          'resolve',
          d.nameSpan,
          `${d.name} is a built-in function and cannot be defined again`,
          `choose another name, like my${d.name[0]!.toUpperCase()}${d.name.slice(1)}`,
        );
        continue;
      }
      if (isCtxName(d.name) || d.name === 'self' || d.name === 'before') {
        this.add('resolve', d.nameSpan, `${d.name} names the turn's context and cannot be defined`, 'choose another name');
        continue;
      }
      const seen = new Set<string>();
      const params = d.params.map((p) => {
        if (seen.has(p.name)) this.add('resolve', p.span, `the parameter ${p.name} is named twice`, 'give each parameter its own name');
        seen.add(p.name);
        if (isCtxName(p.name)) this.add('resolve', p.span, `${p.name} names the turn's context and cannot be a parameter`, 'choose another name');
        return { name: p.name, ty: this.typeOf(p.type) };
      });
      let ret: Ty = ERR;
      if (d.ret) ret = this.typeOf(d.ret);
      else
        this.add(
          'type',
          d.nameSpan,
          `${d.kind} ${d.name} does not say what it returns`,
          `${d.kind} ${d.name}(…) -> ${d.kind === 'view' ? 'Text' : d.kind === 'spell' ? 'State' : 'Type'}:`,
        );
      const sym: FnSym = { name: d.name, module: this.ast.name, kind: d.kind, params, ret, span: d.nameSpan };
      this.fns.set(d.name, sym);
      if (d.kind === 'spell') this.spells.push(sym);
      if (d.kind === 'view') this.views.push(sym);
    }
    // 4. The state: the return type of the entry.
    const lawDecls = decls.filter((d): d is Extract<Decl, { k: 'law' }> => d.k === 'law');
    const wantDecls = decls.filter((d): d is Extract<Decl, { k: 'want' }> => d.k === 'want');
    const ruleDecls = decls.filter((d): d is Extract<Decl, { k: 'rule' }> => d.k === 'rule');
    const card =
      this.spells.length > 0 || this.views.length > 0 || lawDecls.length > 0 || wantDecls.length > 0 || ruleDecls.length > 0 || this.extraLaw.length > 0;
    const initial = this.fns.get(this.entry);
    let state: Ty | undefined;
    if (initial) {
      if (initial.kind !== 'def' || initial.params.length) {
        this.add('type', initial.span, `${this.entry} makes the first state: it is a def with no parameters`, `def ${this.entry}() -> ${show(initial.ret)}:`);
      } else if (initial.ret.k !== 'record' && initial.ret.k !== 'variant' && initial.ret.k !== 'err') {
        this.add(
          'type',
          initial.span,
          `the state of a card is a record or a variant, not ${show(initial.ret)}`,
          `type State:\n  field: ${show(initial.ret)}\n\ndef ${this.entry}() -> State:`,
        );
      } else state = initial.ret;
    } else if (card || this.entryGiven) {
      const first = decls.find((d) => d.k === 'fn') ?? decls[0];
      this.add(
        'type',
        first ? ('nameSpan' in first ? first.nameSpan : first.span) : noSpan,
        `${this.ast.name} has no def ${this.entry}(), so a card of it has no first state`,
        `def ${this.entry}() -> State:\n  return State { … }`,
      );
    }
    // 5. Signatures of spells and views against the state.
    const stateShown = state ? show(state) : 'State';
    for (const s of this.spells) {
      const p0 = s.params[0];
      if (!p0 || (state && !compat(state, p0.ty)) || (state && !compat(p0.ty, state))) {
        this.add(
          'type',
          s.span,
          p0
            ? `the first parameter of spell ${s.name} is ${show(p0.ty)}, but the card's state is ${stateShown}`
            : `spell ${s.name} takes the card's state as its first parameter`,
          `spell ${s.name}(self: ${stateShown}${s.params
            .slice(1)
            .map((p) => `, ${p.name}: ${show(p.ty)}`)
            .join('')}) -> ${stateShown}:`,
        );
      }
      if (state && !(compat(state, s.ret) && compat(s.ret, state))) {
        this.add(
          'type',
          s.span,
          `spell ${s.name} returns ${show(s.ret)}, but a spell returns the card's new state, ${stateShown}`,
          `spell ${s.name}(…) -> ${stateShown}:`,
        );
      }
      if (s.name === 'receive') {
        const rest = s.params.slice(1);
        if (rest.length !== 2 || rest[0]!.name !== 'text' || rest[0]!.ty.k !== 'text' || rest[1]!.name !== 'post' || rest[1]!.ty.k !== 'text') {
          this.add(
            'type',
            s.span,
            'receive hears what is said to the card: it takes the text and the post it came in',
            `spell receive(self: ${stateShown}, text: Text, post: Text) -> ${stateShown}:`,
          );
        }
      }
      if (reservedViews.has(s.name)) {
        this.add('type', s.span, `${s.name} is the name of a view, not a spell`, `view ${s.name}(self: ${stateShown}, viewer: Principal) -> Text:`);
      }
    }
    for (const v of this.views) {
      const ok = v.params.length === 2 && (!state || compat(state, v.params[0]!.ty)) && v.params[1]!.ty.k === 'text' && v.ret.k === 'text';
      if (!ok && v.ret.k !== 'err') {
        this.add(
          'type',
          v.span,
          `view ${v.name} takes the card's state and who is looking, and returns text`,
          `view ${v.name}(self: ${stateShown}, viewer: Principal) -> Text:`,
        );
      }
    }
    // 6. Bodies.
    for (const d of decls) {
      if (d.k !== 'fn') continue;
      const sym = this.fns.get(d.name);
      if (!sym || sym.span !== d.nameSpan) continue;
      this.fnBody(
        sym,
        d.params.map((p) => p.span),
        d.body,
        d.nameSpan,
      );
    }
    // 7. Law, wants, rules.
    const law: CheckedClause[] = [];
    const wants: CheckedClause[] = [];
    const rules: CheckedClause[] = [];
    const clauseNames = new Map<string, Span>();
    const clauseName = (n: string, span: Span, what: string, stage: Stage): void => {
      const first = clauseNames.get(`${what}:${n}`);
      if (first)
        this.add(stage === 'law' ? 'law' : 'resolve', span, `the ${what} ${n} is written twice (first at line ${first.line})`, 'give each its own name');
      clauseNames.set(`${what}:${n}`, span);
    };
    const st = state ?? ERR;
    for (const d of lawDecls) {
      for (const c of d.clauses) {
        clauseName(c.name, c.span, 'law clause', 'law');
        const cc = this.clause(c, st, 'law');
        if (cc) law.push(cc);
      }
    }
    this.lawText = true;
    for (const c of this.extraLaw) {
      clauseName(c.name, c.span, 'law clause', 'law');
      const cc = this.clause(c, st, 'law');
      if (cc) law.push(cc);
    }
    this.lawText = false;
    for (const d of wantDecls) {
      clauseName(d.clause.name, d.clause.span, 'want', 'type');
      const cc = this.clause(d.clause, st, 'type');
      if (cc) wants.push(cc);
    }
    for (const d of ruleDecls) {
      clauseName(d.name, d.span, 'rule', 'type');
      const cc = this.clause({ name: d.name, pred: d.cond, reading: '', text: d.text, span: d.span }, st, 'type', d.say);
      if (cc) rules.push(cc);
    }
    // 8. Migration.
    const migrate = this.fns.get('migrate');
    if (migrate) {
      if (migrate.kind !== 'def' || migrate.params.length !== 1) {
        this.add('migration', migrate.span, 'migrate takes the old state and returns the new one', `def migrate(old: OldState) -> ${stateShown}:`);
      } else if (state && !(compat(state, migrate.ret) && compat(migrate.ret, state))) {
        this.add(
          'migration',
          migrate.span,
          `migrate returns ${show(migrate.ret)}, but the new state is ${stateShown}`,
          `def migrate(old: ${show(migrate.params[0]!.ty)}) -> ${stateShown}:`,
        );
      }
    }
    const out: CheckedModule = {
      name: this.ast.name,
      types: this.types,
      fns: this.fns,
      uses: this.uses,
      spells: this.spells,
      views: this.views,
      law,
      wants,
      rules,
      card,
      ok: this.diags.count === this.errorsAtStart,
    };
    if (state) out.state = state;
    if (initial && state) out.initial = initial;
    if (migrate && migrate.kind === 'def' && migrate.params.length === 1) out.migrate = migrate;
    return out;
  }

  // ---- types --------------------------------------------------------------------------------
  private fieldTys(fields: { name: string; type: TypeExpr; span: Span }[], where: string): FieldTy[] {
    const out: FieldTy[] = [];
    const seen = new Set<string>();
    for (const f of fields) {
      if (seen.has(f.name)) {
        this.add('resolve', f.span, `${where} has the field ${f.name} twice`, 'give each field its own name');
        continue;
      }
      seen.add(f.name);
      out.push({ name: f.name, ty: this.typeOf(f.type) });
    }
    return out;
  }

  private lookupType(name: string, qual: string | undefined, span: Span): Ty | undefined {
    if (qual !== undefined) {
      const m = this.uses.get(qual);
      if (!m) {
        this.add('resolve', span, `no module named ${qual} is used here`, `use ${qual}`);
        return undefined;
      }
      const t = m.types.get(name);
      if (!t) this.add('resolve', span, `the module ${qual} has no type ${name}`, m.types.size ? `its types: ${[...m.types.keys()].join(', ')}` : undefined);
      return t;
    }
    const local = this.types.get(name);
    if (local) return local;
    const found = [...this.uses.values()].filter((m) => m.types.has(name));
    if (found.length === 1) return found[0]!.types.get(name);
    if (found.length > 1) {
      this.add('resolve', span, `${name} is a type of ${found.map((m) => m.name).join(' and ')}; say which`, `${found[0]!.name}.${name}`);
      return undefined;
    }
    return undefined;
  }

  typeOf(te: TypeExpr): Ty {
    if (te.k === 'tlist') return listOf(this.typeOf(te.of));
    const bounded = te.min !== undefined && te.max !== undefined;
    if (bounded && te.min! > te.max!) {
      this.add('type', te.span, `the bounds ${te.min}..${te.max} hold nothing: the lower is above the upper`, `${te.name} ${te.max}..${te.min}`);
    }
    if (te.qual === undefined) {
      switch (te.name) {
        case 'Natural':
          return bounded ? { k: 'nat', min: te.min!, max: te.max! } : NAT;
        case 'Text':
        case 'Object':
        case 'Label':
          return bounded ? { k: 'text', sub: te.name, min: te.min!, max: te.max! } : { k: 'text', sub: te.name };
        case 'Principal':
          if (bounded) this.add('type', te.span, 'a Principal has no bounds', 'Principal');
          return PRINCIPAL;
        case 'Boolean':
          if (bounded) this.add('type', te.span, 'a Boolean has no bounds', 'Boolean');
          return BOOL;
        case 'List':
          this.add('type', te.span, 'List needs the type of its items', 'List Natural');
          return ERR;
      }
    }
    const t = this.lookupType(te.name, te.qual, te.span);
    if (!t) {
      if (te.qual === undefined) {
        const known = [...builtinTypes, ...this.types.keys(), ...[...this.uses.values()].flatMap((m) => [...m.types.keys()])];
        const s = suggest(te.name, known);
        this.add('resolve', te.span, `unknown type ${te.name}`, s ? `did you mean ${s}?` : 'declare it with type, or use the module that has it');
      }
      return ERR;
    }
    if (bounded) this.add('type', te.span, `only Natural, Text, Object and Label take bounds, not ${te.name}`, te.name);
    return t;
  }

  // ---- bodies -------------------------------------------------------------------------------
  private fnBody(sym: FnSym, paramSpans: Span[], body: Stmt[], at: Span): void {
    const f: FnCtx = { kind: sym.kind, name: sym.name, ret: sym.ret, scopes: [new Map()], slots: 0 };
    sym.params.forEach((p) => {
      f.scopes[0]!.set(p.name, { slot: f.slots++, ty: p.ty });
    });
    void paramSpans;
    const ir = this.block(body, f);
    if (!ends(ir)) {
      const what = sym.kind === 'spell' ? 'the new state' : sym.kind === 'view' ? 'its text' : show(sym.ret);
      this.add(
        'type',
        at,
        `${sym.kind} ${sym.name} can reach its end without returning ${what}`,
        sym.kind === 'spell' ? `end it with: return ${sym.params[0]?.name ?? 'self'}` : `end every path with: return …`,
      );
    }
    sym.body = ir;
    sym.slots = f.slots;
  }

  private clause(c: Clause, state: Ty, stage: Stage, say?: Expr): CheckedClause | undefined {
    const f: FnCtx = { kind: 'clause', name: c.name, ret: ERR, scopes: [new Map()], slots: 2 };
    if (stage === 'law') f.stage = 'law';
    f.scopes[0]!.set('self', { slot: 0, ty: state });
    f.scopes[0]!.set('before', { slot: 1, ty: state });
    const [pred, pt] = this.expr(c.pred, f);
    if (!isBool(pt)) this.add('type', c.pred.span, `the condition of ${c.name} is ${show(pt)}, not Boolean`, `${c.name}: self.field <= 10 -- "…"`, f);
    const out: CheckedClause = { name: c.name, reading: c.reading, text: c.text, pred, slots: f.slots };
    if (say) {
      const [se, sty] = this.expr(say, f);
      if (!isTextLike(sty)) this.add('type', say.span, `a rule says text, not ${show(sty)}`, 'say "the lamp goes out"', f);
      out.say = se;
      out.slots = f.slots;
    }
    return out;
  }

  private lookupLocal(name: string, f: FnCtx): Local | undefined {
    for (let i = f.scopes.length - 1; i >= 0; i--) {
      const l = f.scopes[i]!.get(name);
      if (l) return l;
    }
    return undefined;
  }

  private declare(name: string, ty: Ty, span: Span, f: FnCtx): number {
    const scope = f.scopes[f.scopes.length - 1]!;
    if (scope.has(name)) this.add('resolve', span, `${name} is already declared in this block`, `assign it instead: ${name} = …`, f);
    if (isCtxName(name) || name === 'before') this.add('resolve', span, `${name} names the turn's context and cannot be declared`, 'choose another name', f);
    const slot = f.slots++;
    scope.set(name, { slot, ty });
    return slot;
  }

  private block(stmts: Stmt[], f: FnCtx): S[] {
    f.scopes.push(new Map());
    const out: S[] = [];
    for (const s of stmts) out.push(this.stmt(s, f));
    f.scopes.pop();
    return out;
  }

  private effect(what: string, span: Span, f: FnCtx): boolean {
    if (f.kind === 'spell') return true;
    const where = f.kind === 'clause' ? 'a law clause, want or rule' : `a ${f.kind}`;
    this.add(
      'type',
      span,
      `${what} is an effect, and ${where} has none; only spells act`,
      f.kind === 'def' ? 'return the value and act on it in the spell' : undefined,
      f,
    );
    return false;
  }

  private stmt(s: Stmt, f: FnCtx): S {
    switch (s.k) {
      case 'pass':
        return { k: 'pass' };
      case 'let': {
        let e: E;
        let ty: Ty;
        if (s.type) {
          ty = this.typeOf(s.type);
          [e] = this.expect(s.value, ty, f, `let ${s.name}`);
        } else {
          [e, ty] = this.expr(s.value, f);
          ty = widen(ty);
        }
        const slot = this.declare(s.name, ty, s.span, f);
        return { k: 'set', slot, e };
      }
      case 'assign':
        return this.assign(s.target, s.value, f);
      case 'if': {
        const branches: [E, S[]][] = s.branches.map((b) => {
          const [c, ct] = this.expr(b.cond, f);
          if (!isBool(ct)) this.add('type', b.cond.span, `a condition is Boolean, not ${show(ct)}`, ct.k === 'nat' ? 'compare it: n > 0' : undefined, f);
          return [c, this.block(b.body, f)];
        });
        return { k: 'if', branches, otherwise: s.otherwise ? this.block(s.otherwise, f) : null };
      }
      case 'match':
        return this.match(s, f);
      case 'for': {
        if (s.list) {
          const [l, lt] = this.expr(s.list, f);
          let item: Ty = ERR;
          if (lt.k === 'list') item = lt.of;
          else if (lt.k !== 'err')
            this.add('type', s.list.span, `for … in goes over a list, not ${show(lt)}`, lt.k === 'nat' ? `for i in 0..${'n'}:` : undefined, f);
          f.scopes.push(new Map());
          const slot = this.declare(s.name, item, s.span, f);
          const body = this.block(s.body, f);
          f.scopes.pop();
          return { k: 'forList', slot, list: l, body };
        }
        const [from, ft] = this.expr(s.from!, f);
        const [to, tt] = this.expr(s.to!, f);
        if (!isNat(ft)) this.add('type', s.from!.span, `a range starts at a natural, not ${show(ft)}`, undefined, f);
        if (!isNat(tt)) this.add('type', s.to!.span, `a range ends at a natural, not ${show(tt)}`, undefined, f);
        f.scopes.push(new Map());
        const slot = this.declare(s.name, NAT, s.span, f);
        const body = this.block(s.body, f);
        f.scopes.pop();
        return { k: 'forRange', slot, from, to, body };
      }
      case 'while': {
        const [c, ct] = this.expr(s.cond, f);
        if (!isBool(ct)) this.add('type', s.cond.span, `a condition is Boolean, not ${show(ct)}`, undefined, f);
        return { k: 'while', cond: c, body: this.block(s.body, f) };
      }
      case 'return': {
        if (f.kind === 'clause') {
          this.add('type', s.span, 'a clause has no return', undefined, f);
          return { k: 'pass' };
        }
        if (!s.value) {
          this.add('type', s.span, `return needs a value: ${f.name} returns ${show(f.ret)}`, f.kind === 'spell' ? 'return self' : 'return …', f);
          return { k: 'return', e: { k: 'const', v: 0 } };
        }
        const [e] = this.expect(s.value, f.ret, f, `${f.name} returns`);
        return { k: 'return', e };
      }
      case 'say': {
        this.effect('say', s.span, f);
        const [e, t] = this.expr(s.value, f);
        if (!isTextLike(t)) this.add('type', s.value.span, `say says text, not ${show(t)}`, `say "{…}"`, f);
        return { k: 'say', e };
      }
      case 'result': {
        this.effect('result', s.span, f);
        const [e, ty] = this.expr(s.value, f);
        return { k: 'result', e, ty };
      }
      case 'send': {
        this.effect('send', s.span, f);
        const [target, tt] = this.expr(s.target, f);
        if (!isTextLike(tt)) this.add('type', s.target.span, `a send goes to a card (an Object), not ${show(tt)}`, 'send to.receive { text: "…" }', f);
        const [arg, at] = this.expr(s.arg, f);
        if (at.k !== 'record' && at.k !== 'err') this.add('type', s.arg.span, `the argument of a send is a record, not ${show(at)}`, '{ field: value }', f);
        return { k: 'send', target, method: s.method, arg, argTy: at };
      }
      case 'make': {
        this.effect('make', s.span, f);
        if (!s.seed) return { k: 'make', kind: s.kind, seed: null, seedTy: null };
        const [seed, st] = this.expr(s.seed, f);
        if (st.k !== 'record' && st.k !== 'err') this.add('type', s.seed.span, `the seed of a make is a record, not ${show(st)}`, 'make note { text: "…" }', f);
        return { k: 'make', kind: s.kind, seed, seedTy: st };
      }
      case 'refuse': {
        const [reading, rt] = this.expr(s.reading, f);
        if (!isTextLike(rt)) this.add('type', s.reading.span, `the reading of a refusal is text, not ${show(rt)}`, 'refuse "clause" "what went wrong"', f);
        const out: S = { k: 'refuse', clause: s.clause, reading };
        if (s.cls) out.cls = s.cls;
        return out;
      }
    }
  }

  private assign(target: Expr, value: Expr, f: FnCtx): S {
    const path: { name: string; span: Span }[] = [];
    let base = target;
    while (base.k === 'field') {
      path.unshift({ name: base.name, span: base.nameSpan });
      base = base.obj;
    }
    if (base.k !== 'name') {
      this.add('type', target.span, 'only a name or a field of one can be assigned', 'name = value, or name.field = value', f);
      this.expr(value, f);
      return { k: 'pass' };
    }
    const local = this.lookupLocal(base.name, f);
    if (!local) {
      if (isCtxName(base.name)) this.add('type', base.span, `${base.name} is part of the turn and cannot be changed`, undefined, f);
      else this.add('resolve', base.span, `unknown name ${base.name}`, `declare it first: let ${base.name} = …`, f);
      this.expr(value, f);
      return { k: 'pass' };
    }
    if (f.kind === 'clause') this.add('type', target.span, 'a clause cannot change anything', undefined, f);
    let ty = local.ty;
    const slots: number[] = [];
    for (const p of path) {
      if (ty.k === 'err') break;
      if (ty.k !== 'record') {
        this.add('type', p.span, `${show(ty)} has no fields to assign`, undefined, f);
        ty = ERR;
        break;
      }
      const s = ty.slot.get(p.name);
      if (s === undefined) {
        const sug = suggest(
          p.name,
          ty.fields.map((x) => x.name),
        );
        this.add(
          'type',
          p.span,
          `${show(ty)} has no field ${p.name}`,
          sug ? `did you mean ${sug}?` : `its fields: ${ty.fields.map((x) => x.name).join(', ')}`,
          f,
        );
        ty = ERR;
        break;
      }
      slots.push(s);
      ty = ty.order[s]!.ty;
    }
    const [e] = this.expect(value, ty, f, path.length ? `${base.name}.${path.map((p) => p.name).join('.')}` : base.name);
    if (!path.length) return { k: 'set', slot: local.slot, e };
    return { k: 'setPath', slot: local.slot, path: slots, e };
  }

  private match(s: Extract<Stmt, { k: 'match' }>, f: FnCtx): S {
    const [subject, st] = this.expr(s.subject, f);
    if (st.k !== 'variant') {
      if (st.k !== 'err') this.add('type', s.subject.span, `match takes a value of a variant type, not ${show(st)}`, 'use if … elif … for other values', f);
      for (const c of s.cases) this.block(c.body, f);
      return { k: 'pass' };
    }
    const cases: (MatchCase | undefined)[] = new Array(st.ctors.length).fill(undefined);
    let rest: S[] | null = null;
    s.cases.forEach((c, i) => {
      if (c.ctor === '_') {
        if (i !== s.cases.length - 1) this.add('type', c.span, 'case _ catches the rest and comes last', undefined, f);
        rest = this.block(c.body, f);
        return;
      }
      const tag = st.tag.get(c.ctor);
      if (tag === undefined) {
        const sug = suggest(c.ctor, st.tag.keys());
        this.add(
          'type',
          c.span,
          `${st.name} has no tag ${c.ctor}; its tags are ${st.ctors.map((x) => x.name).join(', ')}`,
          sug ? `case ${sug}:` : undefined,
          f,
        );
        this.block(c.body, f);
        return;
      }
      if (cases[tag]) this.add('type', c.span, `case ${c.ctor} is written twice`, undefined, f);
      const ctor = st.ctors[tag]!;
      f.scopes.push(new Map());
      const binds: [number, number][] = [];
      for (const b of c.binds) {
        const fs = ctor.slot.get(b.name);
        if (fs === undefined) {
          this.add(
            'type',
            b.span,
            `the tag ${c.ctor} has no field ${b.name}`,
            ctor.fields.length ? `its fields: ${ctor.fields.map((x) => x.name).join(', ')}` : `case ${c.ctor}:`,
            f,
          );
          continue;
        }
        binds.push([fs, this.declare(b.name, ctor.order[fs]!.ty, b.span, f)]);
      }
      const body = this.block(c.body, f);
      f.scopes.pop();
      cases[tag] = { binds, body };
    });
    return { k: 'match', subject, variant: st, cases, rest };
  }

  // ---- expressions --------------------------------------------------------------------------
  /** Checks `e` where type `want` is needed (literals take their type from it). */
  expect(e: Expr, want: Ty, f: FnCtx, what: string): [E, Ty] {
    const [ir, t] = this.expr(e, f, want);
    if (!compat(want, t)) {
      this.add('type', e.span, `${what} wants ${show(want)}, but this is ${show(t)}`, hintFor(want), f);
      return [ir, ERR];
    }
    return [ir, t];
  }

  /** Does the expression name a type (`Lamp`, `core.Pair`)? */
  private typeRef(e: Expr, f: FnCtx): Ty | undefined {
    if (e.k === 'name' && !this.lookupLocal(e.name, f) && /^[A-Z]/.test(e.name)) {
      const local = this.types.get(e.name);
      if (local) return local;
      const found = [...this.uses.values()].filter((m) => m.types.has(e.name));
      if (found.length === 1) return found[0]!.types.get(e.name);
      return undefined;
    }
    if (e.k === 'field' && e.obj.k === 'name' && !this.lookupLocal(e.obj.name, f) && this.uses.has(e.obj.name) && /^[A-Z]/.test(e.name)) {
      return this.uses.get(e.obj.name)!.types.get(e.name);
    }
    return undefined;
  }

  /** A bare tag name visible here: `calm` for `type Mood: calm | cross`. */
  private ctorByName(name: string): { v: VariantTy; tag: number }[] {
    const out: { v: VariantTy; tag: number }[] = [];
    const scan = (types: Map<string, Ty>): void => {
      for (const t of types.values()) if (t.k === 'variant' && t.tag.has(name)) out.push({ v: t, tag: t.tag.get(name)! });
    };
    scan(this.types);
    if (!out.length) for (const m of this.uses.values()) scan(m.types);
    return out;
  }

  /** Does the expression name a tag (`calm`, `Mood.calm`)? */
  private ctorRef(e: Expr, f: FnCtx, want?: Ty): { v: VariantTy; tag: number } | undefined {
    if (e.k === 'field') {
      const t = this.typeRef(e.obj, f);
      if (t && t.k === 'variant') {
        const tag = t.tag.get(e.name);
        if (tag === undefined) {
          this.add('type', e.nameSpan, `${t.name} has no tag ${e.name}; its tags are ${t.ctors.map((c) => c.name).join(', ')}`, undefined, f);
          return { v: t, tag: -1 };
        }
        return { v: t, tag };
      }
      return undefined;
    }
    if (e.k === 'name' && !this.lookupLocal(e.name, f) && !isCtxName(e.name) && !this.fns.has(e.name) && !this.types.has(e.name)) {
      if (want && want.k === 'variant' && want.tag.has(e.name)) return { v: want, tag: want.tag.get(e.name)! };
      const found = this.ctorByName(e.name);
      if (found.length === 1) return found[0];
      if (found.length > 1) {
        this.add('resolve', e.span, `${e.name} is a tag of ${found.map((x) => x.v.name).join(' and ')}; say which`, `${found[0]!.v.name}.${e.name}`, f);
        return { v: found[0]!.v, tag: -1 };
      }
    }
    return undefined;
  }

  expr(e: Expr, f: FnCtx, want?: Ty): [E, Ty] {
    switch (e.k) {
      case 'nat':
        return [{ k: 'const', v: e.value }, NAT];
      case 'bool':
        return [{ k: 'const', v: e.value }, BOOL];
      case 'text': {
        const parts: (string | { e: E; ty: Ty })[] = [];
        for (const p of e.parts) {
          if (typeof p === 'string') parts.push(p);
          else {
            const [pe, pt] = this.expr(p, f);
            parts.push({ e: pe, ty: pt });
          }
        }
        if (parts.every((p) => typeof p === 'string')) return [{ k: 'const', v: parts.join('') }, TEXT];
        return [{ k: 'text', parts }, TEXT];
      }
      case 'name':
        return this.name(e, f, want);
      case 'field': {
        const c = this.ctorRef(e, f);
        if (c) return this.bareCtor(c, e.span, f);
        if (e.obj.k === 'name' && !this.lookupLocal(e.obj.name, f) && this.uses.has(e.obj.name) && !isCtxName(e.obj.name)) {
          const m = this.uses.get(e.obj.name)!;
          if (m.fns.has(e.name)) this.add('type', e.span, `${e.obj.name}.${e.name} is a def; call it: ${e.obj.name}.${e.name}(…)`, undefined, f);
          else if (m.types.has(e.name))
            this.add('type', e.span, `${e.obj.name}.${e.name} is a type; make one with ${e.obj.name}.${e.name} { … }`, undefined, f);
          else this.add('resolve', e.nameSpan, `the module ${e.obj.name} has no ${e.name}`, undefined, f);
          return [{ k: 'const', v: 0 }, ERR];
        }
        const [o, ot] = this.expr(e.obj, f);
        if (ot.k === 'err') return [o, ERR];
        if (ot.k !== 'record') {
          const hint =
            ot.k === 'list' && e.name === 'length'
              ? 'length(list)'
              : ot.k === 'variant'
                ? `match it first: match …:\n  case ${ot.ctors[0]!.name} { ${e.name} }:`
                : undefined;
          this.add('type', e.nameSpan, `${show(ot)} has no field ${e.name}`, hint, f);
          return [o, ERR];
        }
        const s = ot.slot.get(e.name);
        if (s === undefined) {
          const sug = suggest(
            e.name,
            ot.fields.map((x) => x.name),
          );
          this.add(
            'type',
            e.nameSpan,
            `${show(ot)} has no field ${e.name}`,
            sug ? `did you mean ${sug}?` : `its fields: ${ot.fields.map((x) => x.name).join(', ') || 'none'}`,
            f,
          );
          return [o, ERR];
        }
        return [{ k: 'field', obj: o, slot: s }, ot.order[s]!.ty];
      }
      case 'index': {
        const [o, ot] = this.expr(e.obj, f);
        const [i, it] = this.expr(e.index, f);
        if (!isNat(it)) this.add('type', e.index.span, `a list is indexed by a natural, not ${show(it)}`, undefined, f);
        if (ot.k === 'err') return [o, ERR];
        if (ot.k !== 'list') {
          this.add('type', e.obj.span, `only a list can be indexed, not ${show(ot)}`, ot.k === 'text' ? 'slice(text, i, i + 1)' : undefined, f);
          return [o, ERR];
        }
        return [{ k: 'index', obj: o, idx: i }, ot.of];
      }
      case 'call':
        return this.call(e, f);
      case 'with':
        return this.withExpr(e, f);
      case 'anon': {
        if (want && want.k === 'record') {
          const names = new Set(e.fields.map((x) => x.name));
          if (names.size === want.fields.length && want.fields.every((x) => names.has(x.name))) return this.construct(want, e.fields, e.span, f, show(want));
        }
        const seen = new Set<string>();
        const fields: FieldTy[] = [];
        const values: E[] = [];
        for (const fi of e.fields) {
          if (seen.has(fi.name)) {
            this.add('type', fi.span, `the field ${fi.name} is given twice`, undefined, f);
            continue;
          }
          seen.add(fi.name);
          const [v, vt] = this.expr(fi.value, f);
          fields.push({ name: fi.name, ty: widen(vt) });
          values.push(v);
        }
        const rt = recordTy(fields);
        const items: E[] = rt.order.map((o) => values[fields.indexOf(o)]!);
        return [{ k: 'record', items }, rt];
      }
      case 'list': {
        const wantItem = want && want.k === 'list' ? want.of : undefined;
        if (!e.items.length) {
          if (!wantItem) {
            this.add('type', e.span, 'an empty list needs to be told what it will hold', 'let items: List Natural = []', f);
            return [{ k: 'list', items: [] }, listOf(ERR)];
          }
          return [{ k: 'list', items: [] }, listOf(wantItem)];
        }
        let itemTy: Ty | undefined = wantItem;
        const items: E[] = [];
        for (const it of e.items) {
          if (itemTy) {
            const [v] = this.expect(it, itemTy, f, 'this list');
            items.push(v);
          } else {
            const [v, vt] = this.expr(it, f);
            itemTy = widen(vt);
            items.push(v);
          }
        }
        return [{ k: 'list', items }, listOf(itemTy!)];
      }
      case 'not': {
        const [x, xt] = this.expr(e.e, f);
        if (!isBool(xt)) this.add('type', e.e.span, `not takes a Boolean, not ${show(xt)}`, undefined, f);
        return [{ k: 'not', e: x }, BOOL];
      }
      case 'bin':
        return this.binary(e, f);
    }
  }

  private bareCtor(c: { v: VariantTy; tag: number }, span: Span, f: FnCtx): [E, Ty] {
    if (c.tag < 0) return [{ k: 'const', v: 0 }, ERR];
    const ctor = c.v.ctors[c.tag]!;
    if (ctor.fields.length) {
      this.add('type', span, `the tag ${ctor.name} carries fields: give them`, `${ctor.name} { ${ctor.fields.map((x) => `${x.name}: …`).join(', ')} }`, f);
      return [{ k: 'const', v: 0 }, c.v];
    }
    return [{ k: 'const', v: new Tagged(c.tag, null) }, c.v];
  }

  private name(e: Extract<Expr, { k: 'name' }>, f: FnCtx, want?: Ty): [E, Ty] {
    const local = this.lookupLocal(e.name, f);
    if (local) return [{ k: 'local', slot: local.slot }, local.ty];
    if (isCtxName(e.name)) {
      if (f.kind === 'spell' || f.kind === 'clause') return [{ k: 'ctx', name: e.name }, ctxTypes[e.name]];
      this.add(
        'resolve',
        e.span,
        `${e.name} is known in spells, law, wants and rules, not in a ${f.kind}`,
        f.kind === 'def' ? `a def is pure: pass ${e.name} in as a parameter` : f.kind === 'view' ? 'a view knows only the state and its viewer' : undefined,
        f,
      );
      return [{ k: 'const', v: 0 }, ERR];
    }
    const c = this.ctorRef(e, f, want);
    if (c) return this.bareCtor(c, e.span, f);
    if (this.types.has(e.name) || this.typeRef(e, f)) {
      this.add('type', e.span, `${e.name} is a type, not a value`, `make one: ${e.name} { … }`, f);
      return [{ k: 'const', v: 0 }, ERR];
    }
    if (this.fns.has(e.name) || builtins.has(e.name)) {
      this.add('type', e.span, `${e.name} is a function; call it: ${e.name}(…)`, undefined, f);
      return [{ k: 'const', v: 0 }, ERR];
    }
    if (this.uses.has(e.name)) {
      this.add('type', e.span, `${e.name} is a module; name something in it: ${e.name}.…`, undefined, f);
      return [{ k: 'const', v: 0 }, ERR];
    }
    const known: string[] = [];
    for (const s of f.scopes) known.push(...s.keys());
    if (f.kind === 'spell' || f.kind === 'clause') known.push('caller', 'owner', 'now', 'this');
    const sug = suggest(e.name, known);
    const hint = sug
      ? `did you mean ${sug}?`
      : e.name === 'self'
        ? `self is the first parameter of a spell or view; in ${f.kind === 'def' ? 'a def, pass the state in' : 'here it is not declared'}`
        : undefined;
    this.add('resolve', e.span, `unknown name ${e.name}`, hint, f);
    return [{ k: 'const', v: 0 }, ERR];
  }

  private call(e: Extract<Expr, { k: 'call' }>, f: FnCtx): [E, Ty] {
    let sym: FnSym | undefined;
    let label = '';
    if (e.fn.k === 'name' && !this.lookupLocal(e.fn.name, f)) {
      label = e.fn.name;
      sym = this.fns.get(e.fn.name);
      if (sym && sym.kind === 'spell' && builtins.has(label)) sym = undefined;
      if (!sym) {
        const b = builtins.get(e.fn.name);
        if (b) return this.callBuiltin(b, e, f);
        const found = [...this.uses.values()].filter((m) => m.fns.get(label)?.kind === 'def');
        if (found.length > 1) {
          this.add('resolve', e.fn.span, `${label} is a def of ${found.map((m) => m.name).join(' and ')}; say which`, `${found[0]!.name}.${label}(…)`, f);
          e.args.forEach((a) => this.expr(a, f));
          return [{ k: 'const', v: 0 }, ERR];
        }
        sym = found[0]?.fns.get(label);
      }
      if (!sym) {
        const known = [...this.fns.keys(), ...builtins.keys(), ...[...this.uses.values()].flatMap((m) => [...m.fns.keys()])];
        const sug = suggest(label, known);
        const t = this.typeRef(e.fn, f);
        this.add(
          'resolve',
          e.fn.span,
          t ? `${label} is a type; build one with braces` : `unknown function ${label}`,
          t ? `${label} { … }` : sug ? `did you mean ${sug}?` : undefined,
          f,
        );
        e.args.forEach((a) => this.expr(a, f));
        return [{ k: 'const', v: 0 }, ERR];
      }
    } else if (e.fn.k === 'field' && e.fn.obj.k === 'name' && !this.lookupLocal(e.fn.obj.name, f) && this.uses.has(e.fn.obj.name)) {
      const m = this.uses.get(e.fn.obj.name)!;
      label = `${e.fn.obj.name}.${e.fn.name}`;
      sym = m.fns.get(e.fn.name);
      if (sym?.kind !== 'def') {
        this.add('resolve', e.fn.nameSpan, `the module ${m.name} has no def ${e.fn.name}`, undefined, f);
        e.args.forEach((a) => this.expr(a, f));
        return [{ k: 'const', v: 0 }, ERR];
      }
    } else {
      this.add(
        'type',
        e.fn.span,
        'only defs and built-in functions can be called',
        e.fn.k === 'field' ? "a card's spell is cast with send: send card.spell { … }" : undefined,
        f,
      );
      e.args.forEach((a) => this.expr(a, f));
      return [{ k: 'const', v: 0 }, ERR];
    }
    if (sym.kind === 'spell' && f.kind !== 'spell') {
      this.add('type', e.fn.span, `${label} is a spell; only a spell can call another spell`, undefined, f);
    }
    if (e.args.length !== sym.params.length) {
      this.add(
        'type',
        e.span,
        `${label} takes ${sym.params.length} argument${sym.params.length === 1 ? '' : 's'}, but is given ${e.args.length}`,
        fnSignature(sym),
        f,
      );
      e.args.forEach((a) => this.expr(a, f));
      return [{ k: 'const', v: 0 }, sym.ret];
    }
    const args = e.args.map((a, i) => this.expect(a, sym!.params[i]!.ty, f, `the ${sym!.params[i]!.name} of ${label}`)[0]);
    return [{ k: 'call', fn: sym, args }, sym.ret];
  }

  private callBuiltin(b: import('./builtins.js').Builtin, e: Extract<Expr, { k: 'call' }>, f: FnCtx): [E, Ty] {
    const checked = e.args.map((a) => this.expr(a, f));
    if (e.args.length !== b.arity) {
      this.add('type', e.span, `${b.name} takes ${b.arity} argument${b.arity === 1 ? '' : 's'}, but is given ${e.args.length}`, b.sig, f);
      return [{ k: 'const', v: 0 }, ERR];
    }
    let tys = checked.map((c) => c[1]);
    let args = checked.map((c) => c[0]);
    // An empty list argument takes its type from the list beside it: append(xs, …), contains([], x)
    if (b.arity >= 2 && e.args[1]!.k === 'list' && (e.args[1] as { items: Expr[] }).items.length === 0 && tys[0]!.k === 'list') {
      tys = [tys[0]!, tys[0]!, ...tys.slice(2)];
      args = [args[0]!, { k: 'list', items: [] }, ...args.slice(2)];
    }
    const r = b.type(tys);
    if ('arg' in r) {
      this.add('type', e.args[r.arg]?.span ?? e.span, r.message, b.sig, f);
      return [{ k: 'const', v: 0 }, ERR];
    }
    return [{ k: 'builtin', b, args, tys }, r];
  }

  private withExpr(e: Extract<Expr, { k: 'with' }>, f: FnCtx): [E, Ty] {
    const t = this.typeRef(e.target, f);
    if (t) {
      if (t.k === 'record') return this.construct(t, e.fields, e.span, f, show(t));
      if (t.k === 'variant') {
        this.add('type', e.target.span, `${t.name} is a variant; build one of its tags`, `${t.name}.${t.ctors[0]?.name ?? 'tag'} { … }`, f);
        return [{ k: 'const', v: 0 }, ERR];
      }
    }
    const c = this.ctorRef(e.target, f);
    if (c) {
      if (c.tag < 0) return [{ k: 'const', v: 0 }, ERR];
      const ctor = c.v.ctors[c.tag]!;
      const [r] = this.construct(
        { k: 'record', name: ctor.name, fields: ctor.fields, slot: ctor.slot, order: ctor.order },
        e.fields,
        e.span,
        f,
        `${c.v.name}.${ctor.name}`,
      );
      const fields = r.k === 'record' ? r.items : [];
      return [{ k: 'ctor', tag: c.tag, fields: ctor.fields.length ? fields : null }, c.v];
    }
    if (e.target.k === 'name' && !this.lookupLocal(e.target.name, f) && /^[A-Z]/.test(e.target.name)) {
      const known = [...this.types.keys(), ...[...this.uses.values()].flatMap((m) => [...m.types.keys()])];
      const sug = suggest(e.target.name, known);
      this.add('resolve', e.target.span, `unknown type ${e.target.name}`, sug ? `did you mean ${sug}?` : 'declare it with type', f);
      e.fields.forEach((x) => this.expr(x.value, f));
      return [{ k: 'const', v: 0 }, ERR];
    }
    // An update: a copy of a record with some fields changed.
    const [o, ot] = this.expr(e.target, f);
    if (ot.k === 'err') {
      e.fields.forEach((x) => this.expr(x.value, f));
      return [o, ERR];
    }
    if (ot.k !== 'record') {
      this.add('type', e.target.span, `only a record can be updated with { … }, not ${show(ot)}`, undefined, f);
      e.fields.forEach((x) => this.expr(x.value, f));
      return [o, ERR];
    }
    const sets: [number, E][] = [];
    const seen = new Set<string>();
    for (const fi of e.fields) {
      const s = ot.slot.get(fi.name);
      if (s === undefined) {
        const sug = suggest(
          fi.name,
          ot.fields.map((x) => x.name),
        );
        this.add(
          'type',
          fi.span,
          `${show(ot)} has no field ${fi.name}`,
          sug ? `did you mean ${sug}?` : `its fields: ${ot.fields.map((x) => x.name).join(', ')}`,
          f,
        );
        this.expr(fi.value, f);
        continue;
      }
      if (seen.has(fi.name)) this.add('type', fi.span, `the field ${fi.name} is given twice`, undefined, f);
      seen.add(fi.name);
      const [v] = this.expect(fi.value, ot.order[s]!.ty, f, `the field ${fi.name}`);
      sets.push([s, v]);
    }
    return [{ k: 'update', obj: o, sets }, ot];
  }

  private construct(t: RecordTy, fields: FieldInit[], span: Span, f: FnCtx, label: string): [E, Ty] {
    const items: (E | undefined)[] = new Array(t.order.length).fill(undefined);
    for (const fi of fields) {
      const s = t.slot.get(fi.name);
      if (s === undefined) {
        const sug = suggest(
          fi.name,
          t.fields.map((x) => x.name),
        );
        this.add(
          'type',
          fi.span,
          `${label} has no field ${fi.name}`,
          sug ? `did you mean ${sug}?` : `its fields: ${t.fields.map((x) => x.name).join(', ') || 'none'}`,
          f,
        );
        this.expr(fi.value, f);
        continue;
      }
      if (items[s]) this.add('type', fi.span, `the field ${fi.name} is given twice`, undefined, f);
      items[s] = this.expect(fi.value, t.order[s]!.ty, f, `the field ${fi.name}`)[0];
    }
    const missing = t.order.filter((_, i) => !items[i]).map((x) => x.name);
    if (missing.length) {
      this.add('type', span, `${label} is missing ${missing.join(', ')}`, `${label} { ${t.fields.map((x) => `${x.name}: …`).join(', ')} }`, f);
    }
    return [{ k: 'record', items: items.map((x) => x ?? { k: 'const', v: 0 }) }, t];
  }

  private binary(e: Extract<Expr, { k: 'bin' }>, f: FnCtx): [E, Ty] {
    const op = e.op;
    if (op === 'and' || op === 'or') {
      const [l, lt] = this.expr(e.l, f);
      const [r, rt] = this.expr(e.r, f);
      if (!isBool(lt)) this.add('type', e.l.span, `${op} joins Booleans, not ${show(lt)}`, undefined, f);
      if (!isBool(rt)) this.add('type', e.r.span, `${op} joins Booleans, not ${show(rt)}`, undefined, f);
      return [{ k: op, l, r }, BOOL];
    }
    if (op === '==' || op === '!=') {
      const [l, lt] = this.expr(e.l, f);
      const [r, rt] = this.expr(e.r, f, lt);
      if (!compat(lt, rt) && !compat(rt, lt)) {
        this.add('type', e.span, `${show(lt)} and ${show(rt)} are never equal: they are different types`, undefined, f);
      }
      return [{ k: 'eq', neg: op === '!=', l, r }, BOOL];
    }
    const [l, lt] = this.expr(e.l, f);
    const [r, rt] = this.expr(e.r, f, lt.k === 'list' ? lt : undefined);
    if (op === '<' || op === '<=' || op === '>' || op === '>=') {
      const ok = (isNat(lt) && isNat(rt)) || (isTextLike(lt) && isTextLike(rt));
      if (!ok) this.add('type', e.span, `${op} compares two naturals or two texts, not ${show(lt)} and ${show(rt)}`, undefined, f);
      return [{ k: 'cmp', op, l, r }, BOOL];
    }
    if (op === '+') {
      if (lt.k === 'text' || rt.k === 'text') {
        if (!isTextLike(lt) || !isTextLike(rt)) {
          this.add('type', e.span, `+ joins two texts, not ${show(lt)} and ${show(rt)}`, 'put a value into text with a hole: "{n} lamps"', f);
          return [{ k: 'const', v: '' }, TEXT];
        }
        return [{ k: 'concat', l, r, list: false }, TEXT];
      }
      if (lt.k === 'list' || rt.k === 'list') {
        if (lt.k !== 'list' || rt.k !== 'list' || (!compat(lt.of, rt.of) && !compat(rt.of, lt.of))) {
          this.add('type', e.span, `+ joins two lists of the same kind, not ${show(lt)} and ${show(rt)}`, 'append(list, item)', f);
          return [l, ERR];
        }
        return [{ k: 'concat', l, r, list: true }, lt.of.k === 'err' ? rt : lt];
      }
    }
    if (!isNat(lt) || !isNat(rt)) {
      this.add('type', e.span, `${op} works on naturals, not ${show(lt)} and ${show(rt)}`, undefined, f);
      return [{ k: 'const', v: 0 }, ERR];
    }
    return [{ k: 'arith', op: op as '+' | '-' | '*' | '/' | '%', l, r }, NAT];
  }
}

function hintFor(t: Ty): string | undefined {
  switch (t.k) {
    case 'nat':
      return 'a natural, like 3';
    case 'text':
      return 'text in double quotes, like "hello"';
    case 'bool':
      return 'true or false';
    case 'list':
      return `a list, like [] or [a, b]`;
    case 'record':
      return t.name ? `${t.name} { ${t.fields.map((f) => `${f.name}: …`).join(', ')} }` : showFull(t);
    case 'variant':
      return `one of its tags: ${t.ctors.map((c) => c.name).join(', ')}`;
    default:
      return undefined;
  }
}

/** Does running these statements always end in return or refuse? */
export function ends(ss: S[]): boolean {
  for (const s of ss) {
    if (s.k === 'return' || s.k === 'refuse') return true;
    if (s.k === 'if' && s.otherwise && s.branches.every(([, b]) => ends(b)) && ends(s.otherwise)) return true;
    if (s.k === 'match') {
      const all = s.cases.every((c) => c !== undefined);
      if ((s.rest || all) && s.cases.every((c) => !c || ends(c.body)) && (!s.rest || ends(s.rest))) return true;
    }
    if (s.k === 'while' && s.cond.k === 'const' && s.cond.v === true) return true;
  }
  return false;
}

export type { Module };
