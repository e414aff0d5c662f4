// PLACEHOLDER: replaced by the feature's real page.
export default function AdminApp() {
  return <section className="page"><h1 className="page-title">AdminApp</h1></section>;
}
