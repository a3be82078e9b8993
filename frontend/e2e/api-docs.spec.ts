import { expect, test } from './fixtures';

/**
 * The API's documentation renders from local assets: no script, style or font comes from a CDN.
 * (ReDoc's own "powered by" badge image is the one request it makes elsewhere; offline it is simply
 * not shown.)
 */
const BADGE = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
for (const { path, ready } of [
  { path: '/docs', ready: '.swagger-ui .info .title' },
  { path: '/redoc', ready: 'redoc [role="navigation"], .redoc-wrap' },
]) {
  test(`${path} renders offline`, async ({ page, baseURL }) => {
    const external: string[] = [];
    page.on('request', (r) => {
      const local = [baseURL ?? '', 'data:', 'blob:'].some((p) => r.url().startsWith(p));
      if (!local && r.url() !== BADGE) {
        external.push(r.url());
      }
    });
    await page.goto(path);
    await expect(page.locator(ready).first()).toBeVisible();
    await expect(page.getByText('devkb').first()).toBeVisible();
    expect(external).toEqual([]);
  });
}
