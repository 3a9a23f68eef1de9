/**
 * What the listener answers while the town opens. `npm start` listens at
 * once and opens the town behind it: a start that replays a long journal, or rebuilds a read
 * model of another version, takes a while, and in that while a load balancer or orchestrator
 * must see the process alive (`/health` 200) but not ready (`/ready` 503), and every other
 * request the spec's `hostUnavailable` (503, with Retry-After), never a refused connection.
 */
import Koa from 'koa';
import { randomBytes } from 'node:crypto';
import { TownError } from '../contract/town-error.js';
import { envelope } from '../contract/envelope.js';
import { givenRequestId } from './request-id.js';
import { setSecurityHeaders } from '../contract/security-headers.js';
import { replyLinks } from '../contract/links.js';

export function startingApp(): Koa {
  const app = new Koa();
  const boot = randomBytes(3).toString('hex');
  let served = 0;
  app.use(async (ctx) => {
    ctx.set('X-Request-Id', givenRequestId(ctx) ?? `${boot}-s${(++served).toString(36)}`);
    setSecurityHeaders(ctx.res);
    if (ctx.path === '/health' && (ctx.method === 'GET' || ctx.method === 'HEAD')) {
      ctx.type = 'application/json; charset=utf-8';
      ctx.body = JSON.stringify({ status: 'ok', _links: replyLinks(ctx.originalUrl) });
      return;
    }
    const rendered = envelope(
      new TownError('hostUnavailable', 'the town is starting (opening and replaying its journal); try again shortly', { headers: { 'Retry-After': '2' } }),
      ctx.originalUrl,
    );
    ctx.set(rendered.headers);
    ctx.status = rendered.status;
    ctx.type = 'application/json; charset=utf-8';
    ctx.body = JSON.stringify(rendered.body);
  });
  return app;
}
