/**
 * Boot: one API client and one socket for the page, provided to stores and components; the
 * router lazy-loads views so the first paint stays small.
 */
import { createPinia } from 'pinia';
import { createApp } from 'vue';
import App from './App.vue';
import { detectDesktop, provideClient } from './api/context.js';
import { Http } from './api/http.js';
import { socketUrl, StudioSocket } from './api/socket.js';
import { StudioApi } from './api/studio-api.js';
import { createStudioRouter } from './router.js';
import './styles/base.css';

const socket = new StudioSocket({ url: socketUrl() });
const app = createApp(App);
provideClient(app, { api: new StudioApi(new Http()), socket, desktop: detectDesktop() });
app.use(createPinia());
app.use(createStudioRouter());
app.mount('#app');
socket.start();
