import type { FastifyInstance } from 'fastify';
import { createChatQueries } from '@otog/projections';
import { chatContract as contract } from '@otog/schemas/api/chat';
import { caller } from '../../http/access.ts';
import { serve } from '../../http/serve.ts';
import type { ApiDependencies } from '../../http/settings.ts';
import { deleteChatMessage } from './chat-commands.ts';

/** The chat routes of spec section 7 (OTOG research §3.4); posting is the realtime channel's. */
export async function chatRoutes(app: FastifyInstance, deps: ApiDependencies): Promise<void> {
  const queries = createChatQueries(deps.pool);

  serve(app, contract.getChats, async (request) => queries.page({ before: request.query.offset, limit: request.query.limit }));

  serve(app, contract.deleteChat, async (request) => deleteChatMessage(deps, caller(request).id, request.params.chatId));
}
