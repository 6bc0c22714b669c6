/**
 * The adapter's snapshot of its attachments, replaced on each refresh. An attachment
 * applies to records published from the moment the adapter learned it is enabled: at
 * start that is the beginning of the log; after a refresh it is the refresh time, so
 * records that arrived between attaching and the refresh are skipped, not backfilled.
 */
import { contractTopicNames, type AttachmentView } from './attachment.js';
import { LEGACY_FLAT_TOPIC } from './local-envelope.js';

export interface ActiveAttachment {
  attachment: AttachmentView;
  /** Records published before this instant are skipped for this attachment. */
  activeSince: number;
}

export class AttachmentRegistry {
  private byId = new Map<string, ActiveAttachment>();
  private loaded = false;

  /** Applies a fresh list; returns attachment ids whose config or contract version changed or vanished. */
  update(attachments: AttachmentView[], now = Date.now()): string[] {
    const next = new Map<string, ActiveAttachment>();
    const changed: string[] = [];
    for (const attachment of attachments) {
      const previous = this.byId.get(attachment.attachmentId);
      let activeSince = this.loaded ? now : 0;
      if (previous) {
        const wasEnabled = previous.attachment.enabled;
        activeSince = attachment.enabled && !wasEnabled ? now : previous.activeSince;
        if (
          JSON.stringify(previous.attachment.config) !== JSON.stringify(attachment.config) ||
          previous.attachment.contract.schemaVersion !== attachment.contract.schemaVersion
        ) {
          changed.push(attachment.attachmentId);
        }
      }
      next.set(attachment.attachmentId, { attachment, activeSince });
    }
    for (const id of this.byId.keys()) if (!next.has(id)) changed.push(id);
    this.byId = next;
    this.loaded = true;
    return changed;
  }

  /** Enabled attachments of a contract that apply to a record published at `publishedAt`. */
  enabledFor(contractId: string, publishedAt: number): AttachmentView[] {
    return [...this.byId.values()]
      .filter(
        (entry) =>
          entry.attachment.contractId === contractId &&
          entry.attachment.enabled &&
          publishedAt >= entry.activeSince,
      )
      .map((entry) => entry.attachment);
  }

  all(): AttachmentView[] {
    return [...this.byId.values()].map((entry) => entry.attachment);
  }

  /** Topics of every contract attached (enabled or not), plus the legacy flat topic. */
  topics(): string[] {
    const topics = new Set<string>([LEGACY_FLAT_TOPIC]);
    for (const { attachment } of this.byId.values())
      for (const topic of contractTopicNames(attachment.contract)) topics.add(topic);
    return [...topics].sort();
  }
}
