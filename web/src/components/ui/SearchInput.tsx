/** A search box with its icon and a label for screen readers; the caller sizes it with `className`. */
import { useId } from 'react';
import { SearchIcon } from './icons.tsx';

export function SearchInput({
  label,
  value,
  onChange,
  placeholder = 'ค้นหา...',
  maxLength = 200,
  className,
}: {
  label: string;
  value: string;
  onChange(value: string): void;
  placeholder?: string;
  maxLength?: number;
  className?: string;
}) {
  const id = useId();
  return (
    <div className={['search-input', className].filter(Boolean).join(' ')}>
      <label htmlFor={id} className="sr-only">
        {label}
      </label>
      <SearchIcon className="search-input-icon" />
      <input id={id} type="search" className="input" placeholder={placeholder} autoComplete="off" value={value} maxLength={maxLength} onChange={(event) => onChange(event.target.value)} />
    </div>
  );
}
