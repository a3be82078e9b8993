import { inject } from '@angular/core';
import { Router, Routes, UrlSegment, type UrlMatchResult } from '@angular/router';

/** `/graph/<id>` and `/documents/<id>`: ids hold "/" (github:owner/repo:file:path), so the rest of the URL. */
function documentUrl(prefix: string) {
  return (segments: UrlSegment[]): UrlMatchResult | null =>
    segments.length > 1 && segments[0].path === prefix
      ? {
          consumed: segments,
          posParams: {
            id: new UrlSegment(
              segments
                .slice(1)
                .map((s) => s.path)
                .join('/'),
              {},
            ),
          },
        }
      : null;
}

/** The graph, focused on a document. */
const focusDocument = ({ params }: { params: Record<string, string> }) =>
  inject(Router).createUrlTree(['/explore'], { queryParams: { focus: params['id'] } });

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
  // The API's paths, opened in a browser (the server sends the app for a navigation): their pages
  { path: 'graph', pathMatch: 'full', redirectTo: 'explore' },
  { matcher: documentUrl('graph'), redirectTo: focusDocument },
  { matcher: documentUrl('documents'), redirectTo: focusDocument },
  { path: 'sources', pathMatch: 'full', redirectTo: 'sync' },
  { path: 'chat', pathMatch: 'full', redirectTo: '' },
  { path: 'conversations', pathMatch: 'full', redirectTo: '' },
  {
    path: '**',
    title: 'Not found · devkb',
    loadComponent: () => import('./features/not-found/not-found-page').then((m) => m.NotFoundPage),
  },
];
