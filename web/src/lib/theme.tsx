/** Colour mode: light, dark or system, kept in localStorage under `theme` (index.html applies it before paint). */
import { createContext, use, useEffect, useMemo, useState, type ReactNode } from 'react';

export type ThemeMode = 'light' | 'dark' | 'system';
const STORAGE_KEY = 'theme';

interface Theme {
  readonly mode: ThemeMode;
  readonly resolved: 'light' | 'dark';
  setMode(mode: ThemeMode): void;
}

const ThemeContext = createContext<Theme | null>(null);
const systemDark = () => window.matchMedia('(prefers-color-scheme: dark)');

function storedMode(): ThemeMode {
  const value = localStorage.getItem(STORAGE_KEY);
  return value === 'light' || value === 'dark' ? value : 'system';
}

export function ThemeProvider({ children }: { children: ReactNode }) {
  const [mode, setModeState] = useState<ThemeMode>(storedMode);
  const [prefersDark, setPrefersDark] = useState(() => systemDark().matches);

  useEffect(() => {
    const media = systemDark();
    const onChange = () => setPrefersDark(media.matches);
    media.addEventListener('change', onChange);
    const onStorage = (event: StorageEvent) => event.key === STORAGE_KEY && setModeState(storedMode());
    window.addEventListener('storage', onStorage);
    return () => {
      media.removeEventListener('change', onChange);
      window.removeEventListener('storage', onStorage);
    };
  }, []);

  const resolved = mode === 'system' ? (prefersDark ? 'dark' : 'light') : mode;
  useEffect(() => {
    document.documentElement.classList.toggle('dark', resolved === 'dark');
    document.documentElement.style.colorScheme = resolved;
  }, [resolved]);

  const value = useMemo<Theme>(
    () => ({
      mode,
      resolved,
      setMode(next) {
        if (next === 'system') localStorage.removeItem(STORAGE_KEY);
        else localStorage.setItem(STORAGE_KEY, next);
        setModeState(next);
      },
    }),
    [mode, resolved],
  );
  return <ThemeContext value={value}>{children}</ThemeContext>;
}

export function useTheme(): Theme {
  const theme = use(ThemeContext);
  if (!theme) throw new Error('useTheme outside ThemeProvider');
  return theme;
}
