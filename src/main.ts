import Koa from 'koa';
import Router from '@koa/router';
const app = new Koa();
const r = new Router();
r.get('/AGENTS.md', (ctx) => { ctx.body = 'hi'; });
app.use(r.routes());
console.log(typeof app.listen);
