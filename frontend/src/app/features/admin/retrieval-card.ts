import { ChangeDetectionStrategy, Component, inject, signal } from '@angular/core';
import { firstValueFrom } from 'rxjs';

import { ApiClient } from '../../core/api/api-client';
import { toApiError } from '../../core/api/api-error';
import type { components } from '../../core/api/schema';
import { when } from './format';

type S = components['schemas'];
export type Adaptation = S['AdaptationOut'];
export type AdaptationFigures = S['AdaptationFiguresOut'];

export const MODE_LABELS: Record<AdaptationFigures['mode'], string> = {
  anchor: 'Related to an issue',
  text: 'A question alone',
};

/** nDCG@10 as people read it: three decimals. */
export function score(value: number): string {
  return value.toFixed(3);
}

/** "+0.012", "−0.004", "±0" — the adapted figure against the shipped defaults. */
export function change(f: AdaptationFigures): string {
  const d = Math.round((f.adapted_ndcg - f.defaults_ndcg) * 1000) / 1000;
  if (d === 0) return '±0';
  return d > 0 ? `+${d.toFixed(3)}` : `−${Math.abs(d).toFixed(3)}`;
}

export const METHOD_LABELS: Record<Adaptation['method_with_anchor'], string> = {
  defaults: 'shipped defaults',
  adapter: 'query adapter learnt here',
  ranker: 'ranking refitted here',
};

/** What the search uses in one mode, in words. */
export function inUse(a: Adaptation, anchored: boolean): string {
  return METHOD_LABELS[(anchored ? a.method_with_anchor : a.method_text_only) ?? 'defaults'];
}

/**
 * "Retrieval adapted to this graph" (`GET /admin/retrieval/adaptation`): what the search uses in
 * each mode, the last decision and the time-split figure — the shipped defaults beside the
 * adapted search on the pairs made after a date, which the adaptation never saw. "Evaluate and
 * adapt now" starts both in the background (`POST`); "Refresh" reads the progress.
 */
@Component({
  selector: 'app-retrieval-card',
  changeDetection: ChangeDetectionStrategy.OnPush,
  templateUrl: './retrieval-card.html',
  styleUrl: './retrieval-card.scss',
})
export class RetrievalCard {
  private readonly api = inject(ApiClient);
  protected readonly when = when;
  protected readonly score = score;
  protected readonly change = change;
  protected readonly inUse = inUse;
  protected readonly modeLabels = MODE_LABELS;

  protected readonly adaptation = signal<Adaptation | null>(null);
  protected readonly error = signal<string | null>(null);
  protected readonly starting = signal(false);

  constructor() {
    void this.load();
  }

  async load(): Promise<void> {
    try {
      this.adaptation.set(await firstValueFrom(this.api.call('retrievalAdaptation')));
      this.error.set(null);
    } catch (e) {
      this.error.set(toApiError(e).message);
    }
  }

  /** POST: the time-split evaluation and an adaptation, in the background. */
  protected async start(): Promise<void> {
    this.starting.set(true);
    try {
      this.adaptation.set(await firstValueFrom(this.api.call('adaptRetrieval')));
      this.error.set(null);
    } catch (e) {
      this.error.set(toApiError(e).message);
    } finally {
      this.starting.set(false);
    }
  }
}
