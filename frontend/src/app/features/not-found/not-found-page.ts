import { ChangeDetectionStrategy, Component, inject } from '@angular/core';
import { Router, RouterLink } from '@angular/router';

/** The page for an app path that does not exist (instead of silently showing the chat). */
@Component({
  selector: 'app-not-found-page',
  imports: [RouterLink],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <section class="not-found">
      <h1>Page not found</h1>
      <p>
        There is no page at <code>{{ path }}</code>.
      </p>
      <p>
        Ask a question in <a routerLink="/">Chat</a>, explore the
        <a routerLink="/explore">Graph</a> or see the <a routerLink="/sync">Sources</a>.
      </p>
    </section>
  `,
  styles: `
    .not-found {
      max-width: 40rem;
      margin: 4rem auto;
      padding: 0 1.25rem;
    }
    code {
      overflow-wrap: anywhere;
    }
  `,
})
export class NotFoundPage {
  protected readonly path = inject(Router).url;
}
