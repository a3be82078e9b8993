import { provideHttpClient } from '@angular/common/http';
import { provideHttpClientTesting } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';
import { provideRouter } from '@angular/router';

import { ChatHistory } from './chat-history';
import { ChatPage } from './chat-page';
import { emptyTurn } from './chat-model';
import { ChatStore } from './chat-store';

describe('ChatPage', () => {
  beforeEach(() => {
    TestBed.configureTestingModule({
      imports: [ChatPage],
      providers: [
        provideRouter([]),
        provideHttpClient(),
        provideHttpClientTesting(),
        { provide: ChatHistory, useValue: { load: async () => [], clear: async () => undefined } },
      ],
    });
  });

  it('shows the welcome, the source toggles and a disabled Ask button', async () => {
    const fixture = TestBed.createComponent(ChatPage);
    await fixture.whenStable();
    const el: HTMLElement = fixture.nativeElement;
    expect(el.querySelector('h1')?.textContent).toContain('Ask your team');
    const chips = [...el.querySelectorAll<HTMLButtonElement>('button.chip')];
    expect(chips.map((c) => c.textContent?.trim())).toEqual([
      'Jira',
      'Confluence',
      'GitHub',
      'Files',
      'Web',
      'Upload',
    ]);
    expect(chips.every((c) => c.getAttribute('aria-pressed') === 'true')).toBe(true);
    expect(el.querySelector<HTMLButtonElement>('button[type=submit]')?.disabled).toBe(true);
  });

  it('toggles a source filter and says what will be searched', async () => {
    const fixture = TestBed.createComponent(ChatPage);
    await fixture.whenStable();
    const el: HTMLElement = fixture.nativeElement;
    el.querySelector<HTMLButtonElement>('button.chip[data-kind="jira"]')!.click();
    await fixture.whenStable();
    expect(el.querySelector('button.chip[data-kind="jira"]')?.getAttribute('aria-pressed')).toBe(
      'false',
    );
    expect(el.querySelector('#composer-hint')?.textContent).toContain(
      'Searching only Confluence and GitHub',
    );
  });

  it('renders a turn with linked citations, source cards and the extractive note', async () => {
    const store = TestBed.inject(ChatStore);
    store.turns.set([
      {
        ...emptyTurn('t1', 'How do we retry?'),
        answer: 'With **backoff** [1].',
        mode: 'extractive',
        sources: [
          {
            document_id: 'jira:PAY-7',
            title: 'PAY-7: Retry',
            url: 'https://jira/PAY-7',
            type: 'JIRA',
            score: 1,
            snippet: 'During…',
          },
        ],
      },
    ]);
    const fixture = TestBed.createComponent(ChatPage);
    await fixture.whenStable();
    const el: HTMLElement = fixture.nativeElement;
    const cite = el.querySelector<HTMLAnchorElement>('a.cite')!;
    expect(cite.textContent).toBe('[1]');
    const card = el.querySelector<HTMLElement>(cite.getAttribute('href')!)!;
    expect(card.tagName.toLowerCase()).toBe('app-source-card');
    expect(card.textContent).toContain('PAY-7: Retry');
    expect(card.querySelector('a[href="https://jira/PAY-7"]')?.textContent).toContain(
      'Open in Jira',
    );
    expect(el.querySelector('[data-testid=mode]')?.textContent).toContain('Extractive answer');
  });
});
