/** The user routes of spec section 7 (TODO issue 4: filled by the user module). */
export const userContract = {} as const;
