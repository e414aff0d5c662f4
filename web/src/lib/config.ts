/**
 * Runtime settings the server writes into index.html (`<meta name="otog-config">`), so one build serves
 * both the online site and an offline (on-site contest) one.
 */
import { z } from 'zod';

const WebConfigSchema = z.object({
  offline: z.boolean().default(false),
  /** Where to report problems (the footer's "ได้ที่นี่"). */
  issueLink: z.string().default('https://github.com/phakphum-dev/otog/issues'),
  /** The copyright line's link. */
  contactLink: z.string().default('https://www.facebook.com/otogthailand'),
  /** Seconds between session re-reads; 0 = only on focus and cross-tab notices. */
  sessionPollSeconds: z.number().nonnegative().default(0),
  /** The server's SUBMISSION_MAX_BYTES: a bigger source is refused here, before it is sent. */
  submissionMaxBytes: z.number().int().positive().default(10 * 1024),
});
export type WebConfig = z.infer<typeof WebConfigSchema>;

function readConfig(): WebConfig {
  const raw = document.querySelector('meta[name="otog-config"]')?.getAttribute('content') ?? '{}';
  try {
    return WebConfigSchema.parse(JSON.parse(raw));
  } catch {
    return WebConfigSchema.parse({});
  }
}

export const config: WebConfig = readConfig();
