import {
  ChangeDetectionStrategy,
  Component,
  Injector,
  afterNextRender,
  computed,
  inject,
  input,
  output,
  resource,
  signal,
  viewChild,
} from '@angular/core';
import { DomSanitizer, type SafeHtml } from '@angular/platform-browser';
import { firstValueFrom } from 'rxjs';

import { ApiClient } from '../../core/api/api-client';
import { toApiError } from '../../core/api/api-error';
import type { GraphNode, Neighbor, Version } from '../../core/api/models';
import { edgeLabel } from '../../shared/edge-kinds';
import { DocTypeBadge, docTypeStyle, openableUrl } from '../../shared/doc-type';
import { Icon } from '../../shared/icon';
import { renderMarkdown } from '../chat/markdown';
import { shortLabel } from './graph-model';
import { GraphSearch } from './graph-search';

/** Flattens metadata into label/value rows worth showing (no nested objects, no empty values). */
export function metadataRows(metadata: Record<string, unknown>): { key: string; value: string }[] {
  const rows: { key: string; value: string }[] = [];
  for (const [key, value] of Object.entries(metadata)) {
    if (value === null || value === undefined || value === '') continue;
    let text: string;
    if (Array.isArray(value)) {
      if (!value.length || value.some((v) => typeof v === 'object' && v !== null)) continue;
      text = value.join(', ');
    } else if (typeof value === 'object') {
      continue;
    } else if (
      typeof value === 'string' &&
      /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(value) &&
      !Number.isNaN(Date.parse(value))
    ) {
      text = new Date(value).toLocaleString();
    } else {
      text = String(value);
    }
    rows.push({
      key: key.replace(/_/g, ' '),
      value: text.length > 200 ? `${text.slice(0, 200)}…` : text,
    });
  }
  return rows.slice(0, 16);
}

/** One line of a document's history: what changed, when, by whom. */
export function versionLine(v: Version): string {
  const day = v.valid_from.slice(0, 10);
  const by = v.author ? ` · ${v.author}` : '';
  if (v.kind === 'transition') {
    return `${day} ${v.field}: ${v.from_value || 'none'} → ${v.to_value || 'none'}${by}`;
  }
  if (v.kind === 'diff') return `${day} ${v.to_value} ${v.field}${by}`;
  return `${day} version ${v.seq}${by}${v.message ? ` — ${v.message}` : ''}`;
}

/** The side panel of the selected document: metadata, neighbours, history, chunks and actions. */
@Component({
  selector: 'app-document-panel',
  imports: [DocTypeBadge, GraphSearch, Icon],
  changeDetection: ChangeDetectionStrategy.OnPush,
  templateUrl: './document-panel.html',
  styleUrl: './document-panel.scss',
})
export class DocumentPanel {
  protected readonly edgeLabel = edgeLabel;
  private readonly api = inject(ApiClient);

  readonly node = input.required<GraphNode>();
  readonly expanded = input(false);
  readonly closed = output<void>();
  readonly expand = output<void>();
  readonly focusDoc = output<string>();
  readonly ask = output<void>();
  /** "Compare with…": the second document picked (the chat compares it with this one). */
  readonly compare = output<GraphNode>();

  private readonly injector = inject(Injector);
  /** Whether the "Compare with…" picker is open. */
  protected readonly comparing = signal(false);
  private readonly picker = viewChild<GraphSearch>('picker');

  protected toggleCompare(): void {
    const open = !this.comparing();
    this.comparing.set(open);
    // the picker's field takes the focus as it opens (a keyboard goes on typing)
    if (open) afterNextRender(() => this.picker()?.focus(), { injector: this.injector });
  }

  protected readonly detail = resource({
    params: () => this.node().id,
    loader: ({ params }) =>
      firstValueFrom(this.api.call('getDocument', { path: { document_id: params } })),
  });
  protected readonly neighbours = resource({
    params: () => this.node().id,
    loader: ({ params }) =>
      firstValueFrom(
        this.api.call('documentNeighbors', {
          path: { document_id: params },
          query: { limit: 200 },
        }),
      ),
  });

  protected readonly history = resource({
    params: () => this.node().id,
    loader: ({ params }) =>
      firstValueFrom(this.api.call('documentHistory', { path: { document_id: params } })),
  });
  /** Newest first, as a timeline reads. */
  protected readonly versions = computed(() =>
    [...(this.history.value()?.versions ?? [])].reverse(),
  );
  /** The page version opened, compared with the current one. */
  protected readonly opened = signal<{ seq: number; doc: string } | null>(null);
  protected readonly openedVersion = resource({
    params: () => this.opened() ?? undefined,
    loader: ({ params }) =>
      firstValueFrom(
        this.api.call('documentVersion', {
          path: { document_id: params.doc, seq: params.seq },
          query: { kind: 'page' },
        }),
      ),
  });
  protected readonly versionLine = versionLine;

  protected open(v: Version): void {
    const same = this.opened();
    this.opened.set(
      same && same.seq === v.seq && same.doc === v.document_id
        ? null
        : { seq: v.seq, doc: v.document_id },
    );
  }

  protected readonly typeLabel = computed(() => docTypeStyle(this.node().type).label);
  protected readonly openUrl = computed(() => openableUrl(this.node().url));
  protected readonly meta = computed(() =>
    metadataRows(this.detail.value()?.document.metadata ?? this.node().metadata),
  );
  protected readonly updated = computed(() => {
    const raw = this.detail.value()?.document.updated_at;
    const d = raw ? new Date(raw) : null;
    return d && !Number.isNaN(d.getTime()) ? d.toLocaleString() : null;
  });
  protected readonly groups = computed(() => {
    const by = new Map<string, Neighbor[]>();
    for (const n of this.neighbours.value() ?? []) {
      const list = by.get(n.kind) ?? [];
      list.push(n);
      by.set(n.kind, list);
    }
    return [...by.entries()].sort((a, b) => a[0].localeCompare(b[0]));
  });

  private readonly sanitizer = inject(DomSanitizer);
  /** A chunk's Markdown as text (rendered by marked, sanitised by DOMPurify), never as source. */
  protected markdown(text: string): SafeHtml {
    return this.sanitizer.bypassSecurityTrustHtml(renderMarkdown(text));
  }

  protected short(id: string): string {
    return shortLabel(id);
  }

  protected errorOf(e: unknown): string {
    return toApiError(e).message;
  }
}
