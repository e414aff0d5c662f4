/**
 * A request index.html's inline script sent before the app's scripts had loaded (a scoreboard opened by
 * its URL asks for its board there, so the board and the app load side by side). The first call for the
 * same GET, with the same access token, takes its answer instead of asking again; later calls ask anew.
 */
export interface EarlyRequest {
  readonly url: string;
  /** The access token it was sent with (null: none). */
  readonly token: string | null;
  /** performance.now() when it was sent. */
  readonly at: number;
  readonly response: Promise<Response>;
}

declare global {
  interface Window {
    otogEarlyRequest?: EarlyRequest;
  }
}

/** Older than this, the answer is no longer what the user opened the page for: ask again. */
const EARLY_ANSWER_MAX_AGE_MS = 10_000;

export function takeEarlyRequest(method: string, url: string, token: string | null): Promise<Response> | null {
  if (typeof window === 'undefined') return null;
  const early = window.otogEarlyRequest;
  if (!early || method !== 'GET' || early.url !== url) return null;
  delete window.otogEarlyRequest;
  // Signed in or out meanwhile, or too old: the answer may not be this caller's.
  if (early.token !== token || performance.now() - early.at > EARLY_ANSWER_MAX_AGE_MS) return null;
  return early.response;
}
