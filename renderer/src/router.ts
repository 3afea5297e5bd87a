/**
 * Page routes. Views load lazily (each its own chunk); the server answers every one of these
 * paths with index.html (history-API fallback).
 */
import { createRouter, createWebHistory, START_LOCATION, type Router } from 'vue-router';
import { useSetupStore } from './stores/setup.store.js';

/** The app's router. */
export function createStudioRouter(): Router {
  const router = createRouter({
    history: createWebHistory(),
    routes: [
      { path: '/', redirect: '/home' },
      { path: '/home', name: 'home', component: () => import('./views/HomeView.vue'), meta: { title: 'Workflows' } },
      { path: '/run/:id', name: 'run', component: () => import('./views/RunView.vue'), meta: { title: 'Run' }, props: true },
      { path: '/workflows/:id/form', name: 'workflow-form', component: () => import('./views/WorkflowFormView.vue'), meta: { title: 'Edit form' }, props: true },
      { path: '/jobs/:promptId', name: 'job', component: () => import('./views/JobView.vue'), meta: { title: 'Job' }, props: true },
      { path: '/batches', name: 'batches', component: () => import('./views/BatchesView.vue'), meta: { title: 'Batches' } },
      { path: '/batches/:id', name: 'batch', component: () => import('./views/BatchView.vue'), meta: { title: 'Batch' }, props: true },
      { path: '/jobs', name: 'jobs', component: () => import('./views/JobsView.vue'), meta: { title: 'Queue & history' } },
      { path: '/assets', name: 'assets', component: () => import('./views/AssetsView.vue'), meta: { title: 'Assets' } },
      { path: '/models', name: 'models', component: () => import('./views/ModelsView.vue'), meta: { title: 'Models & LoRAs' } },
      { path: '/events', name: 'events', component: () => import('./views/EventsView.vue'), meta: { title: 'Events' } },
      { path: '/presets', name: 'presets', component: () => import('./views/PresetsView.vue'), meta: { title: 'Presets' } },
      { path: '/engines', name: 'engines', component: () => import('./views/EnginesView.vue'), meta: { title: 'Engines' } },
      { path: '/system', name: 'system', component: () => import('./views/SystemView.vue'), meta: { title: 'System' } },
      { path: '/setup', name: 'setup', component: () => import('./views/SetupView.vue'), meta: { title: 'Engine setup' } },
      { path: '/disk', name: 'disk', component: () => import('./views/DiskView.vue'), meta: { title: 'Disk' } },
      { path: '/nodes', name: 'nodes', component: () => import('./views/NodesView.vue'), meta: { title: 'Node packages' } },
      { path: '/chatbot', name: 'chatbot', component: () => import('./views/ChatbotView.vue'), meta: { title: 'Chat bot' } },
      { path: '/modelhub', name: 'modelhub', component: () => import('./views/ModelhubView.vue'), meta: { title: 'Model hub lookup' } },
      { path: '/gallery/:modelId', name: 'gallery', component: () => import('./views/GalleryView.vue'), meta: { title: 'Gallery' }, props: true },
      { path: '/users', name: 'users', component: () => import('./views/UsersView.vue'), meta: { title: 'Users' } },
      { path: '/keys', name: 'keys', component: () => import('./views/KeysView.vue'), meta: { title: 'My keys' } },
      { path: '/notifications', name: 'notifications', component: () => import('./views/NotificationsView.vue'), meta: { title: 'Notifications' } },
      { path: '/llm', name: 'llm', component: () => import('./views/LlmView.vue'), meta: { title: 'LLM' } },
      { path: '/:rest(.*)*', name: 'not-found', component: () => import('./views/NotFoundView.vue'), meta: { title: 'Not found' } },
    ],
  });
  // First start (no real engine configured, the stand-in not chosen): the setup page comes first,
  // decided before Workflows renders so it does not flash and jump. Only the page's first
  // navigation asks; a failed question leaves the user where they were going.
  router.beforeEach(async (to, from) => {
    if (from !== START_LOCATION || to.path !== '/home') return true;
    const { first_start } = await useSetupStore()
      .firstStart()
      .catch(() => ({ first_start: false }));
    return first_start ? { path: '/setup', replace: true } : true;
  });
  return router;
}
