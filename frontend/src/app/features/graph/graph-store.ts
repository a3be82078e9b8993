import { Injectable, computed, inject, signal } from '@angular/core';
import { firstValueFrom } from 'rxjs';

import { ApiClient } from '../../core/api/api-client';
import { toApiError } from '../../core/api/api-error';
import { SOURCE_KINDS, type GraphNode, type SourceKind } from '../../core/api/models';
import { layoutGraph, type Point } from './graph-layout';
import { type Edge, mergeGraph } from './graph-model';

export const GRAPH_LIMITS = [50, 100, 300, 500, 1000] as const;

/**
 * The explorer's state: the loaded part of the graph, filters, layout, selection. Filters go to
 * the server (`types`, `kinds`) and are applied again locally, so expanded neighbourhoods obey them too.
 */
@Injectable({ providedIn: 'root' })
export class GraphStore {
  private readonly api = inject(ApiClient);

  readonly nodes = signal<GraphNode[]>([]);
  readonly edges = signal<Edge[]>([]);
  readonly loading = signal(false);
  readonly error = signal<string | null>(null);
  /** A document asked for (?focus=) that is not there for this reader: missing, or not theirs to read. */
  readonly missing = signal<string | null>(null);
  readonly limit = signal<number>(300);
  readonly types = signal<Record<SourceKind, boolean>>({
    jira: true,
    confluence: true,
    github: true,
    files: true,
    web: true,
    upload: true,
  });
  /** Edge kinds shown; empty means all. */
  readonly kinds = signal<ReadonlySet<string>>(new Set());
  readonly allKinds = signal<string[]>([]);
  readonly selectedId = signal<string | null>(null);
  readonly expanded = signal<ReadonlySet<string>>(new Set());
  /** Asks the view, once the nodes are rendered, to fit everything (id null) or centre one node. */
  readonly viewRequest = signal<{ id: string | null; seq: number } | null>(null);
  private seq = 0;
  private loadedOnce = false;

  private readonly typeParam = computed(() => {
    const on = SOURCE_KINDS.filter((k) => this.types()[k]);
    return on.length === SOURCE_KINDS.length ? undefined : on;
  });

  readonly visibleNodes = computed(() => {
    const on = this.types();
    return this.nodes().filter((n) => on[n.type.toLowerCase() as SourceKind] ?? true);
  });
  readonly visibleEdges = computed(() => {
    const ids = new Set(this.visibleNodes().map((n) => n.id));
    const kinds = this.kinds();
    return this.edges().filter(
      (e) => ids.has(e.source) && ids.has(e.target) && (kinds.size === 0 || kinds.has(e.kind)),
    );
  });
  /** Width : height of the canvas the graph is drawn on (the page sets it): the layout follows it. */
  readonly aspect = signal(2);
  readonly positions = computed<Map<string, Point>>(() =>
    layoutGraph(
      this.visibleNodes().map((n) => n.id),
      this.visibleEdges(),
      this.aspect(),
    ),
  );
  readonly selected = computed(() => this.nodes().find((n) => n.id === this.selectedId()) ?? null);

  /** First visit: the best-connected documents, or the neighbourhood of `focus`. */
  async init(focus: string | null): Promise<void> {
    if (!this.loadedOnce) {
      this.loadedOnce = true;
      void this.loadKinds();
      await this.reload(focus ? [focus] : undefined);
    }
    if (focus) await this.focus(focus);
  }

  async loadKinds(): Promise<void> {
    try {
      const stats = await firstValueFrom(this.api.call('getStats'));
      this.allKinds.set(Object.keys(stats.references_by_kind).sort());
    } catch {
      /* the filter then lists the kinds seen in the graph */
    }
  }

  /** Replaces the graph with a fresh page from the server. */
  async reload(around?: string[]): Promise<void> {
    this.loading.set(true);
    this.error.set(null);
    try {
      const page = await firstValueFrom(
        this.api.call('getGraph', {
          query: {
            limit: this.limit(),
            types: this.typeParam(),
            kinds: this.kinds().size ? [...this.kinds()] : undefined,
            around,
          },
        }),
      );
      const merged = mergeGraph([], [], page);
      this.nodes.set(merged.nodes);
      this.edges.set(merged.edges);
      this.expanded.set(new Set());
      if (this.selectedId() && !merged.nodes.some((n) => n.id === this.selectedId()))
        this.selectedId.set(null);
      this.requestView(null);
    } catch (e) {
      this.error.set(toApiError(e).message);
    } finally {
      this.loading.set(false);
    }
  }

  setLimit(limit: number): void {
    this.limit.set(limit);
    void this.reload();
  }

  toggleType(kind: SourceKind): void {
    this.types.update((t) => ({ ...t, [kind]: !t[kind] }));
    void this.reload();
  }

  setKinds(kinds: ReadonlySet<string>): void {
    this.kinds.set(kinds);
    void this.reload();
  }

  select(id: string | null): void {
    this.selectedId.set(id);
  }

  /** Adds a document's neighbours (both directions) without touching the rest of the graph. */
  async expand(id: string): Promise<number> {
    this.error.set(null);
    try {
      const kinds = this.kinds();
      const neighbours = await firstValueFrom(
        this.api.call('documentNeighbors', {
          path: { document_id: id },
          query: { kinds: kinds.size ? [...kinds] : undefined, limit: 200 },
        }),
      );
      const before = this.nodes().length;
      const merged = mergeGraph(this.nodes(), this.edges(), {
        nodes: neighbours.map((n) => ({ ...n.document })),
        edges: neighbours.map((n) => ({
          source: n.direction === 'out' ? id : n.document.id,
          target: n.direction === 'out' ? n.document.id : id,
          kind: n.kind,
          evidence: n.evidence,
        })),
      });
      this.nodes.set(merged.nodes);
      this.edges.set(merged.edges);
      this.expanded.update((s) => new Set([...s, id]));
      this.requestView(id);
      return merged.nodes.length - before;
    } catch (e) {
      this.error.set(toApiError(e).message);
      return 0;
    }
  }

  /** Selects a document and centres it, loading its neighbourhood first when it is not on the canvas. */
  async focus(id: string): Promise<void> {
    if (!this.nodes().some((n) => n.id === id)) {
      try {
        const page = await firstValueFrom(
          this.api.call('getGraph', { query: { around: [id], limit: 60 } }),
        );
        const merged = mergeGraph(this.nodes(), this.edges(), page);
        this.nodes.set(merged.nodes);
        this.edges.set(merged.edges);
      } catch (e) {
        this.error.set(toApiError(e).message);
        return;
      }
    }
    const node = this.nodes().find((n) => n.id === id);
    if (!node) {
      this.missing.set(id);
      return;
    }
    this.missing.set(null);
    if (!this.types()[node.type.toLowerCase() as SourceKind]) {
      this.types.update((t) => ({ ...t, [node.type.toLowerCase()]: true }));
    }
    this.selectedId.set(id);
    this.requestView(id);
  }

  private requestView(id: string | null): void {
    this.seq += 1;
    this.viewRequest.set({ id, seq: this.seq });
  }
}
