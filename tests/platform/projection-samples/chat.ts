import type { NewEvent } from '@otog/platform/eventstore/event-store';
import type { SampleStreams } from './index.ts';

// Message ids of their own: every sample is appended to one log in the golden replay and the relay test.
const posted = (messageId: number, userId: number, message: string, at: string): NewEvent => ({
  type: 'ChatMessagePosted',
  scope: 'chat:global',
  occurredAt: at,
  data: { messageId, userId, message },
});

/** Sample streams for the chat projection: messages posted (Thai, emoji, the longest allowed) and one removed. */
export const chatSamples: SampleStreams = [
  ['chat-900', [posted(900, 1, 'สวัสดีครับ', '2024-06-01T10:00:00.000Z')]],
  ['chat-901', [posted(901, 2, '😀'.repeat(150), '2024-06-01T10:00:05.000Z'), { type: 'ChatMessageDeleted', scope: 'chat:global', data: { messageId: 901, deletedBy: 1 } }]],
  ['chat-902', [posted(902, 1, 'ขอบคุณ _ครับ_ *มาก*', '2024-06-01T10:01:00.000Z')]],
];
