import { useEffect } from 'react';

/** Sets the tab title: "{page} | OTOG". */
export function usePageTitle(title: string | undefined): void {
  useEffect(() => {
    document.title = title ? `${title} | OTOG` : 'OTOG — One Tambon One Grader';
  }, [title]);
}
