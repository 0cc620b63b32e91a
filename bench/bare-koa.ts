// The baseline of the load benchmark: a bare Koa application answering one fixed SMILES string,
// in its own process like the server, so both are measured the same way.
import Koa from 'koa';

const app = new Koa();
app.use((ctx) => {
  ctx.type = 'chemical/x-daylight-smiles';
  ctx.body = 'c1ccccc1O\n';
});
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as { port: number }).port })}\n`);
});
