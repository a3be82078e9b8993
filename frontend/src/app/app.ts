import { ChangeDetectionStrategy, Component, computed, inject } from '@angular/core';
import { RouterLink, RouterLinkActive, RouterOutlet } from '@angular/router';

import { ApiKeyStore } from './core/api/api-key';
import { ServerStatus } from './core/server-status';

/** The shell: brand, navigation, server status, and the routed page. */
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
  protected readonly summary = computed(() => {
    const h = this.status.health();
    if (!h) return null;
    return {
      docs: h.store.ok ? h.store.detail.split(',')[0] : 'store unavailable',
      llm: h.llm.ok && !/extractive|^none/i.test(h.llm.detail),
    };
  });

  constructor() {
    void this.status.refresh();
  }

  protected saveKey(input: HTMLInputElement): void {
    this.keys.save(input.value);
    location.reload();
  }
}
