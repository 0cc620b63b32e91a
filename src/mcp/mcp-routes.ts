import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Context } from 'koa';
import type { Services } from '../core/services.ts';
import type { DescribedRoutes } from '../http/route-description.ts';
import { createMcpServer } from './mcp-server.ts';
import { ServiceClient } from './service-client.ts';

/** The largest JSON-RPC message the endpoint reads (an uploaded table travels inside one). */
const MAX_MESSAGE_BYTES = 64 * 2 ** 20;

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
export function mcpRoutes(routes: DescribedRoutes, services: Pick<Services, 'config' | 'log'>): void {
  routes.add(
    {
      method: 'POST',
      path: '/mcp',
      summary: 'Model Context Protocol (Streamable HTTP, stateless): tools, resources and a prompt for language-model agents, with the rights of the caller’s token',
      tag: 'service',
      ownInput: true,
      body: ['application/json'],
      responses: { 200: ['application/json', 'text/event-stream'], 400: ['application/json'], 403: ['application/json'], 406: ['application/json'] },
    },
    async (ctx) => {
      const client = ServiceClient.of(ctx, services.config.baseUrl);
      const server = createMcpServer(client, services.log);
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
        enableDnsRebindingProtection: true,
        allowedHosts: allowedHosts(ctx, services.config.baseUrl),
        maxRequestBodySize: MAX_MESSAGE_BYTES,
      });
      ctx.respond = false;
      ctx.res.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(ctx.req, ctx.res);
    },
  );
}
