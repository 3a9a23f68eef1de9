/**
 * MCP clients for the tests: the SDK's own Client over its StreamableHTTPClientTransport,
 * pointed at a test town's /mcp with a guest's credential.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { TestTown } from '../world/support.js';

export interface Connected {
  client: Client;
  transport: StreamableHTTPClientTransport;
  errors: Error[];
  close(): Promise<void>;
}

export function mcpTransport(base: string, token: string | undefined): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
    requestInit: token === undefined ? {} : { headers: { Authorization: `Bearer ${token}` } },
    // Quick reconnects: the tests hold streams for less than a second.
    reconnectionOptions: { initialReconnectionDelay: 50, maxReconnectionDelay: 200, reconnectionDelayGrowFactor: 1.5, maxRetries: 3 },
  });
}

export async function connect(t: TestTown, token: string | undefined, name = 'test'): Promise<Connected> {
  const client = new Client({ name, version: '1.0.0' });
  const transport = mcpTransport(t.base, token);
  const errors: Error[] = [];
  client.onerror = (e) => errors.push(e);
  await client.connect(transport);
  return {
    client,
    transport,
    errors,
    close: async () => {
      await transport.terminateSession().catch(() => {});
      await client.close();
    },
  };
}

/** Resolves with the first value `poll` gives that is not undefined, within `ms`. */
export async function eventually<T>(poll: () => T | undefined, ms = 5000, what = 'the condition'): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = poll();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`${what} did not hold within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Waits until the read models show `object` to the guest (a fresh town folds genesis first). */
export async function shown(t: TestTown, token: string, object: string): Promise<void> {
  for (const until = Date.now() + 10_000; ; await new Promise((r) => setTimeout(r, 20))) {
    if ((await t.get(`/AGENTS.md/world/${encodeURIComponent(object)}`, token)).status === 200) return;
    if (Date.now() > until) throw new Error(`${object} is not shown within 10 s`);
  }
}

/** Asserts that `p` rejects with an error whose message matches `re`. */
export async function rejects(p: Promise<unknown>, re: RegExp): Promise<Error> {
  try {
    await p;
  } catch (e) {
    const err = e as Error;
    if (!re.test(String(err?.message ?? err))) throw new Error(`rejected with ${String(err?.message ?? err)}, not ${re}`);
    return err;
  }
  throw new Error(`did not reject (expected ${re})`);
}
