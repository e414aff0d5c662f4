/**
 * Avatars: any common image in, two square JPEGs out (OTOG's 320 px profile picture and the 32 px one its
 * clients ask for with a `_32` suffix, which OTOG left to an external resizer).
 */
import sharp from 'sharp';
import { AVATAR_FILE } from '@otog/schemas/api/user';
import { badRequest } from '../../http/errors.ts';

export const AVATAR_LARGE_PX = 320;
export const AVATAR_SMALL_PX = 32;

/** Raster formats only: SVG would be rendered by librsvg from untrusted markup, PDF by poppler. */
const ACCEPTED_FORMATS = new Set(['jpeg', 'png', 'webp', 'gif', 'avif', 'heif']);
/** A small file can still decode to gigapixels (a decompression bomb): 40 megapixels is any real photo. */
const MAX_INPUT_PIXELS = 40_000_000;

export interface AvatarImages {
  readonly large: Buffer;
  readonly small: Buffer;
}

/** Centre-cropped squares; EXIF orientation applied, metadata (GPS and the like) dropped. A non-image is a 400. */
export async function renderAvatar(input: Buffer): Promise<AvatarImages> {
  const open = () => sharp(input, { limitInputPixels: MAX_INPUT_PIXELS, failOn: 'error', animated: false });
  let format: string | undefined;
  try {
    format = (await open().metadata()).format;
  } catch {
    throw badRequest('file is not an image (expected JPEG, PNG, WebP, GIF or AVIF)');
  }
  if (!format || !ACCEPTED_FORMATS.has(format)) throw badRequest(`file is not an accepted image (got ${format ?? 'unknown'}; expected JPEG, PNG, WebP, GIF or AVIF)`);
  const square = (size: number) =>
    open()
      .rotate()
      .resize(size, size, { fit: 'cover', position: 'centre' })
      // Transparent areas become white rather than JPEG's black.
      .flatten({ background: '#ffffff' })
      .jpeg({ quality: 85, mozjpeg: true })
      .toBuffer();
  try {
    const [large, small] = await Promise.all([square(AVATAR_LARGE_PX), square(AVATAR_SMALL_PX)]);
    return { large, small };
  } catch (error) {
    throw badRequest(`file could not be read as an image: ${(error as Error).message}`);
  }
}

/** `12.jpeg` → {userId: 12, small: false}; `12_32.jpeg` → small; anything else (or an id beyond int4) → null. */
export function parseAvatarFile(file: string): { userId: number; small: boolean } | null {
  const match = AVATAR_FILE.exec(file);
  if (!match) return null;
  const userId = Number(match[1]);
  return userId <= 2_147_483_647 ? { userId, small: match[2] !== undefined } : null;
}
