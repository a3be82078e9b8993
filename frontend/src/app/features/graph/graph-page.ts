import {
  ChangeDetectionStrategy,
  Component,
  DestroyRef,
  afterRenderEffect,
  computed,
  inject,
  signal,
  viewChild,
} from '@angular/core';
import { takeUntilDestroyed } from '@angular/core/rxjs-interop';
import { ActivatedRoute, Router } from '@angular/router';
import { FCanvasComponent, FFlowComponent, FFlowModule, FZoomDirective } from '@foblex/flow';
import { map } from 'rxjs';

import { type GraphNode, SOURCE_KINDS, type SourceKind } from '../../core/api/models';
import { edgeLabel } from '../../shared/edge-kinds';
import { DocTypeBadge, docTypeStyle } from '../../shared/doc-type';
import { ChatStore } from '../chat/chat-store';
import { addToCompare, compareQuestion } from './compare';
import { CompareTray } from './compare-tray';
import { DocumentPanel } from './document-panel';
import { Icon } from '../../shared/icon';
import { NODE_HEIGHT, NODE_WIDTH, neighbourhoodView } from './graph-layout';
import {
  borderToBorder,
  kindFamily,
  nodeName,
  placeEdgeLabels,
  placeLabels,
  shortLabel,
} from './graph-model';
import { GraphSearch } from './graph-search';
import { GRAPH_LIMITS, GraphStore } from './graph-store';

const IN = '>in';
const OUT = '>out';
const AUTO_LABEL_MAX = 60; // edge labels by themselves only on small graphs (else they collide)
const MAX_LABELS = 30; // named at the zoom that fits the whole graph, most connected first
const LABEL_CHARS = 34;
const START_HERE = 5;
const AUTO_LABEL_SCALE = 0.7;
const FAR_SCALE = 0.45;
const READABLE_SCALE = 0.6;
const FIT_PADDING = { x: 40, y: 56 }; // screen pixels per side

let measure: CanvasRenderingContext2D | null | undefined;
/** The width in screen pixels of a node label (13 px semibold, a dot, padding and border). */
function labelWidth(text: string): number {
  if (measure === undefined) {
    measure =
      typeof document === 'undefined' ? null : document.createElement('canvas').getContext('2d');
    if (measure)
      measure.font = `600 13px ${getComputedStyle(document.body).fontFamily || 'sans-serif'}`;
  }
  const textWidth = measure ? measure.measureText(text).width : 8 * text.length;
  return textWidth + 0.55 * 16 + 0.35 * 16 + 0.8 * 16 + 2;
}

function narrowScreen(): boolean {
  return typeof matchMedia === 'function' && matchMedia('(max-width: 640px)').matches;
}

/** The graph explorer: documents as nodes, references as labelled edges, laid out by dagre. */
@Component({
  selector: 'app-graph-page',
  imports: [FFlowModule, CompareTray, DocTypeBadge, DocumentPanel, GraphSearch, Icon],
  changeDetection: ChangeDetectionStrategy.OnPush,
  templateUrl: './graph-page.html',
  styleUrl: './graph-page.scss',
})
export class GraphPage {
  protected readonly edgeLabel = edgeLabel;
  protected readonly store = inject(GraphStore);
  private readonly chat = inject(ChatStore);
  private readonly router = inject(Router);
  private readonly route = inject(ActivatedRoute);

  protected readonly kinds = SOURCE_KINDS;
  protected readonly limits = GRAPH_LIMITS;
  protected readonly IN = IN;
  protected readonly OUT = OUT;
  protected readonly labelMode = signal<'auto' | 'all' | 'none'>('auto');
  /** "Compare" in the toolbar: the search's picks go to the tray (two, then "Compare these two"). */
  protected readonly compareMode = signal(false);
  protected readonly comparePicks = signal<GraphNode[]>([]);

  private readonly flow = viewChild(FFlowComponent);
  private readonly canvas = viewChild(FCanvasComponent);
  private readonly zoom = viewChild(FZoomDirective);
  private rendered = false;
  private handledView = 0;

  /** Documents one hop from the selection (they stay bright; the rest dims). */
  protected readonly near = computed(() => {
    const id = this.store.selectedId();
    if (!id) return null;
    const out = new Set([id]);
    for (const e of this.store.visibleEdges()) {
      if (e.source === id) out.add(e.target);
      if (e.target === id) out.add(e.source);
    }
    return out;
  });
  protected readonly kindOptions = computed(() => {
    const seen = new Set(this.store.allKinds());
    for (const e of this.store.edges()) seen.add(e.kind);
    return [...seen].sort();
  });
  protected readonly kindSummary = computed(() => {
    const n = this.store.kinds().size;
    return n === 0 ? 'All edge kinds' : `${n} edge ${n === 1 ? 'kind' : 'kinds'}`;
  });
  /**
   * The zoom band, not the scale itself, so zooming re-renders the template only when the band
   * changes: "near" shows auto edge labels; "far" draws nodes as plain coloured blocks (their text
   * is unreadable there anyway, and skipping it keeps zooming smooth with hundreds of nodes).
   */
  protected readonly zoomBand = signal<'far' | 'mid' | 'near'>('near');
  protected readonly hubScale = signal('1');
  private readonly labelsAll = computed(
    () =>
      this.labelMode() === 'all' ||
      (this.labelMode() === 'auto' &&
        this.zoomBand() === 'near' &&
        this.store.visibleEdges().length <= AUTO_LABEL_MAX),
  );

  /** Everything the template needs per node and edge, computed once per change (not per check). */
  protected readonly nodeViews = computed(() => {
    const positions = this.store.positions();
    const selected = this.store.selectedId();
    const near = this.near();
    const expanded = this.store.expanded();
    // The best-connected documents keep a readable label even at the zoom that fits the whole graph.
    const degree = new Map<string, number>();
    for (const e of this.store.visibleEdges()) {
      degree.set(e.source, (degree.get(e.source) ?? 0) + 1);
      degree.set(e.target, (degree.get(e.target) ?? 0) + 1);
    }
    // Labels at the zoom that fits the whole graph: by priority (the selection, then the most
    // connected), each placed only where it overlaps no label already placed. Their size on
    // screen is fixed, so in canvas units it grows as the view zooms out.
    const grow = Math.round(Number(this.hubScale()) * 10) / 10;
    const order = [...this.store.visibleNodes()].sort(
      (a, b) =>
        Number(b.id === selected) - Number(a.id === selected) ||
        (degree.get(b.id) ?? 0) - (degree.get(a.id) ?? 0) ||
        a.id.localeCompare(b.id),
    );
    // A label starts at its node's left edge: one that would run past the graph's right edge (and
    // so off the screen at the zoom that fits the graph, a phone's above all) is not drawn.
    let right = -Infinity;
    for (const p of positions.values()) right = Math.max(right, p.x + NODE_WIDTH);
    const labelled = placeLabels(
      order.flatMap((n) => {
        const p = positions.get(n.id) ?? { x: 0, y: 0 };
        const width = (labelWidth(nodeName(n, LABEL_CHARS)) + 8) * grow;
        const height = 28 * grow;
        const node = { ...p, width: NODE_WIDTH, height: NODE_HEIGHT };
        if (n.id !== selected && p.x + width > right) return [];
        return [{ id: n.id, x: p.x, y: p.y - height, width, height, node }];
      }),
      MAX_LABELS,
    );
    return this.store.visibleNodes().map((n) => ({
      hub: labelled.has(n.id),
      node: n,
      pos: positions.get(n.id) ?? { x: 0, y: 0 },
      key: shortLabel(n.id),
      name: nodeName(n, 60),
      label: nodeName(n, LABEL_CHARS),
      typeText: docTypeStyle(n.type).label,
      selected: n.id === selected,
      dim: near !== null && !near.has(n.id),
      expanded: expanded.has(n.id),
    }));
  });
  /** Where to start: the most connected documents, with how many links each has. */
  protected readonly startHere = computed(() => {
    const degree = new Map<string, number>();
    for (const e of this.store.visibleEdges()) {
      degree.set(e.source, (degree.get(e.source) ?? 0) + 1);
      degree.set(e.target, (degree.get(e.target) ?? 0) + 1);
    }
    return [...this.store.visibleNodes()]
      .filter((n) => (degree.get(n.id) ?? 0) > 1)
      .sort((a, b) => (degree.get(b.id) ?? 0) - (degree.get(a.id) ?? 0) || a.id.localeCompare(b.id))
      .slice(0, START_HERE)
      .map((n) => ({
        id: n.id,
        type: n.type,
        name: nodeName(n, 44),
        links: degree.get(n.id) ?? 0,
      }));
  });
  protected readonly startOpen = signal(!narrowScreen());
  /** The legend is open on a desktop, folded on a phone (where the canvas needs the room). */
  protected readonly legendOpen = !narrowScreen();
  protected readonly edgeViews = computed(() => {
    const selected = this.store.selectedId();
    const labels = this.labelMode() !== 'none';
    const all = this.labelsAll();
    const positions = this.store.positions();
    const box = (id: string) => ({
      ...(positions.get(id) ?? { x: 0, y: 0 }),
      width: NODE_WIDTH,
      height: NODE_HEIGHT,
    });
    const touching = (e: { source: string; target: string }) =>
      selected !== null && (e.source === selected || e.target === selected);
    // With a selection, only its own edges keep their labels (the rest are dimmed); those first.
    const wanted = this.store
      .visibleEdges()
      .filter(
        (e) => labels && (touching(e) || (all && selected === null) || this.labelMode() === 'all'),
      )
      .sort((a, b) => Number(touching(b)) - Number(touching(a)));
    const placed = placeEdgeLabels(
      wanted.map((e) => ({
        id: e.id,
        from: e.source,
        to: e.target,
        text: edgeLabel(e.kind),
        ...borderToBorder(box(e.source), box(e.target)),
      })),
      [...positions.values()].map((p) => ({ ...p, width: NODE_WIDTH, height: NODE_HEIGHT })),
    );
    return this.store.visibleEdges().map((e) => {
      const touches = touching(e);
      return {
        edge: e,
        cls: `edge fam-${kindFamily(e.kind)}${touches ? ' hl' : ''}${selected !== null && !touches ? ' dim' : ''}`,
        label: placed.get(e.id) ?? null,
      };
    });
  });

  protected onCanvasChange(scale: number): void {
    this.zoomBand.set(scale >= AUTO_LABEL_SCALE ? 'near' : scale >= FAR_SCALE ? 'mid' : 'far');
    // hub labels are drawn at the inverse of the zoom, so they read at the normal text size
    this.hubScale.set(Math.min(Math.max(1 / Math.max(scale, 0.01), 1), 30).toFixed(2));
  }

  /** Double-click zooms on the empty canvas only: on a node it expands the neighbours. */
  protected readonly dblClickZoom = (event: MouseEvent | TouchEvent | WheelEvent): boolean =>
    !(event.target as Element | null)?.closest?.('.gnode');

  constructor() {
    // the layout keeps the canvas's proportions (the toolbar and top bar take about 160 px)
    if (typeof innerWidth === 'number' && innerWidth > 0) {
      const ratio = innerWidth / Math.max(300, innerHeight - 160);
      this.store.aspect.set(Math.round(Math.min(3, Math.max(0.4, ratio)) * 4) / 4);
    }
    // ?focus=<document id> (from a citation's "Show in graph"): load around it, select and centre it.
    this.route.queryParamMap
      .pipe(
        map((p) => p.get('focus')),
        takeUntilDestroyed(inject(DestroyRef)),
      )
      .subscribe((focus) => void this.store.init(focus));

    afterRenderEffect(() => {
      const request = this.store.viewRequest();
      this.nodeViews();
      if (!request || request.seq === this.handledView || !this.rendered) return;
      this.handledView = request.seq;
      this.whenSettled(() => this.applyView(request.id));
    });
  }

  protected onRendered(): void {
    if (this.rendered) return;
    this.rendered = true;
    const request = this.store.viewRequest();
    if (request) {
      this.handledView = request.seq;
      this.whenSettled(() => this.applyView(request.id));
    }
  }

  /**
   * Runs `then` once Foblex has placed and measured the nodes (it does so over a few frames):
   * when their bounding box stops changing, or after about a second.
   */
  private whenSettled(then: () => void): void {
    let last = '';
    let stable = 0;
    let frames = 0;
    const tick = () => {
      const box = this.flow()?.getNodesBoundingBox();
      const key = box ? `${box.x},${box.y},${box.width},${box.height}` : '';
      stable = key && key === last ? stable + 1 : 0;
      last = key;
      frames += 1;
      if (stable >= 2 || frames > 60) then();
      else requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  }

  /**
   * Fits the whole graph (never zooming in past 1); with an id, keeps that fit when the graph is
   * small and the fit readable, else fits the document and its neighbours at a readable zoom
   * (`neighbourhoodView`), keeping the document in view.
   */
  private applyView(id: string | null): void {
    const canvas = this.canvas();
    const flow = this.flow();
    const box = flow?.getNodesBoundingBox();
    if (!canvas || !flow || !box) return;
    const host = (flow.hostElement as HTMLElement).getBoundingClientRect();
    const current = canvas.getScale();
    const [w, h] = [box.width / current, box.height / current]; // canvas units
    const fit = Math.min(
      (host.width - 2 * FIT_PADDING.x) / w,
      (host.height - 2 * FIT_PADDING.y) / h,
    );
    let scale: number;
    if (id === null || (this.store.visibleNodes().length <= 40 && fit >= READABLE_SCALE)) {
      if (fit >= 1) canvas.resetScaleAndCenter(false);
      // Foblex adds its padding once, in canvas units: convert screen pixels per side.
      else
        canvas.fitToScreen({ x: (2 * FIT_PADDING.x) / fit, y: (2 * FIT_PADDING.y) / fit }, false);
      scale = Math.min(fit, 1);
    } else {
      // the document and its neighbours in the part of the canvas the details panel leaves
      // (the panel is beside the canvas, so the host's box is what can be seen)
      const view = neighbourhoodView(
        id,
        this.store.positions(),
        this.store.visibleEdges(),
        host.width,
        host.height,
        FIT_PADDING,
        READABLE_SCALE,
      );
      if (view) {
        const t = canvas.transform;
        t.scaledPosition = { x: 0, y: 0 };
        t.scale = view.scale;
        t.position = {
          x: host.width / 2 - view.centre.x * view.scale,
          y: host.height / 2 - view.centre.y * view.scale,
        };
        canvas.redraw();
        canvas.emitCanvasChangeEvent();
        scale = view.scale;
      } else {
        canvas.resetScaleAndCenterGroupOrNode(id, false);
        scale = 1;
      }
    }
    this.onCanvasChange(scale);
  }

  protected typeLabel(kind: string): string {
    return docTypeStyle(kind).label;
  }

  protected family(kind: string): string {
    return kindFamily(kind);
  }

  protected select(id: string): void {
    this.store.select(this.store.selectedId() === id ? null : id);
  }

  protected expand(id: string, event?: Event): void {
    event?.preventDefault();
    this.store.select(id);
    void this.store.expand(id);
  }

  protected onNodeKey(event: KeyboardEvent, id: string): void {
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      if (event.shiftKey) this.expand(id);
      else this.store.select(id);
    } else if (event.key === 'Escape') {
      this.store.select(null);
    }
  }

  protected toggleKind(kind: string, on: boolean): void {
    const next = new Set(this.store.kinds());
    if (on) next.add(kind);
    else next.delete(kind);
    this.store.setKinds(next);
  }

  protected clearKinds(): void {
    this.store.setKinds(new Set());
  }

  protected zoomIn(): void {
    this.zoom()?.zoomIn();
  }

  protected zoomOut(): void {
    this.zoom()?.zoomOut();
  }

  protected fit(): void {
    this.applyView(null);
  }

  protected onLimit(value: string): void {
    this.store.setLimit(Number(value));
  }

  protected onLabelMode(value: string): void {
    this.labelMode.set(value as 'auto' | 'all' | 'none');
  }

  /** From "not one you can open": back where the person came from (a chat answer, usually). */
  protected goBack(): void {
    this.store.missing.set(null);
    if (history.length > 1) history.back();
    else void this.router.navigate(['/']);
  }

  protected showWholeGraph(): void {
    this.store.missing.set(null);
    void this.router.navigate([], { queryParams: {}, replaceUrl: true });
    void this.store.reload(); // it was loaded around the missing document: nothing, for its reader
  }

  protected focusDoc(id: string): void {
    void this.router.navigate([], { queryParams: { focus: id }, replaceUrl: false });
  }

  protected onFound(node: GraphNode): void {
    if (this.compareMode()) this.comparePicks.update((picks) => addToCompare(picks, node));
    else this.focusDoc(node.id);
  }

  protected toggleCompareMode(): void {
    this.compareMode.update((on) => !on);
    this.comparePicks.set([]);
  }

  protected unpick(id: string): void {
    this.comparePicks.update((picks) => picks.filter((p) => p.id !== id));
  }

  protected compareTwo(): void {
    const [a, b] = this.comparePicks();
    if (!a || !b) return;
    this.compareMode.set(false);
    this.comparePicks.set([]);
    this.compare(a, b);
  }

  /** Opens the chat with the comparison asked (the backend's comparison kind answers it). */
  protected compare(a: GraphNode, b: GraphNode): void {
    const question = compareQuestion(a, b);
    // the chat answers one question at a time: while one streams, this one waits in the composer
    if (this.chat.busy()) this.chat.draft.set(question);
    else void this.chat.ask(question);
    void this.router.navigate(['/']);
  }

  protected ask(node: { id: string; title: string }): void {
    this.chat.draft.set(`What is “${node.title}” (${node.id}) about, and what is it connected to?`);
    void this.router.navigate(['/']);
  }

  protected isOn(kind: SourceKind): boolean {
    return this.store.types()[kind];
  }
}
