import { provideHttpClient } from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';
import { provideRouter } from '@angular/router';

import { emptyTurn } from './chat-model';
import { ChatTurnView, memoryTextOf, verifiedLineOf } from './chat-turn';

const TURN = {
  ...emptyTurn('t1', 'When does the payments freeze start?'),
  answer: 'The payments freeze starts on **1 December** [1].',
  mode: 'extractive' as const,
  sources: [
    {
      document_id: 'confluence:PAY:7',
      title: 'Release calendar',
      url: '',
      type: 'CONFLUENCE',
      score: 1,
      snippet: '',
    },
    {
      document_id: 'memory:abc',
      title: 'payments freeze',
      url: '',
      type: 'MEMORY',
      score: 1,
      snippet: '',
    },
  ],
};

function setup(): { el: HTMLElement; http: HttpTestingController; stable: () => Promise<void> } {
  TestBed.configureTestingModule({
    imports: [ChatTurnView],
    providers: [provideHttpClient(), provideHttpClientTesting(), provideRouter([])],
  });
  const fixture = TestBed.createComponent(ChatTurnView);
  fixture.componentRef.setInput('turn', TURN);
  return {
    el: fixture.nativeElement,
    http: TestBed.inject(HttpTestingController),
    stable: () => fixture.whenStable(),
  };
}

function button(el: HTMLElement, text: string): HTMLButtonElement {
  return [...el.querySelectorAll('button')].find((b) => b.textContent?.trim() === text)!;
}

describe('ChatTurnView memory actions', () => {
  it('remembers the answer (edited, without citation marks) about the documents it cites', async () => {
    const { el, http, stable } = setup();
    await stable();
    // a memory citation carries its own type label
    expect(el.querySelector('app-source-card[data-type=MEMORY]')?.textContent).toContain('Memory');
    button(el, 'Remember').click();
    await stable();
    const box = el.querySelector<HTMLTextAreaElement>('.remember textarea')!;
    expect(box.value).toBe('The payments freeze starts on 1 December.');
    el.querySelector<HTMLFormElement>('form.remember')!.dispatchEvent(new Event('submit'));
    const post = http.expectOne('/memories');
    expect(post.request.method).toBe('POST');
    expect(post.request.body).toEqual({
      text: 'The payments freeze starts on 1 December.',
      scope: 'private',
      origin: 'conversation',
      about: ['confluence:PAY:7'],
    });
    post.flush({ id: 'memory:1', scope: 'private', status: 'active' });
    await vi.waitFor(async () => {
      await stable();
      expect(el.querySelector('[data-testid=memory-note]')?.textContent).toContain(
        'Remembered for you.',
      );
    });
    http.verify();
  });

  it('turns "the right answer is …" on a thumbs-down into a proposed team memory and the vote', async () => {
    const { el, http, stable } = setup();
    await stable();
    el.querySelector<HTMLButtonElement>('[aria-label="Unhelpful answer"]')!.click();
    await stable();
    const right = el.querySelector<HTMLTextAreaElement>('textarea[id="t1-right"]')!;
    right.value = 'The payments freeze starts on 15 December.';
    el.querySelector<HTMLFormElement>('form.reason')!.dispatchEvent(new Event('submit'));
    const post = http.expectOne('/memories');
    expect(post.request.body).toMatchObject({
      text: 'The payments freeze starts on 15 December.',
      scope: 'team',
    });
    post.flush({ id: 'memory:2', scope: 'team', status: 'proposed' });
    const vote = await vi.waitFor(() => http.expectOne('/feedback'));
    expect(vote.request.body).toMatchObject({ rating: 'down' });
    vote.flush({ stored: true, at: '2026-12-07T06:00:00+00:00' });
    await vi.waitFor(async () => {
      await stable();
      expect(el.querySelector('[data-testid=memory-note]')?.textContent).toContain(
        'proposed to the team',
      );
    });
    http.verify();
  });

  it('lets an admin verify the answer to its question with an expiry', async () => {
    const { el, http, stable } = setup(); // no accounts on this server: the operator reviews
    await stable();
    button(el, 'Verify').click();
    await stable();
    const days = el.querySelector<HTMLInputElement>('input[type=number]')!;
    days.value = '30';
    days.dispatchEvent(new Event('input'));
    el.querySelector<HTMLFormElement>('form.verify')!.dispatchEvent(new Event('submit'));
    const post = http.expectOne('/memories/answers');
    expect(post.request.body).toEqual({
      question: 'When does the payments freeze start?',
      answer: 'The payments freeze starts on 1 December.',
      citations: ['confluence:PAY:7'],
      expires_in_days: 30,
    });
    post.flush({ expires_at: '2027-01-06T06:00:00+00:00' });
    await vi.waitFor(async () => {
      await stable();
      expect(el.querySelector('[data-testid=memory-note]')?.textContent).toContain(
        'Verified until 2027-01-06',
      );
    });
    http.verify();
  });

  it('marks a verified answer with its reviewer and date', async () => {
    TestBed.configureTestingModule({
      imports: [ChatTurnView],
      providers: [provideHttpClient(), provideHttpClientTesting(), provideRouter([])],
    });
    const fixture = TestBed.createComponent(ChatTurnView);
    fixture.componentRef.setInput('turn', {
      ...TURN,
      mode: 'verified',
      answer:
        'The freeze starts on 15 December.\n\nVerified by alice on 2026-12-07 (until 2027-03-07).',
    });
    await fixture.whenStable();
    const el: HTMLElement = fixture.nativeElement;
    expect(el.querySelector('[data-testid=verified-badge]')?.textContent).toContain(
      'Verified by alice on 2026-12-07 (until 2027-03-07)',
    );
    expect(el.querySelector('[data-testid=mode]')).toBeNull(); // not called extractive
    expect(verifiedLineOf('no line')).toBe('');
  });

  it('drops citation marks and emphasis from an answer to remember', () => {
    expect(memoryTextOf('A **b** [1] c [2][3].')).toBe('A b c.');
  });
});
