/** Zips whose first entry lies about itself, as a hostile or broken zip tool would write them. */

/** A copy of `zip` with a 32-bit field of its first entry overwritten in the local header and the central directory. */
function patchFirstEntry(zip: Uint8Array, localField: number, centralField: number, value: number): Uint8Array {
  const copy = zip.slice();
  const view = new DataView(copy.buffer);
  let central = -1;
  for (let at = 0; at + 4 <= copy.length; at += 1) {
    if (view.getUint32(at, true) === 0x02014b50) {
      central = at;
      break;
    }
  }
  if (view.getUint32(0, true) !== 0x04034b50 || central < 0) throw new Error('not a zip made by fflate');
  view.setUint32(localField, value, true);
  view.setUint32(central + centralField, value, true);
  return copy;
}

/** The first entry's CRC-32 replaced: its bytes no longer match what the zip records. */
export const withForgedCrc = (zip: Uint8Array, crc = 0xdeadbeef) => patchFirstEntry(zip, 14, 16, crc);

/** The first entry's uncompressed size replaced. */
export const withForgedSize = (zip: Uint8Array, size: number) => patchFirstEntry(zip, 22, 24, size);
