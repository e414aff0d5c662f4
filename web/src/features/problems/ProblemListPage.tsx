// PLACEHOLDER: replaced by the feature's real page.
export default function ProblemListPage() {
  return <section className="page"><h1 className="page-title">ProblemListPage</h1></section>;
}
