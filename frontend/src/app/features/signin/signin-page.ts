import {
  ChangeDetectionStrategy,
  Component,
  ElementRef,
  inject,
  input,
  signal,
  viewChild,
} from '@angular/core';
import { FormsModule } from '@angular/forms';

import { toApiError } from '../../core/api/api-error';
import { AuthStore, type DemoUser } from '../../core/auth/auth-store';

/**
 * `/signin`: e-mail and password (the API's message on failure), the single sign-on link when the
 * server has one, and on the demo server its people — each fills the form or signs in at once.
 * Afterwards back to the page in `?return=`.
 */
@Component({
  selector: 'app-signin-page',
  imports: [FormsModule],
  changeDetection: ChangeDetectionStrategy.OnPush,
  templateUrl: './signin-page.html',
  styleUrl: './signin-page.scss',
})
export class SignInPage {
  protected readonly auth = inject(AuthStore);
  /** `?return=`: the page to go back to (bound by the router). */
  readonly return = input<string | undefined>();

  protected readonly email = signal('');
  protected readonly password = signal('');
  protected readonly busy = signal(false);
  protected readonly error = signal<string | null>(null);
  private readonly passwordInput = viewChild<ElementRef<HTMLInputElement>>('passwordInput');
  private readonly submitButton = viewChild<ElementRef<HTMLButtonElement>>('submitButton');

  /** Puts a demo user's e-mail and password into the form. */
  protected fill(user: DemoUser): void {
    this.email.set(user.email);
    this.password.set(user.password);
    this.error.set(null);
    this.submitButton()?.nativeElement.focus();
  }

  protected async signInAs(user: DemoUser): Promise<void> {
    this.fill(user);
    await this.submit();
  }

  protected async submit(): Promise<void> {
    if (this.busy()) return;
    const email = this.email().trim();
    const password = this.password();
    if (!email || !password) {
      this.error.set(!email ? 'Enter your e-mail address.' : 'Enter your password.');
      return;
    }
    this.busy.set(true);
    this.error.set(null);
    try {
      await this.auth.signIn(email, password);
      await this.auth.continueTo(this.return());
    } catch (e) {
      this.error.set(toApiError(e).message);
      this.password.set('');
      this.passwordInput()?.nativeElement.focus();
    } finally {
      this.busy.set(false);
    }
  }
}
