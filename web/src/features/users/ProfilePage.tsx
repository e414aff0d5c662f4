// PLACEHOLDER: replaced by the feature's real page.
export default function ProfilePage() {
  return <section className="page"><h1 className="page-title">ProfilePage</h1></section>;
}
