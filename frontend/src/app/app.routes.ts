import { Routes } from '@angular/router';

/**
 * Client routes. They avoid the API's first path segments (/graph, /sources, /chat, …) so a
 * reload of any page reaches the SPA fallback rather than a JSON endpoint.
 */
export const routes: Routes = [
  {
    path: '',
    pathMatch: 'full',
    title: 'Chat · devkb',
    loadComponent: () => import('./features/chat/chat-page').then((m) => m.ChatPage),
  },
  {
    path: 'explore',
    title: 'Graph · devkb',
    loadComponent: () => import('./features/graph/graph-page').then((m) => m.GraphPage),
  },
  {
    path: 'sync',
    title: 'Sources · devkb',
    loadComponent: () => import('./features/sources/sources-page').then((m) => m.SourcesPage),
  },
  {
    path: '**',
    title: 'Not found · devkb',
    loadComponent: () => import('./features/not-found/not-found-page').then((m) => m.NotFoundPage),
  },
];
