import type { FastifyRequest } from 'fastify';
import { badRequest, HttpError, NUL_MESSAGE } from './errors.ts';

export interface UploadedFile {
  readonly field: string;
  readonly filename: string;
  readonly mimetype: string;
  readonly data: Buffer;
}

export interface MultipartBody {
  readonly fields: Record<string, string>;
  readonly files: Record<string, UploadedFile>;
}

/**
 * Reads a whole multipart/form-data body: text fields, and the named file fields (each at most
 * `maxFileBytes`; a larger one is a 413 naming the field). Unknown file fields are a 400.
 */
export async function readMultipart(
  request: FastifyRequest,
  options: { files: Readonly<Record<string, number>>; maxFields?: number },
): Promise<MultipartBody> {
  if (!request.isMultipart()) throw badRequest('Expected a multipart/form-data body');
  const fields: Record<string, string> = {};
  const files: Record<string, UploadedFile> = {};
  const largest = Math.max(1, ...Object.values(options.files));
  try {
    for await (const part of request.parts({ limits: { fileSize: largest + 1, fields: options.maxFields ?? 30, fieldSize: 1_000_000, files: 10 } })) {
      if (part.type === 'field') {
        if (typeof part.value !== 'string') throw badRequest(`Field ${part.fieldname} must be text`);
        if (part.value.includes('\u0000')) throw badRequest(`Field ${part.fieldname} ${NUL_MESSAGE}`);
        fields[part.fieldname] = part.value;
        continue;
      }
      const max = options.files[part.fieldname];
      if (max === undefined) {
        part.file.resume();
        throw badRequest(`Unexpected file field ${part.fieldname}`);
      }
      if (part.filename.includes('\u0000')) {
        part.file.resume();
        throw badRequest(`The file name of ${part.fieldname} ${NUL_MESSAGE}`);
      }
      const data = await part.toBuffer();
      if (data.length > max || part.file.truncated) throw new HttpError(413, `File ${part.fieldname} is too large (at most ${max} bytes)`);
      files[part.fieldname] = { field: part.fieldname, filename: part.filename, mimetype: part.mimetype, data };
    }
  } catch (error) {
    if (error instanceof HttpError) throw error;
    const code = (error as { code?: string }).code ?? '';
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw new HttpError(413, 'File is too large');
    if (code.startsWith('FST_')) throw badRequest(`Malformed multipart body: ${(error as Error).message}`);
    if ((error as { statusCode?: number }).statusCode === 400 || /multipart|boundary/i.test(String((error as Error).message))) {
      throw badRequest(`Malformed multipart body: ${(error as Error).message}`);
    }
    throw error;
  }
  return { fields, files };
}
