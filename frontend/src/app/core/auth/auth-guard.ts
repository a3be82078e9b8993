import { HttpErrorResponse, HttpInterceptorFn } from '@angular/common/http';
import { inject } from '@angular/core';
import { type CanActivateFn, Router } from '@angular/router';
import { tap } from 'rxjs';

import { AuthStore, SIGN_IN_ROUTE, isAuthPath, safeReturn } from './auth-store';

/** Every page but /signin: with accounts on the server, only for a signed-in user. */
export const signedInGuard: CanActivateFn = async (_route, state) => {
  const auth = inject(AuthStore);
  if (!auth.loaded()) await auth.load();
  if (auth.open()) return true;
  return inject(Router).createUrlTree([SIGN_IN_ROUTE], {
    queryParams: { return: safeReturn(state.url) },
  });
};

/** /signin: only while signed out on a server with accounts; otherwise on to the return page. */
export const signInPageGuard: CanActivateFn = async (route) => {
  const auth = inject(AuthStore);
  if (!auth.loaded()) await auth.load();
  if (auth.accounts() && !auth.user()) return true;
  return inject(Router).parseUrl(safeReturn(route.queryParamMap.get('return')));
};

/**
 * A 401 from the API (but not from /auth/*, whose 401 is a wrong password the page shows): with
 * accounts, to the sign-in page; without, the server wants its API key.
 */
export const authInterceptor: HttpInterceptorFn = (req, next) => {
  const auth = inject(AuthStore);
  return next(req).pipe(
    tap({
      error: (e: unknown) => {
        if (e instanceof HttpErrorResponse && e.status === 401 && !isAuthPath(req.url))
          auth.unauthorized();
      },
    }),
  );
};
