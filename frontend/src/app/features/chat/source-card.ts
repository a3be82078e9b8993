import { ChangeDetectionStrategy, Component, computed, input } from '@angular/core';
import { RouterLink } from '@angular/router';

import type { SourceCitation } from '../../core/api/models';
import { DocTypeBadge, docTypeStyle, openableUrl } from '../../shared/doc-type';
import { Icon } from '../../shared/icon';

/** One cited source: number, type, title, snippet, a link to the original and one to the graph. */
@Component({
  selector: 'app-source-card',
  imports: [RouterLink, DocTypeBadge, Icon],
  changeDetection: ChangeDetectionStrategy.OnPush,
  host: { '[attr.data-type]': 'source().type', '[attr.data-document-id]': 'source().document_id' },
  template: `
    <div class="head">
      <span class="num" aria-hidden="true">{{ index() }}</span>
      <app-doc-type [type]="source().type" />
      <span class="title" [attr.title]="source().title">
        <span class="visually-hidden">Source {{ index() }}:</span>
        {{ source().title }}
      </span>
    </div>
    <p class="id">{{ source().document_id }}</p>
    @if (source().snippet) {
      <p class="snippet">{{ source().snippet }}</p>
    }
    <div class="actions">
      <a
        class="btn-link"
        [routerLink]="['/explore']"
        [queryParams]="{ focus: source().document_id }"
        >Show in graph</a
      >
      @if (openUrl(); as url) {
        <a class="btn-link" [href]="url" target="_blank" rel="noopener noreferrer"
          >Open in {{ typeLabel() }} <app-icon name="external" [size]="13" /><span
            class="visually-hidden"
          >
            (opens in a new tab)</span
          ></a
        >
      }
    </div>
  `,
  styleUrl: './source-card.scss',
})
export class SourceCard {
  readonly source = input.required<SourceCitation>();
  readonly index = input.required<number>();
  protected readonly typeLabel = computed(() => docTypeStyle(this.source().type).label);
  protected readonly openUrl = computed(() => openableUrl(this.source().url));
}
