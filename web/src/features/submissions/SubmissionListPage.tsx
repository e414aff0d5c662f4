// PLACEHOLDER: replaced by the feature's real page.
export default function SubmissionListPage() {
  return <section className="page"><h1 className="page-title">SubmissionListPage</h1></section>;
}
