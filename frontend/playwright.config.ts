import { defineConfig } from '@playwright/test';

/**
 * End-to-end tests in Debian's Chromium against the real backend serving the demo workspace.
 * e2e/global-setup.ts starts `devkb serve --index` on a free loopback port with a temporary
 * data dir (or uses DEVKB_E2E_URL when given) and stops it afterwards.
 */
export default defineConfig({
  testDir: './e2e',
  globalSetup: './e2e/global-setup.ts',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 90_000,
  expect: { timeout: 20_000 },
  reporter: 'list',
  outputDir: '../artifacts/playwright',
  use: {
    viewport: { width: 1440, height: 900 },
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
  },
});
