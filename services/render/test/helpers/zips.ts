/** Crafted `.osk` archives: good ones from yazl, and bad ones patched byte by byte. */
import { randomBytes } from 'node:crypto';
import yazl from 'yazl';

export interface ZipEntry {
  name: string;
  data?: Buffer;
  compress?: boolean;
  mode?: number;
}

export function makeZip(entries: ZipEntry[]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const entry of entries) {
    if (entry.name.endsWith('/')) zip.addEmptyDirectory(entry.name);
    else {
      zip.addBuffer(entry.data ?? Buffer.from(`content of ${entry.name}`), entry.name, {
        compress: entry.compress ?? true,
        ...(entry.mode === undefined ? {} : { mode: entry.mode }),
      });
    }
  }
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on('error', reject);
  });
}

/** Replaces every occurrence of `from` by `to` (same length) — entry names sit in two places. */
export function patchBytes(zip: Buffer, from: string, to: string): Buffer {
  if (from.length !== to.length) throw new Error('patch must keep the length');
  const out = Buffer.from(zip);
  const needle = Buffer.from(from, 'latin1');
  let at = out.indexOf(needle);
  if (at < 0) throw new Error(`"${from}" not in archive`);
  while (at >= 0) {
    Buffer.from(to, 'latin1').copy(out, at);
    at = out.indexOf(needle, at + 1);
  }
  return out;
}

export const goodSkinEntries = (): ZipEntry[] => [
  { name: 'skin.ini', data: Buffer.from('[General]\nName: Test Skin\nAuthor: tests\n') },
  { name: 'hitcircle.png', data: randomBytes(2048) },
  { name: 'sounds/', data: Buffer.alloc(0) },
  { name: 'sounds/normal-hitnormal.wav', data: randomBytes(1024) },
  { name: 'a/b/c/deep-ok.png', data: randomBytes(100) },
];
