/** Key → partition: a stable hash (FNV-1a, 32-bit) of the key modulo the partition count. */
export function partitionFor(key: string, partitions: number): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(key, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % Math.max(1, partitions);
}
