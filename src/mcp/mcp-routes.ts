import type { Context } from 'koa';
import type { Services } from '../core/services.ts';
import type { DescribedRoutes } from '../http/route-description.ts';
import { ServiceClient } from './service-client.ts';
import { HttpError } from '../core/errors.ts';
import { readText } from '../http/body.ts';

/**
 * The SDK (about 280 ms and 40 MiB to load) is loaded by the first MCP request, not at start:
 * most serve processes, and every worker, never answer one.
 */
let sdk: Promise<[typeof import('./mcp-server.ts'), typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js')]> | undefined;
const loadSdk = () => (sdk ??= Promise.all([import('./mcp-server.ts'), import('@modelcontextprotocol/sdk/server/streamableHttp.js')]));

/** A JSON-RPC error for a message the transport is not given. */
function jsonRpcError(ctx: Context, status: number, code: number, message: string): void {
  ctx.status = status;
  ctx.type = 'application/json';
  ctx.body = JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null });
}

/**
 * The Host headers the endpoint answers (the SDK's DNS-rebinding protection): the base URL's host
 * and the address this request reached, as the server's own Host check allows.
 */
function allowedHosts(ctx: Context, baseUrl: string): string[] {
  const base = new URL(baseUrl);
  const port = ctx.req.socket.localPort;
  const defaultPort = base.protocol === 'https:' ? '443' : '80';
  return [base.host, ...(base.port ? [] : [`${base.hostname}:${defaultPort}`]), `127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`];
}

/**
 * `/mcp`: the Model Context Protocol over Streamable HTTP, stateless. Every POST is a whole
 * exchange with a server and transport of its own, so any serve process behind a load balancer
 * answers any message, and nothing is kept between requests. GET (a stream of server messages)
 * and DELETE (ending a session) have no meaning without sessions: the router answers 405.
 */
export function mcpRoutes(routes: DescribedRoutes, services: Pick<Services, 'config' | 'log' | 'access'>): void {
  routes.add(
    {
      method: 'POST',
      path: '/mcp',
      summary: 'Model Context Protocol (Streamable HTTP, stateless): tools, resources and a prompt for language-model agents, with the rights of the caller’s token',
      tag: 'service',
      ownInput: true,
      body: ['application/json'],
      responses: {
        200: ['application/json', 'text/event-stream'],
        400: ['application/json'],
        401: ['application/json'],
        403: ['application/json'],
        406: ['application/json'],
        413: ['application/json'],
      },
    },
    async (ctx) => {
      const client = ServiceClient.of(ctx, services.config.baseUrl);
      // a token that is given must be good (401 as over REST); none: the anonymous view
      if (services.config.auth && client.token && !(await services.access.callerOfToken(client.token)))
        throw new HttpError(401, 'Unauthorized', 'the token is not valid (unknown, expired or revoked)');
      // one message per request, within the server's body limit (an uploaded table travels inside one)
      const text = await readText(ctx, services.config.bodyLimit);
      let message: unknown;
      try {
        message = JSON.parse(text);
      } catch {
        return jsonRpcError(ctx, 400, -32700, 'Parse error: the body is not JSON');
      }
      if (Array.isArray(message)) return jsonRpcError(ctx, 400, -32600, 'Invalid request: batches are not accepted, send one message per request');
      const [{ createMcpServer }, { StreamableHTTPServerTransport }] = await loadSdk();
      const server = createMcpServer(client, services.log);
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
        enableDnsRebindingProtection: true,
        allowedHosts: allowedHosts(ctx, services.config.baseUrl),
      });
      ctx.respond = false;
      ctx.res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(ctx.req, ctx.res, message);
    },
  );
}
