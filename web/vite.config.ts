/**
 * The web app's build. `npm start` serves web/dist at / (services/api/src/http/web-app.ts); `npm run dev -w web`
 * serves it with hot reload and proxies /api to a running `npm start` (OTOG_API_URL, default port 3000).
 */
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // The route chunks are split by React.lazy; the editor (CodeMirror) only loads with the editor tab.
    chunkSizeWarningLimit: 600,
  },
  server: {
    proxy: {
      '/api': process.env.OTOG_API_URL ?? 'http://127.0.0.1:3000',
      // The realtime channel (WebSocket upgrades included).
      '/socket.io': { target: process.env.OTOG_API_URL ?? 'http://127.0.0.1:3000', ws: true },
    },
  },
});
