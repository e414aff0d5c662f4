export class WrongExpectedVersionError extends Error {
  readonly streamId: string;
  readonly expected: number | 'none';
  readonly actual: number;
  constructor(streamId: string, expected: number | 'none', actual: number) {
    super(`stream ${streamId}: expected version ${expected}, but it is at ${actual}`);
    this.name = 'WrongExpectedVersionError';
    this.streamId = streamId;
    this.expected = expected;
    this.actual = actual;
  }
}

/** Some, but not all, of a batch's event ids are already in the log: a caller bug, never silently merged. */
export class DuplicateEventError extends Error {
  readonly eventIds: readonly string[];
  constructor(eventIds: readonly string[]) {
    super(`event ids already appended in another batch: ${eventIds.join(', ')}`);
    this.name = 'DuplicateEventError';
    this.eventIds = eventIds;
  }
}

export class InvalidAppendError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidAppendError';
  }
}
