// PLACEHOLDER: replaced by the feature's real page.
export default function ProblemPage() {
  return <section className="page"><h1 className="page-title">ProblemPage</h1></section>;
}
