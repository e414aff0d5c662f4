/** The non-httpOnly `accessToken` cookie, which the server sets at sign-in and refresh (OTOG keeps it there too). */
export const ACCESS_TOKEN_COOKIE = 'accessToken';

export function readCookie(name: string): string | null {
  for (const part of document.cookie.split(';')) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return decodeURIComponent(rest.join('='));
  }
  return null;
}

export function deleteCookie(name: string): void {
  document.cookie = `${name}=; path=/; max-age=0; samesite=lax`;
}

export const readAccessToken = () => readCookie(ACCESS_TOKEN_COOKIE) || null;
