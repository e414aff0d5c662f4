/**
 * The server's clock, for contest countdowns and phases: a laptop's clock may be minutes off, and a contest
 * opens and closes by the server's. GET /time is read once (again every 10 minutes and on focus), its
 * offset from the local clock is kept — corrected by half the round trip — and `useServerNow` ticks every
 * second on local time plus that offset.
 */
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { appContract } from '@otog/schemas/api/app';
import { callApi } from './api.ts';
import { apiKey } from './query.ts';

const RESYNC_MS = 10 * 60_000;

/** Milliseconds to add to Date.now() to get the server's time (0 until the first answer). */
export function useServerOffset(): number {
  const { data } = useQuery({
    queryKey: [...apiKey(appContract.time), 'offset'],
    queryFn: async ({ signal }) => {
      const sent = Date.now();
      const server = Date.parse(await callApi(appContract.time, { signal }));
      const received = Date.now();
      return server + (received - sent) / 2 - received;
    },
    staleTime: RESYNC_MS,
    refetchInterval: RESYNC_MS,
  });
  return data ?? 0;
}

/** The server's time now, in epoch milliseconds, re-rendering every `tickMs` (aligned to the second). */
export function useServerNow(tickMs = 1_000): number {
  const offset = useServerOffset();
  const [local, setLocal] = useState(Date.now);
  useEffect(() => {
    let timer = 0;
    const tick = () => {
      setLocal(Date.now());
      timer = window.setTimeout(tick, tickMs - (Date.now() % tickMs) + 5);
    };
    tick();
    return () => window.clearTimeout(timer);
  }, [tickMs]);
  return local + offset;
}
