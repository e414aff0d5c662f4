/** TanStack Query glue: one key shape for every API read, so invalidating a route refreshes all its lists. */
import { QueryClient, queryOptions } from '@tanstack/react-query';
import type { RouteContract } from '@otog/schemas/api/contract';
import { ApiError, callApi, type ApiInput, type ApiOk, type CallOptions } from './api.ts';

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 10_000,
        // Only a lost connection or a server error may get better by asking again; a 4xx or an answer
        // that breaks its contract will not.
        retry: (count, error) => count < 2 && (error instanceof TypeError || (error instanceof ApiError && error.status >= 500)),
      },
    },
  });
}

/** [method, path] then the params and query: `['GET', '/submission']` prefixes every submission list. */
export function apiKey(contract: Pick<RouteContract, 'method' | 'path'>, input: Pick<ApiInput, 'params' | 'query'> = {}) {
  return [contract.method, contract.path, input.params ?? {}, input.query ?? {}] as const;
}

export function apiQuery<C extends RouteContract>(contract: C, input: Omit<ApiInput, 'signal' | 'body' | 'form'> = {}, options: CallOptions<C> = {}) {
  return queryOptions<ApiOk<C>>({
    queryKey: apiKey(contract, input),
    queryFn: ({ signal }) => callApi(contract, { ...input, signal }, options),
  });
}

/** Refetches every read whose path is one of `prefixes` or below it (`/problem` covers `/problem/3`, `/problem/admin/list`...). */
export function invalidatePaths(queryClient: QueryClient, ...prefixes: string[]): Promise<void> {
  return queryClient.invalidateQueries({
    predicate: ({ queryKey }) => {
      const path = queryKey[1];
      return queryKey[0] === 'GET' && typeof path === 'string' && prefixes.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
    },
  });
}
