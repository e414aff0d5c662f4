// The hook moved to components/problem (the contest pages share it); the problem table still imports it from here.
export { useSettlingSubmission } from '../../components/problem/useSettlingSubmission.ts';
