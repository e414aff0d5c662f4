/** The problem routes of spec section 7 (TODO issue 4: filled by the problem module). */
export const problemContract = {} as const;
