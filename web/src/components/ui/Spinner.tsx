export function Spinner({ label = 'กำลังโหลด...', size = 'md' }: { label?: string; size?: 'sm' | 'md' }) {
  return (
    <span className="spinner-wrap" role="status">
      <span className={`spinner spinner-${size}`} aria-hidden />
      <span className="sr-only">{label}</span>
    </span>
  );
}

/** A full-width placeholder while a page's data loads (keeps the layout from jumping). */
export function PageLoading() {
  return (
    <div className="page-loading">
      <Spinner />
    </div>
  );
}
