import type { FormEvent, ReactNode } from 'react';
import { Button } from '../../components/ui/Button.tsx';
import './auth.css';

/** The sign-in and registration card: logo, title, the form's fields and its button, then a footer line. */
export function AuthCard({
  title,
  pending,
  onSubmit,
  children,
  footer,
}: {
  title: string;
  pending: boolean;
  onSubmit(event: FormEvent<HTMLFormElement>): Promise<void>;
  children: ReactNode;
  footer?: ReactNode;
}) {
  return (
    <section className="page page-narrow">
      <div className="card auth-card">
        <img src="/logo.svg" alt="" width={56} height={56} className="auth-logo" />
        <h1 className="page-title center-text">{title}</h1>
        <form className="form" noValidate onSubmit={(event) => void onSubmit(event)}>
          {children}
          <Button type="submit" variant="primary" size="lg" loading={pending}>
            {title}
          </Button>
        </form>
        {footer ? <p className="center-text muted">{footer}</p> : null}
      </div>
    </section>
  );
}
