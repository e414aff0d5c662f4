/**
 * Contest writes through the decider (contest-decider.ts): one decision on the stream `contest-<id>` at
 * the version that was read, then the answer waits (bounded) for the contests read model so the caller's
 * next read sees the change.
 */
import { sql } from '@otog/platform/db/pool';
import { runCommand, type CommandResult } from '@otog/platform/eventstore/command';
import { WrongExpectedVersionError } from '@otog/platform/eventstore/errors';
import { conflict } from '../../http/errors.ts';
import { waitForProjection } from '../../http/read-models.ts';
import type { ApiDependencies } from '../../http/settings.ts';
import { contestDecider, contestScope, contestStream, type ContestCommand, type ContestState } from './contest-decider.ts';

/** A new contest's id, from its sequence (taken only once the input was found valid). */
export async function nextContestId(deps: ApiDependencies): Promise<number> {
  return Number(await deps.pool.oneFirst(sql.unsafe`SELECT nextval('contest_ids')::int`));
}

export async function handleContest(deps: ApiDependencies, actor: number, command: ContestCommand): Promise<CommandResult<ContestState>> {
  let result: CommandResult<ContestState>;
  try {
    result = await runCommand(deps.store, contestStream(command.contestId), contestDecider, command, {
      meta: { actor },
      newStream: command.kind === 'create',
    });
  } catch (error) {
    if (error instanceof WrongExpectedVersionError) throw conflict('The contest was changed at the same time; try again');
    throw error;
  }
  if (result.appended) await waitForProjection(deps, 'contests', result.appended, contestScope(command.contestId));
  return result;
}
