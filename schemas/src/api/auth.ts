/** The auth routes of spec section 7 (TODO issue 4: filled by the auth module). */
export const authContract = {} as const;
