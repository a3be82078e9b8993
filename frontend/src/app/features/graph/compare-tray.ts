import { ChangeDetectionStrategy, Component, input, output } from '@angular/core';

import type { GraphNode } from '../../core/api/models';
import { DocTypeBadge } from '../../shared/doc-type';
import { Icon } from '../../shared/icon';
import { trayHint } from './compare';
import { nodeName } from './graph-model';

/** The documents picked in the graph search for a comparison, and "Compare these two". */
@Component({
  selector: 'app-compare-tray',
  imports: [DocTypeBadge, Icon],
  changeDetection: ChangeDetectionStrategy.OnPush,
  host: { id: 'compare-tray', role: 'group', '[attr.aria-label]': '"Documents to compare"' },
  template: `
    <span class="hint" aria-live="polite">{{ hint(picks().length) }}</span>
    @for (p of picks(); track p.id) {
      <span class="pick" data-testid="compare-pick">
        <app-doc-type [type]="p.type" />
        <span class="name" [attr.title]="p.title">{{ name(p) }}</span>
        <button
          type="button"
          class="icon-btn"
          (click)="removed.emit(p.id)"
          [attr.aria-label]="'Remove ' + name(p)"
          [attr.title]="'Remove ' + name(p)"
        >
          <app-icon name="close" [size]="14" />
        </button>
      </span>
    }
    <button
      type="button"
      class="btn primary"
      [disabled]="picks().length < 2"
      (click)="compareTwo.emit()"
    >
      Compare these two
    </button>
  `,
  styles: `
    :host {
      flex: 1 1 100%;
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      gap: 0.4rem;
      min-width: 0;
      font-size: 0.84rem;
    }
    .hint {
      color: var(--text-2);
    }
    .btn {
      padding: 0.28rem 0.65rem;
      font-size: 0.82rem;
    }
    .pick {
      display: inline-flex;
      align-items: center;
      gap: 0.35rem;
      max-width: 100%;
      min-width: 0;
      padding: 0.1rem 0.15rem 0.1rem 0.45rem;
      border: 1px solid var(--border-strong);
      border-radius: 0.45rem;
      background: var(--bg);
    }
    .name {
      overflow: hidden;
      text-overflow: ellipsis;
      white-space: nowrap;
      min-width: 0;
    }
    .icon-btn {
      flex: none;
    }
  `,
})
export class CompareTray {
  readonly picks = input.required<readonly GraphNode[]>();
  readonly removed = output<string>();
  readonly compareTwo = output<void>();
  protected readonly hint = trayHint;

  protected name(node: GraphNode): string {
    return nodeName(node, 48);
  }
}
