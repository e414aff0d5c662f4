import type { ButtonHTMLAttributes, ReactNode } from 'react';
import { Link, type LinkProps } from 'react-router';

export type ButtonVariant = 'primary' | 'secondary' | 'ghost' | 'danger' | 'outline';
type Size = 'sm' | 'md' | 'lg';

const classes = (variant: ButtonVariant, size: Size, extra?: string) => ['btn', `btn-${variant}`, `btn-${size}`, extra].filter(Boolean).join(' ');

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: ButtonVariant;
  size?: Size;
  /** Shows a spinner and disables the button while a request runs. */
  loading?: boolean;
  icon?: ReactNode;
}

export function Button({ variant = 'secondary', size = 'md', loading = false, icon, className, children, disabled, type = 'button', ...rest }: ButtonProps) {
  return (
    <button type={type} className={classes(variant, size, className)} disabled={disabled || loading} aria-busy={loading || undefined} {...rest}>
      {loading ? <span className="spinner spinner-sm" aria-hidden /> : icon}
      {children}
    </button>
  );
}

/** An icon-only button: the label is for screen readers and the tooltip. */
export function IconButton({ label, variant = 'ghost', size = 'md', className, children, ...rest }: ButtonProps & { label: string }) {
  return (
    <Button variant={variant} size={size} className={['btn-icon', className].filter(Boolean).join(' ')} aria-label={label} title={label} {...rest}>
      {children}
    </Button>
  );
}

export function ButtonLink({ variant = 'secondary', size = 'md', className, ...rest }: LinkProps & { variant?: ButtonVariant; size?: Size }) {
  return <Link className={classes(variant, size, className)} {...rest} />;
}
