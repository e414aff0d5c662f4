/**
 * Problem files: signed attachment URLs (what S3 presigned URLs were in OTOG: the URL itself is the
 * credential, valid for an hour, for one problem and one direction) and the checks on uploaded files.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { forbidden } from '../../http/errors.ts';

export const SIGNED_URL_TTL_SECONDS = 60 * 60;

export type SignedPurpose = 'attachment-upload' | 'attachment-download';

/**
 * What a download link is good for: one file (a newer upload needs a new link) and, when it was handed out
 * only because the problem was shown, only while the problem stays shown.
 */
export interface DownloadBinding {
  readonly fileHash: string;
  readonly whileShown: boolean;
}

const SHOWN_FLAG = '1';

function signature(secret: string, purpose: SignedPurpose, problemId: number, expires: number, binding?: DownloadBinding): string {
  const bound = binding ? `\n${binding.fileHash}\n${binding.whileShown ? 'shown' : 'any'}` : '';
  return createHmac('sha256', secret).update(`${purpose}\n${problemId}\n${expires}${bound}`).digest('base64url');
}

/** `${origin}/api/problem/<id>/attachment?expires=..&signature=..` for the purpose, valid for the TTL. */
export function signedAttachmentUrl(
  request: FastifyRequest,
  secret: string,
  purpose: SignedPurpose,
  problemId: number,
  binding?: DownloadBinding,
  nowMs = Date.now(),
): string {
  const expires = Math.floor(nowMs / 1000) + SIGNED_URL_TTL_SECONDS;
  const query = new URLSearchParams({ expires: String(expires), signature: signature(secret, purpose, problemId, expires, binding) });
  if (binding?.whileShown) query.set('shown', SHOWN_FLAG);
  return `${request.protocol}://${request.host}/api/problem/${problemId}/attachment?${query}`;
}

/** Whether a download link says it holds only while the problem is shown. */
export const linkNeedsShown = (query: { shown?: string | undefined }) => query.shown === SHOWN_FLAG;

/**
 * Throws 403 unless the signature is the one issued for this purpose, problem and (for downloads) file and
 * visibility rule, and has not expired. A link for a replaced file no longer matches its signature.
 */
export function verifySignedUrl(
  secret: string,
  purpose: SignedPurpose,
  problemId: number,
  query: { expires: number; signature: string },
  binding?: DownloadBinding,
  nowMs = Date.now(),
): void {
  const expected = Buffer.from(signature(secret, purpose, problemId, query.expires, binding));
  const given = Buffer.from(query.signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw forbidden('Invalid signature');
  if (query.expires * 1000 < nowMs) throw forbidden('This link has expired');
}

/** A statement must really be a PDF (it is served inline as application/pdf): why not, or undefined. */
export function pdfProblem(data: Uint8Array): string | undefined {
  return Buffer.from(data.subarray(0, 5)).toString('latin1') === '%PDF-' ? undefined : 'pdf: the file is not a PDF (it must start with %PDF-)';
}

/** `attachment; filename="..."` with an ASCII fallback and the UTF-8 name (RFC 6266 / 5987). */
export function contentDisposition(kind: 'inline' | 'attachment', filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\]/g, '_') || 'download';
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
