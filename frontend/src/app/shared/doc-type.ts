import { ChangeDetectionStrategy, Component, computed, input } from '@angular/core';

export interface DocTypeStyle {
  label: string;
  short: string;
  color: string;
}

const STYLES: Record<string, DocTypeStyle> = {
  JIRA: { label: 'Jira', short: 'J', color: '#2563eb' },
  CONFLUENCE: { label: 'Confluence', short: 'C', color: '#0f766e' },
  GITHUB: { label: 'GitHub', short: 'GH', color: '#7c3aed' },
  FILES: { label: 'Files', short: 'F', color: '#b45309' },
  WEB: { label: 'Web', short: 'W', color: '#be185d' },
  UPLOAD: { label: 'Upload', short: 'U', color: '#0369a1' },
  UPLOADS: { label: 'Uploads', short: 'U', color: '#0369a1' },
  MEMORY: { label: 'Memory', short: 'M', color: '#4d7c0f' },
};

/** Label, letter and colour of a document type (JIRA, CONFLUENCE, GITHUB, FILES, WEB, UPLOAD, MEMORY), case-insensitive. */
export function docTypeStyle(type: string): DocTypeStyle {
  return STYLES[type.toUpperCase()] ?? { label: type || 'Document', short: '?', color: '#64748b' };
}

/**
 * The document's address when a browser can follow it from this app: a web address, or a path of
 * this server (an upload's `/uploads/…`). A `file:` address of a folder source without a
 * `browse_url` (browsers refuse to open it from a web page) or anything else gives null: no
 * "Open in …" link that leads nowhere.
 */
export function openableUrl(url: string | null | undefined): string | null {
  if (!url) return null;
  if (url.startsWith('/') && !url.startsWith('//')) return url;
  return /^https?:\/\//i.test(url) ? url : null;
}

/** A small coloured badge naming a document type; screen readers hear the full name. */
@Component({
  selector: 'app-doc-type',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `<span
      class="badge"
      [style.background]="style().color"
      [attr.title]="style().label"
      aria-hidden="true"
      >{{ style().short }}</span
    ><span class="visually-hidden">{{ style().label }}</span>`,
  styles: `
    :host {
      display: inline-flex;
    }
    .badge {
      display: inline-grid;
      place-items: center;
      min-width: 1.5rem;
      height: 1.5rem;
      padding: 0 0.25rem;
      border-radius: 0.375rem;
      color: #fff;
      font: 700 0.7rem/1 var(--font-sans);
      letter-spacing: 0.02em;
    }
  `,
})
export class DocTypeBadge {
  readonly type = input.required<string>();
  protected readonly style = computed(() => docTypeStyle(this.type()));
}
