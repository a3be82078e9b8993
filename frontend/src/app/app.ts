import {
  ChangeDetectionStrategy,
  Component,
  computed,
  effect,
  inject,
  signal,
  untracked,
} from '@angular/core';
import { RouterLink, RouterLinkActive, RouterOutlet } from '@angular/router';

import { ApiKeyStore } from './core/api/api-key';
import { AuthStore } from './core/auth/auth-store';
import { ServerStatus } from './core/server-status';

/** The shell: brand, navigation, server status, the signed-in user, and the routed page. */
@Component({
  selector: 'app-root',
  imports: [RouterOutlet, RouterLink, RouterLinkActive],
  changeDetection: ChangeDetectionStrategy.OnPush,
  templateUrl: './app.html',
  styleUrl: './app.scss',
})
export class App {
  protected readonly status = inject(ServerStatus);
  protected readonly keys = inject(ApiKeyStore);
  protected readonly auth = inject(AuthStore);
  /** The account menu, folded behind a button on a phone. */
  protected readonly menuOpen = signal(false);
  protected readonly summary = computed(() => {
    const h = this.status.health();
    if (!h) return null;
    return {
      docs: h.store.ok ? h.store.detail.split(',')[0] : 'store unavailable',
      llm: h.llm.ok && !/extractive|^none/i.test(h.llm.detail),
    };
  });

  constructor() {
    // The server's state once the pages may load (at once on a server without accounts).
    effect(() => {
      if (this.auth.open()) untracked(() => void this.status.refresh());
    });
  }

  protected saveKey(input: HTMLInputElement): void {
    this.keys.save(input.value);
    location.reload();
  }
}
