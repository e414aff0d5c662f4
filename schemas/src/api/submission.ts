/** The submission routes of spec section 7 (TODO issue 4: filled by the submission module). */
export const submissionContract = {} as const;
