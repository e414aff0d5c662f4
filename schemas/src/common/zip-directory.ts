/**
 * A zip's central directory, read directly: what fflate does not tell (symlink and encryption flags, each
 * entry's CRC-32), shared by the upload check in the API and the judge's unpacking.
 */

export interface CentralEntry {
  readonly symlink: boolean;
  readonly encrypted: boolean;
  /** The CRC-32 of the entry's uncompressed bytes, as recorded. */
  readonly crc32: number;
}

/** The entries in central-directory order (fflate lists them in the same order); undefined when the directory cannot be read. */
export function readCentralDirectory(data: Uint8Array): CentralEntry[] | undefined {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let eocd = -1;
  for (let at = data.length - 22; at >= Math.max(0, data.length - 22 - 65_535); at -= 1) {
    if (view.getUint32(at, true) === 0x06054b50) {
      eocd = at;
      break;
    }
  }
  if (eocd < 0) return undefined;
  let count = view.getUint16(eocd + 10, true);
  let offset = view.getUint32(eocd + 16, true);
  if ((count === 0xffff || offset === 0xffffffff) && eocd >= 20 && view.getUint32(eocd - 20, true) === 0x07064b50) {
    const zip64 = Number(view.getBigUint64(eocd - 12, true));
    if (zip64 + 56 > data.length || view.getUint32(zip64, true) !== 0x06064b50) return undefined;
    count = Number(view.getBigUint64(zip64 + 32, true));
    offset = Number(view.getBigUint64(zip64 + 48, true));
  }
  const entries: CentralEntry[] = [];
  for (let index = 0; index < count; index += 1) {
    if (offset + 46 > data.length || view.getUint32(offset, true) !== 0x02014b50) return undefined;
    const madeBy = view.getUint16(offset + 4, true) >> 8;
    const flags = view.getUint16(offset + 8, true);
    const mode = view.getUint32(offset + 38, true) >>> 16;
    // Host 3 = Unix: the high half of the external attributes is st_mode.
    entries.push({ symlink: madeBy === 3 && (mode & 0o170000) === 0o120000, encrypted: (flags & 1) === 1, crc32: view.getUint32(offset + 16, true) });
    offset += 46 + view.getUint16(offset + 28, true) + view.getUint16(offset + 30, true) + view.getUint16(offset + 32, true);
  }
  return entries;
}

/**
 * Why an inflated entry is not what its zip recorded, or undefined when it is: a forged size makes the
 * inflater stop early or pad, and a forged CRC hides altered bytes; either would judge against other data.
 */
export function entryMismatch(name: string, data: Uint8Array, declaredSize: number, recordedCrc: number | undefined, crc32: (data: Uint8Array) => number): string | undefined {
  if (data.length !== declaredSize) return `${name} unpacks to ${data.length} bytes, not the ${declaredSize} its zip entry declares`;
  if (recordedCrc !== undefined && crc32(data) >>> 0 !== recordedCrc >>> 0) return `${name} does not match its zip entry's checksum (CRC-32)`;
  return undefined;
}
