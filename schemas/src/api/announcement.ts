/** The announcement routes of spec section 7 (TODO issue 4: filled by the announcement module). */
export const announcementContract = {} as const;
