/**
 * Vite build of the renderer: root `renderer/`, output `renderer/dist/`, hashed assets under
 * `/static/` (a public path on the server, so the login page could use them; they are immutable).
 */
import vue from '@vitejs/plugin-vue';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: '/',
  plugins: [vue()],
  build: {
    outDir: fileURLToPath(new URL('./dist', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'static',
    // The desktop window is Chromium and LAN browsers are recent; no legacy transforms.
    target: 'es2022',
    reportCompressedSize: true,
  },
  server: {
    // `vite --config renderer/vite.config.ts` for UI work: the API and the socket come from a running Studio.
    proxy: {
      '/api': 'http://127.0.0.1:8000',
      '/login': 'http://127.0.0.1:8000',
      '/ws': { target: 'ws://127.0.0.1:8000', ws: true },
    },
  },
});
