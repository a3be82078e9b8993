import { inject } from '@angular/core';
import { Router, Routes, UrlSegment, type UrlMatchResult } from '@angular/router';

import { signInPageGuard, signedInGuard } from './core/auth/auth-guard';

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
 * reload of any page reaches the SPA fallback rather than a JSON endpoint. On a server with
 * accounts every page but /signin needs a signed-in user (`signedInGuard`).
 */
export const routes: Routes = [
  {
    path: '',
    pathMatch: 'full',
    title: 'Chat · devkb',
    canActivate: [signedInGuard],
    loadComponent: () => import('./features/chat/chat-page').then((m) => m.ChatPage),
  },
  {
    path: 'explore',
    title: 'Graph · devkb',
    canActivate: [signedInGuard],
    loadComponent: () => import('./features/graph/graph-page').then((m) => m.GraphPage),
  },
  {
    path: 'sync',
    title: 'Sources · devkb',
    canActivate: [signedInGuard],
    loadComponent: () => import('./features/sources/sources-page').then((m) => m.SourcesPage),
  },
  {
    path: 'changed',
    title: 'What changed · devkb',
    canActivate: [signedInGuard],
    loadComponent: () => import('./features/changes/changes-page').then((m) => m.ChangesPage),
  },
  {
    path: 'memory',
    title: 'Memory · devkb',
    canActivate: [signedInGuard],
    loadComponent: () => import('./features/memory/memory-page').then((m) => m.MemoryPage),
  },
  {
    path: 'signin',
    title: 'Sign in · devkb',
    canActivate: [signInPageGuard],
    loadComponent: () => import('./features/signin/signin-page').then((m) => m.SignInPage),
  },
  {
    path: 'tokens',
    title: 'API tokens · devkb',
    canActivate: [signedInGuard],
    loadComponent: () => import('./features/tokens/tokens-page').then((m) => m.TokensPage),
  },
  {
    // admins only: a member signed in sees a note that the page is for admins (and no data)
    path: 'admin',
    title: 'People · devkb',
    canActivate: [signedInGuard],
    loadComponent: () => import('./features/admin/admin-page').then((m) => m.AdminPage),
  },
  {
    // admins only (like /admin): questions the sources could not answer, by topic
    path: 'gaps',
    title: 'Knowledge gaps · devkb',
    canActivate: [signedInGuard],
    loadComponent: () => import('./features/gaps/gaps-page').then((m) => m.GapsPage),
  },
  // The API's paths, opened in a browser (the server sends the app for a navigation): their pages
  { path: 'graph', pathMatch: 'full', redirectTo: 'explore' },
  { matcher: documentUrl('graph'), redirectTo: focusDocument },
  { matcher: documentUrl('documents'), redirectTo: focusDocument },
  { path: 'sources', pathMatch: 'full', redirectTo: 'sync' },
  { path: 'changes', pathMatch: 'full', redirectTo: 'changed' },
  { path: 'chat', pathMatch: 'full', redirectTo: '' },
  { path: 'conversations', pathMatch: 'full', redirectTo: '' },
  {
    path: '**',
    title: 'Not found · devkb',
    canActivate: [signedInGuard],
    loadComponent: () => import('./features/not-found/not-found-page').then((m) => m.NotFoundPage),
  },
];
