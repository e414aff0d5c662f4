// PLACEHOLDER: replaced by the feature's real page.
export default function SubmissionPage() {
  return <section className="page"><h1 className="page-title">SubmissionPage</h1></section>;
}
