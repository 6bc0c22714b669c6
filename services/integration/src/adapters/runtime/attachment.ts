/**
 * The adapters' local view of an attachment and of the contract it carries, as read from
 * the control plane's attachments feed. Only what adapters use is declared; unknown
 * properties are ignored.
 */
export type LifecycleClass = 'create' | 'update' | 'tombstone';

export interface ContractField {
  name: string;
  type: string;
  required?: boolean;
  queryable?: boolean;
}

export interface ContractView {
  contractId: string;
  schemaVersion: number;
  naturalKey: { fields: string[] };
  recordTypes: string[];
  lifecycle: Record<string, LifecycleClass>;
  fields: ContractField[];
}

export interface AttachmentView {
  attachmentId: string;
  contractId: string;
  adapterType: string;
  config: Record<string, unknown>;
  enabled: boolean;
  contract: ContractView;
  /** When the attachment was created, and last changed (ISO 8601), as the control plane says. */
  createdAt?: string;
  updatedAt?: string;
}

const SUFFIX: Record<LifecycleClass, string> = {
  create: 'created',
  update: 'updated',
  tombstone: 'deleted',
};

/** Topics of the lifecycle classes a contract declares. */
export function contractTopicNames(contract: ContractView): string[] {
  const classes = new Set(
    contract.recordTypes.map((type) => contract.lifecycle[type]).filter(Boolean),
  );
  return (['create', 'update', 'tombstone'] as const)
    .filter((cls) => classes.has(cls))
    .map((cls) => `${contract.contractId}.${SUFFIX[cls]}`);
}

/** `internId` → `intern_id`. */
export function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}

/** Contract of a topic, for lag by contract (`intern.created` is the legacy interns topic). */
export function contractOfTopic(topic: string): string {
  if (topic === 'intern.created') return 'interns';
  return topic.replace(/\.(created|updated|deleted)$/, '');
}
