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

  /** The model pill's tooltip, in a sentence (never the server's raw error). */
  protected readonly llmTitle = computed(() => {
    const llm = this.status.health()?.llm;
    return llm ? modelSentence(llm.ok, llm.detail) : null;
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

/**
 * What the header says of the language model, for people: "Answers are written by a language
 * model (ollama llama3.2)", or why answers quote the sources instead — never an exception's text
 * ("Ollama not reachable at http://127.0.0.1:11434: ConnectError").
 */
export function modelSentence(ok: boolean, detail: string): string {
  if (/^none\b|extractive/i.test(detail)) {
    return 'No language model is set up, so answers quote the most relevant passages of the sources.';
  }
  if (ok) {
    const name = detail.split(/[:,]/)[0].trim();
    return name && name.length < 60 && !/https?:/.test(name)
      ? `Answers are written by a language model (${name}) from the sources.`
      : 'Answers are written by a language model from the sources.';
  }
  if (/not reachable|connect|timed? ?out|refused/i.test(detail)) {
    return 'The language model is not reachable right now, so answers quote the sources. An admin can check the model server.';
  }
  return 'The language model is not available, so answers quote the sources. An admin can check its settings.';
}
