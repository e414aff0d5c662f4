/**
 * The chat's data: history pages from GET /chat (newest first, the cursor is the last id of the previous
 * page), live pushes from the realtime `chat` event, the online list (GET /user/online). Both kinds of
 * message become one `ChatItem`; the feed shows them oldest first, each id once.
 */
import { useInfiniteQuery, useQuery, type InfiniteData, type QueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { CHAT_PAGE_DEFAULT, chatContract, type ChatMessage } from '@otog/schemas/api/chat';
import { userContract } from '@otog/schemas/api/user';
import { ApiError, callApi } from '../../lib/api.ts';
import { apiKey } from '../../lib/query.ts';

export interface ChatItem {
  readonly id: number;
  readonly message: string;
  readonly creationDate: string;
  readonly user: { readonly id: number; readonly showName: string; readonly rating: number | null };
}

/** The realtime push: [id, message, creationDate, [userId, showName, rating]]. */
const ChatPushSchema = z.tuple([z.number().int(), z.string(), z.string(), z.tuple([z.number().int(), z.string(), z.number().nullable()])]);

/** A `chat` event's arguments (the push as one list, or spread) as a ChatItem; null when malformed. */
export function itemFromPush(args: readonly unknown[]): ChatItem | null {
  const parsed = ChatPushSchema.safeParse(Array.isArray(args[0]) ? args[0] : args);
  if (!parsed.success) return null;
  const [id, message, creationDate, [userId, showName, rating]] = parsed.data;
  return { id, message, creationDate, user: { id: userId, showName, rating } };
}

export const itemFromHistory = (row: ChatMessage): ChatItem => ({
  id: row.id,
  message: row.message,
  creationDate: row.creationDate,
  user: { id: row.user.id, showName: row.user.showName, rating: row.user.rating },
});

export const CHAT_HISTORY_KEY = [...apiKey(chatContract.getChats), 'pages'] as const;

/**
 * History pages, loaded while `enabled` (the panel has been opened). Not refetched on focus or reconnect
 * (live pushes keep it current); any answer but 200 is an empty page, as OTOG does.
 */
export function useChatHistory(enabled: boolean) {
  return useInfiniteQuery({
    queryKey: CHAT_HISTORY_KEY,
    queryFn: async ({ pageParam, signal }) => {
      try {
        return await callApi(chatContract.getChats, { query: { offset: pageParam }, signal });
      } catch (error) {
        if (error instanceof ApiError) return [];
        throw error;
      }
    },
    initialPageParam: undefined as number | undefined,
    getNextPageParam: (last) => (last.length < CHAT_PAGE_DEFAULT ? undefined : last.at(-1)?.id),
    enabled,
    staleTime: Infinity,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
  });
}

/** Removes a deleted message from the cached history. */
export function dropFromHistory(queryClient: QueryClient, id: number): void {
  queryClient.setQueryData<InfiniteData<ChatMessage[], number | undefined>>(CHAT_HISTORY_KEY, (data) =>
    data ? { ...data, pages: data.pages.map((page) => page.filter((row) => row.id !== id)) } : data,
  );
}

/** History and live messages, oldest first, each id once, without the deleted ones. */
export function mergeFeed(history: readonly ChatMessage[], live: readonly ChatItem[], deleted: ReadonlySet<number>): ChatItem[] {
  const byId = new Map<number, ChatItem>();
  for (const row of history) byId.set(row.id, itemFromHistory(row));
  for (const item of live) if (!byId.has(item.id)) byId.set(item.id, item);
  return [...byId.values()].filter((item) => !deleted.has(item.id)).sort((a, b) => a.id - b.id);
}

export const ONLINE_KEY = apiKey(userContract.online);

/** Who is online now (any answer but 200 is nobody, as OTOG does), read while `enabled`. */
export function useOnlineUsers(enabled: boolean) {
  return useQuery({
    queryKey: ONLINE_KEY,
    queryFn: async ({ signal }) => {
      try {
        return await callApi(userContract.online, { signal });
      } catch (error) {
        if (error instanceof ApiError) return [];
        throw error;
      }
    },
    enabled,
  });
}
