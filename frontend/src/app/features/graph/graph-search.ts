import {
  ChangeDetectionStrategy,
  Component,
  DestroyRef,
  ElementRef,
  computed,
  inject,
  input,
  output,
  signal,
  viewChild,
} from '@angular/core';
import { takeUntilDestroyed } from '@angular/core/rxjs-interop';
import { Subject, catchError, debounceTime, distinctUntilChanged, of, switchMap } from 'rxjs';

import { ApiClient } from '../../core/api/api-client';
import type { GraphNode } from '../../core/api/models';
import { DocTypeBadge } from '../../shared/doc-type';
import { shortLabel } from './graph-model';

/**
 * A combobox that finds documents by id or title (`GET /graph/search`) and emits the one picked.
 * The graph's toolbar has one; the document panel's "Compare with…" another (its own `inputId`,
 * label and `exclude`: the document it compares).
 */
@Component({
  selector: 'app-graph-search',
  imports: [DocTypeBadge],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <label [for]="inputId()" class="visually-hidden">{{ label() }}</label>
    <input
      #box
      [id]="inputId()"
      type="search"
      [placeholder]="placeholder()"
      autocomplete="off"
      role="combobox"
      aria-autocomplete="list"
      [attr.aria-controls]="inputId() + '-results'"
      [attr.aria-expanded]="open()"
      [attr.aria-activedescendant]="
        open() && results().length ? inputId() + '-opt-' + active() : null
      "
      [value]="query()"
      (input)="onInput($any($event.target).value)"
      (keydown)="onKey($event)"
      (focus)="open.set(results().length > 0)"
      (blur)="close()"
    />
    @if (open()) {
      <ul [id]="inputId() + '-results'" role="listbox" aria-label="Matching documents">
        @for (r of results(); track r.id; let i = $index) {
          <li
            role="option"
            [id]="inputId() + '-opt-' + i"
            [class.active]="i === active()"
            [attr.aria-selected]="i === active()"
            (mousedown)="$event.preventDefault(); pick(r)"
          >
            <app-doc-type [type]="r.type" />
            <span class="title">{{ r.title || short(r.id) }}</span>
            @if (r.title && keyOf(r.id); as key) {
              <span class="key">{{ key }}</span>
            }
          </li>
        } @empty {
          <li class="none" role="option" aria-disabled="true" aria-selected="false">
            No documents match “{{ query() }}”.
          </li>
        }
      </ul>
    }
  `,
  styleUrl: './graph-search.scss',
})
export class GraphSearch {
  private readonly api = inject(ApiClient);
  readonly inputId = input('graph-search');
  readonly label = input('Find a document');
  readonly placeholder = input('Find a document (key, title…)');
  /** A document never offered (the one being compared). */
  readonly exclude = input<string | null>(null);
  /** The id of the document picked. */
  readonly picked = output<string>();
  /** The document picked, whole. */
  readonly chosen = output<GraphNode>();

  protected readonly query = signal('');
  private readonly found = signal<GraphNode[]>([]);
  protected readonly results = computed(() => this.found().filter((n) => n.id !== this.exclude()));
  protected readonly open = signal(false);
  protected readonly active = signal(0);
  private readonly queries = new Subject<string>();
  private readonly box = viewChild.required<ElementRef<HTMLInputElement>>('box');

  focus(): void {
    this.box().nativeElement.focus();
  }

  constructor() {
    this.queries
      .pipe(
        debounceTime(200),
        distinctUntilChanged(),
        switchMap((q) =>
          q.length < 2
            ? of(null)
            : this.api
                .call('searchGraph', { query: { q, limit: 12 } })
                .pipe(catchError(() => of(null))),
        ),
        takeUntilDestroyed(inject(DestroyRef)),
      )
      .subscribe((page) => {
        this.found.set(page?.nodes ?? []);
        this.active.set(0);
        this.open.set(page !== null);
      });
  }

  protected short(id: string): string {
    return shortLabel(id);
  }

  /** A short id worth showing after the title (PAY-7, PR #3, a file); none for a bare number ("page 2000004"). */
  protected keyOf(id: string): string {
    const key = shortLabel(id);
    return /\d{5,}/.test(key) ? '' : key;
  }

  protected onInput(value: string): void {
    this.query.set(value);
    this.queries.next(value.trim());
  }

  protected onKey(event: KeyboardEvent): void {
    const n = this.results().length;
    if (event.key === 'ArrowDown' && n) {
      event.preventDefault();
      this.open.set(true);
      this.active.update((i) => (i + 1) % n);
    } else if (event.key === 'ArrowUp' && n) {
      event.preventDefault();
      this.active.update((i) => (i - 1 + n) % n);
    } else if (event.key === 'Enter' && this.open() && n) {
      event.preventDefault();
      this.pick(this.results()[this.active()]);
    } else if (event.key === 'Escape') {
      this.open.set(false);
    }
  }

  protected pick(node: GraphNode): void {
    this.open.set(false);
    this.query.set('');
    this.found.set([]);
    this.picked.emit(node.id);
    this.chosen.emit(node);
  }

  protected close(): void {
    setTimeout(() => this.open.set(false), 100);
  }
}
