/**
 * The webhook's idempotency gate: recordIds already delivered (2xx) to an attachment, in
 * an append-only file per attachment, loaded into memory on first use. The receiver also
 * gets the recordId as `Idempotency-Key`, so a crash between its 2xx and this record
 * leaves it able to drop the repeat.
 */
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

export class DeliveredStore {
  /** The load of each attachment's set, stored at once: overlapping first uses share it. */
  private readonly sets = new Map<string, Promise<Set<string>>>();

  constructor(private readonly dir: string) {}

  private fileOf(attachmentId: string): string {
    return join(this.dir, `${attachmentId.replace(/[^A-Za-z0-9_-]/g, '_')}.delivered`);
  }

  private load(attachmentId: string): Promise<Set<string>> {
    const cached = this.sets.get(attachmentId);
    if (cached) return cached;
    const loading = readFile(this.fileOf(attachmentId), 'utf8')
      .catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return '';
        throw error;
      })
      .then((text) => new Set(text.split('\n').filter(Boolean)));
    this.sets.set(attachmentId, loading);
    // a failed load is forgotten, so the next use reads the file again
    loading.catch(() => this.sets.get(attachmentId) === loading && this.sets.delete(attachmentId));
    return loading;
  }

  async has(attachmentId: string, recordId: string): Promise<boolean> {
    return (await this.load(attachmentId)).has(recordId);
  }

  async add(attachmentId: string, recordId: string): Promise<void> {
    await this.addAll(attachmentId, [recordId]);
  }

  /** One append for many (a batch's deliveries). */
  async addAll(attachmentId: string, recordIds: string[]): Promise<void> {
    if (recordIds.length === 0) return;
    const set = await this.load(attachmentId);
    await mkdir(this.dir, { recursive: true });
    await appendFile(this.fileOf(attachmentId), recordIds.map((id) => `${id}\n`).join(''));
    for (const id of recordIds) set.add(id);
  }
}
