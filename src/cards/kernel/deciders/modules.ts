/** The modules a create, REPL entry or check gives, and a compile failure as the host reports it. */
import { limits } from '../../../contract/limits.js';
import type { Diagnostic, Module } from '../../program.js';
import type { HostRequest } from '../outcome.js';

/** The modules asked for (source is one module, `main`), or why the request is malformed. */
export function modulesOf(cmd: { source?: string; modules?: Module[] }): Module[] | HostRequest {
  if (cmd.source !== undefined && cmd.modules !== undefined) return { class: 'hostRequest', message: 'give source or modules, not both' };
  const modules = cmd.source !== undefined ? [{ name: 'main', source: cmd.source }] : cmd.modules;
  if (!modules || modules.length === 0) return { class: 'hostRequest', message: 'give source (one module) or modules' };
  if (modules.length > limits.modules) return { class: 'hostRequest', message: `at most ${limits.modules} modules` };
  const big = modules.find((m) => Buffer.byteLength(m.source) > limits.moduleBytes);
  if (big) return { class: 'hostRequest', message: `module ${big.name} is over ${limits.moduleBytes} bytes` };
  return modules;
}

export function compileFailure(diagnostics: Diagnostic[]): HostRequest {
  const d = diagnostics[0];
  if (!d) return { class: 'hostRequest', message: 'the modules do not compile', diagnostics };
  return {
    class: 'hostRequest',
    message: `${d.stage} error in ${d.module} at ${d.line}:${d.column}: ${d.message}`,
    diagnostics,
    stage: d.stage,
    module: d.module,
    span: { line: d.line, column: d.column, endLine: d.endLine, endColumn: d.endColumn },
    ...(d.hint ? { hint: d.hint } : {}),
  };
}
