/**
 * The CSV target: one file per attachment under the adapter's data folder, columns in
 * the attachment's order, each file opened (and locked) once and kept open while the
 * attachment lasts. See `csv-file.ts` for the file and state rules.
 */
import { csvCellText, parseCsv } from '@platform/core';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { AdapterTarget, TargetEvent } from '../runtime/adapter-target.js';
import { snakeCase, type AttachmentView } from '../runtime/attachment.js';
import { UnmappableDataError } from '../runtime/failures.js';
import type { LocalEnvelope } from '../runtime/local-envelope.js';
import { CSV_CONFIG_SCHEMA, resolveCsvPath, stateDirFor } from './csv-config.js';
import { CsvFile, type CsvCompaction, type CsvEvent } from './csv-file.js';

export interface CsvTargetOptions {
  /** Folder the attachment paths are relative to. */
  baseDir: string;
  /** fsync every write (off only for throw-away benchmarks). @defaultValue true */
  durable?: boolean;
  /** When journals are compacted and what they keep of the dedup store. @defaultValue DEFAULT_COMPACTION */
  compaction?: CsvCompaction;
}

interface Mapping {
  attachmentId: string;
  contractId: string;
  file: CsvFile;
  extractors: Array<(envelope: LocalEnvelope) => string>;
}

const ENVELOPE_COLUMNS: Record<string, (e: LocalEnvelope) => unknown> = {
  record_id: (e) => e.recordId,
  created_at: (e) => e.occurredAt,
  occurred_at: (e) => e.occurredAt,
  record_type: (e) => e.recordType,
  natural_key: (e) => e.naturalKey,
  contract_id: (e) => e.contractId,
};

async function existingHeader(path: string): Promise<string[] | undefined> {
  const handle = await open(path, 'r').catch(() => undefined);
  if (!handle) return undefined;
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(8192), 0, 8192, 0);
    const firstLine = buffer.subarray(0, bytesRead).toString('utf8').split(/\r?\n/)[0];
    return firstLine ? parseCsv(firstLine)[0] : undefined;
  } finally {
    await handle.close();
  }
}

/** Closes a file that opened; one that failed to open holds nothing. */
const closeQuietly = async (file: Promise<CsvFile>) => (await file.catch(() => undefined))?.close();

const text = csvCellText;
const isoTime = (value: string) => new Date(value).toISOString();

export const CSV_DESCRIPTION =
  'Writes records to one RFC 4180 CSV file per attachment (header once, attachment column order).';

export function createCsvTarget(options: CsvTargetOptions): AdapterTarget<Mapping, string[]> {
  // The open (or opening) file of each attachment. The promise is stored at once: the
  // first events of several partitions resolve their mapping together, and a second open
  // of the same file would find it locked by the first.
  const files = new Map<
    string,
    { signature: string; file: Promise<CsvFile>; contractId: string }
  >();

  const openFile = (
    attachment: AttachmentView,
    path: string,
    columns: string[],
  ): Promise<CsvFile> => {
    const signature = JSON.stringify([path, columns]);
    const existing = files.get(attachment.attachmentId);
    if (existing?.signature === signature) return existing.file;
    const keyFields = attachment.contract.naturalKey.fields;
    const keyColumn =
      keyFields.length === 1
        ? columns.indexOf(snakeCase(keyFields[0]!))
        : columns.indexOf('natural_key');
    const opening = (async () => {
      if (existing) await closeQuietly(existing.file);
      const file = new CsvFile(
        path,
        columns,
        join(stateDirFor(options.baseDir, attachment.attachmentId), 'journal.jsonl'),
        keyColumn,
        columns.indexOf('record_id'),
        options.durable ?? true,
        options.compaction,
      );
      await file.open();
      return file;
    })();
    const entry = { signature, file: opening, contractId: attachment.contractId };
    files.set(attachment.attachmentId, entry);
    // a failed open is forgotten, so the retry opens again
    opening.catch(
      () => files.get(attachment.attachmentId) === entry && files.delete(attachment.attachmentId),
    );
    return opening;
  };

  const transform = (mapping: Mapping, event: TargetEvent) =>
    mapping.extractors.map((extract) => extract(event.envelope));
  /** The event as the csv file takes it. */
  const csvEvent = (row: string[], event: TargetEvent): CsvEvent => ({
    create: event.lifecycle === 'create',
    recordId: event.envelope.recordId,
    key: event.envelope.naturalKey,
    values: event.lifecycle === 'tombstone' ? null : row,
    at: isoTime(event.envelope.occurredAt),
    revision: event.envelope.revision,
    position: event.position,
  });

  return {
    type: 'csv',
    description: CSV_DESCRIPTION,
    configSchema: CSV_CONFIG_SCHEMA,
    async resolveMapping(attachment) {
      const path = resolveCsvPath(options.baseDir, attachment.config.path);
      const fields = attachment.contract.fields;
      const configured = attachment.config.columns;
      // Without configured columns an existing file keeps its header (a later contract
      // version adding a field does not change the file's columns); a new file gets the default.
      const columns = Array.isArray(configured)
        ? configured.map(String)
        : ((await existingHeader(path)) ?? [
            'record_id',
            ...fields.map((f) => snakeCase(f.name)),
            'created_at',
          ]);
      const byColumn = new Map(fields.map((f) => [snakeCase(f.name), f.name]));
      const extractors = columns.map((column) => {
        const envelopeValue = ENVELOPE_COLUMNS[column];
        if (envelopeValue) return (e: LocalEnvelope) => text(envelopeValue(e));
        const field = byColumn.get(column);
        if (!field)
          throw new UnmappableDataError(
            `csv column ${column} is neither an envelope column nor a field of ${attachment.contractId}`,
          );
        return (e: LocalEnvelope) => text(e.payload[field]);
      });
      const file = await openFile(attachment, path, columns);
      return {
        attachmentId: attachment.attachmentId,
        contractId: attachment.contractId,
        file,
        extractors,
      };
    },
    async isDuplicate(mapping, event) {
      return mapping.file.applied(event.envelope.recordId, event.position);
    },
    transform,
    write: async (mapping, row, event) =>
      (await mapping.file.writeBatch([csvEvent(row, event)]))[0]!,
    // Decided as one step in offset order (what the target already applied is skipped);
    // their journal entries share one append and one fsync (the journal's group commit),
    // the creates one append to the file.
    writeBatch: (mapping, events) =>
      mapping.file.writeBatch(events.map((event) => csvEvent(transform(mapping, event), event))),
    appliedPosition: async (mapping, slot) => mapping.file.position(slot),
    async appliedOf(mapping, events) {
      const applied = new Set<number>();
      events.forEach((event, i) => {
        if (mapping.file.applied(event.envelope.recordId, event.position)) applied.add(i);
      });
      return applied;
    },
    async listInterns() {
      const interns = [...files.values()].find((entry) => entry.contractId === 'interns');
      return interns ? (await interns.file).rowsAsObjects() : [];
    },
    async release(attachmentId) {
      const entry = files.get(attachmentId);
      files.delete(attachmentId);
      if (entry) await closeQuietly(entry.file);
    },
    async close() {
      for (const entry of files.values()) await closeQuietly(entry.file);
      files.clear();
    },
  };
}
