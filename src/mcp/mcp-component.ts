import type { Services } from '../core/services.ts';
import type { DescribedRoutes } from '../http/route-description.ts';
import { mcpRoutes } from './mcp-routes.ts';

/** Tools for language-model agents: the Model Context Protocol over the service's own interface. */
export function createMcpComponent(services: Pick<Services, 'config' | 'log' | 'access'>) {
  return { operations: {}, jobs: {}, routes: (routes: DescribedRoutes) => mcpRoutes(routes, services) };
}
