import { TestBed } from '@angular/core/testing';
import { provideRouter } from '@angular/router';

import { SourceCard } from '../features/chat/source-card';
import { openableUrl } from './doc-type';

describe('openableUrl', () => {
  it('keeps web addresses and this server’s paths, drops what a browser cannot open', () => {
    expect(openableUrl('https://jira.example.com/browse/PAY-7')).toBe(
      'https://jira.example.com/browse/PAY-7',
    );
    expect(openableUrl('/uploads/0123abcd')).toBe('/uploads/0123abcd');
    expect(openableUrl('file:///srv/docs/runbook.md')).toBeNull();
    expect(openableUrl('//evil.example/x')).toBeNull();
    expect(openableUrl('javascript:alert(1)')).toBeNull();
    expect(openableUrl('')).toBeNull();
    expect(openableUrl(null)).toBeNull();
  });

  it('a citation offers "Open in …" only where it leads somewhere', async () => {
    TestBed.configureTestingModule({ imports: [SourceCard], providers: [provideRouter([])] });
    const card = (url: string, type: string) => {
      const fixture = TestBed.createComponent(SourceCard);
      fixture.componentRef.setInput('index', 1);
      fixture.componentRef.setInput('source', {
        document_id: 'x',
        title: 'Runbook',
        url,
        type,
        score: 1,
        snippet: '',
      });
      fixture.detectChanges();
      const links = [...(fixture.nativeElement as HTMLElement).querySelectorAll('a')];
      return links.find((a) => a.textContent?.includes('Open in'))?.getAttribute('href') ?? null;
    };
    expect(card('/uploads/0123abcd', 'UPLOAD')).toBe('/uploads/0123abcd');
    expect(card('file:///srv/docs/runbook.md', 'FILES')).toBeNull();
  });
});
