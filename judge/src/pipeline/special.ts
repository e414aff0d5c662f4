/**
 * Endings decided before judgeSubmission can run: test data that can never be unpacked.
 */
import type { SubmissionResult } from '@otog/schemas/common/judging';
import { SPECIAL_RESULTS, specialSubmissionResult } from '../scoring/special-results.ts';
import type { TestdataError } from '../testdata/unzip.ts';

/**
 * A zip that is not a zip, or one over the unpack limits, is a property of the problem: the submission
 * ends as `No Testcase` (judgeError) with the reason, at once (retrying cannot help). Transient failures
 * (download, hash mismatch) are not results: the worker gives the attempt back instead.
 */
export function unusableTestdataResult(error: TestdataError): SubmissionResult {
  return specialSubmissionResult(
    SPECIAL_RESULTS.noTestcase,
    `The test data of this problem cannot be used (${error.message}). Please tell an admin.`,
  );
}
