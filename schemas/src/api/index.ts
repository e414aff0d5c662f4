import { adminContract } from './admin.ts';
import { announcementContract } from './announcement.ts';
import { appContract } from './app.ts';
import { authContract } from './auth.ts';
import { chatContract } from './chat.ts';
import { contestContract } from './contest.ts';
import type { RouteContract } from './contract.ts';
import { problemContract } from './problem.ts';
import { submissionContract } from './submission.ts';
import { userContract } from './user.ts';

export * from './contract.ts';
export { adminContract, announcementContract, appContract, authContract, chatContract, contestContract, problemContract, submissionContract, userContract };

/** Every public route, by group: the OpenAPI document, the fuzz and offline-mode suites walk this. */
export const apiContract = {
  app: appContract,
  auth: authContract,
  user: userContract,
  problem: problemContract,
  submission: submissionContract,
  announcement: announcementContract,
  contest: contestContract,
  chat: chatContract,
  admin: adminContract,
} as const;

export const allRoutes: readonly RouteContract[] = Object.values(apiContract).flatMap((group) => Object.values(group) as RouteContract[]);
