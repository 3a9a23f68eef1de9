/**
 * A worker's operator listener (`npm run projector`, `npm run reactor` with TOWN_METRICS_PORT):
 * `/metrics` (the same access rule as the fronts'), `/health` and `/ready`. A worker serves no
 * agent, so it has no route table; what is not one of these three is the spec's `unknownRoute`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { TownError } from '../contract/town-error.js';
import { envelope } from '../contract/envelope.js';
import { securityHeaders } from '../contract/security-headers.js';
import type { Operations } from './watch.js';

export interface WorkerListener {
  port: number;
  close(): Promise<void>;
}

export async function serveOperations(operations: Operations, port: number, host?: string): Promise<WorkerListener> {
  const server = http.createServer((req, res) => {
    void answer(operations, req).then(
      ({ status, type, body, headers }) => {
        res.writeHead(status, { ...securityHeaders, ...headers, 'content-type': type, 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : body);
      },
      () => {
        const { status, body } = failure(new TownError('internal', 'the worker failed to answer; nothing was changed'), req.url ?? '/');
        res.writeHead(status, { ...securityHeaders, 'content-type': json }).end(body);
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface Answer {
  status: number;
  type: string;
  body: string;
  headers: Record<string, string>;
}

const json = 'application/json; charset=utf-8';

function failure(err: TownError, self: string): Answer {
  const rendered = envelope(err, self);
  return { status: rendered.status, type: json, body: JSON.stringify(rendered.body), headers: rendered.headers };
}

async function answer(o: Operations, req: http.IncomingMessage): Promise<Answer> {
  const url = req.url ?? '/';
  const path = url.split('?')[0]!;
  const method = req.method ?? 'GET';
  const unknown = () => failure(new TownError('unknownRoute', `no route ${method} ${path}`), url);
  if (method !== 'GET' && method !== 'HEAD') return unknown();
  if (path === '/health') return { status: 200, type: json, body: JSON.stringify({ status: 'ok' }), headers: {} };
  if (path === '/ready') {
    const state = await o.readiness.state();
    if (!state.ready) return failure(new TownError('hostUnavailable', `not ready: ${state.reason}`, { headers: { 'Retry-After': '5' } }), url);
    return {
      status: 200,
      type: json,
      body: JSON.stringify({ status: 'ready', projections: state.projections.map((p) => ({ name: p.name, lagSeconds: p.lagSeconds })) }),
      headers: {},
    };
  }
  if (path === '/metrics' && o.access.allows(req.socket.remoteAddress ?? '', req.headers.authorization)) {
    return { status: 200, type: o.metrics.contentType, body: await o.metrics.text(), headers: {} };
  }
  return unknown();
}
