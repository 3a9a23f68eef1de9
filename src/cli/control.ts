/**
 * The operator's line to a running town. With the embedded stores the journal belongs to one
 * process, the town's, so `npm run town -- invite` cannot open it while the town runs. Instead
 * the town listens on a Unix socket in its data directory and runs the operator's commands
 * there, on its own store, with the very same code. The socket's file mode (0600) is the
 * authority: whoever may read and write the town's data may act as its operator.
 *
 * Protocol: one JSON line `{command, args}` in; JSON lines `{out}` / `{err}` back, then
 * `{code}`, then the town closes the connection.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export type OperatorRun = (command: string, args: string[], io: { out(line: string): void; err(line: string): void }) => Promise<number>;

export function controlSocketPath(dataDir: string): string {
  return path.join(dataDir, 'control.sock');
}

/** Largest request a client may send (a command and its few arguments). */
const maxRequestBytes = 64 * 1024;

export async function serveControl(dataDir: string, run: OperatorRun): Promise<{ close(): Promise<void> }> {
  const file = controlSocketPath(dataDir);
  // A socket file left by a town that died: this process owns the journal now, so it is stale.
  fs.rmSync(file, { force: true });
  const server = net.createServer((socket) => {
    let buffered = '';
    const send = (value: unknown) => socket.write(`${JSON.stringify(value)}\n`);
    socket.setEncoding('utf8');
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      if (buffered.length > maxRequestBytes) {
        send({ err: 'request too large' });
        send({ code: 2 });
        socket.end();
        return;
      }
      const newline = buffered.indexOf('\n');
      if (newline < 0) return;
      socket.removeAllListeners('data');
      let request: { command?: unknown; args?: unknown };
      try {
        request = JSON.parse(buffered.slice(0, newline)) as typeof request;
      } catch {
        request = {};
      }
      const { command, args } = request;
      if (typeof command !== 'string' || !Array.isArray(args) || !args.every((a) => typeof a === 'string')) {
        send({ err: 'expected {"command": text, "args": [text]}' });
        send({ code: 2 });
        socket.end();
        return;
      }
      run(command, args as string[], { out: (line) => send({ out: line }), err: (line) => send({ err: line }) }).then(
        (code) => {
          send({ code });
          socket.end();
        },
        (error: unknown) => {
          send({ err: error instanceof Error ? error.message : String(error) });
          send({ code: 1 });
          socket.end();
        },
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(file, () => resolve());
  });
  fs.chmodSync(file, 0o600);
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        fs.rmSync(file, { force: true });
      }),
  };
}

/**
 * Runs the command in the town listening in `dataDir`; undefined when no town listens there
 * (no socket, or a stale one), so the caller opens the store itself.
 */
export function callControl(
  dataDir: string,
  command: string,
  args: string[],
  io: { out(line: string): void; err(line: string): void },
): Promise<number | undefined> {
  const file = controlSocketPath(dataDir);
  if (!fs.existsSync(file)) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    let connected = false;
    let code: number | undefined;
    let buffered = '';
    const socket = net.createConnection(file, () => {
      connected = true;
      socket.write(`${JSON.stringify({ command, args })}\n`);
    });
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = JSON.parse(buffered.slice(0, newline)) as { out?: string; err?: string; code?: number };
        buffered = buffered.slice(newline + 1);
        if (line.out !== undefined) io.out(line.out);
        if (line.err !== undefined) io.err(line.err);
        if (line.code !== undefined) code = line.code;
      }
    });
    socket.on('error', () => resolve(connected ? 1 : undefined));
    socket.on('close', () => resolve(connected ? (code ?? 1) : undefined));
  });
}
