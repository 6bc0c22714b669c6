/**
 * The submission service's contracts, read once and kept: an entry is dropped when the
 * contract changes — at once for changes made by this process, by LISTEN/NOTIFY for
 * changes made elsewhere (a control plane in another process). Unknown ids are not
 * cached, so a contract registered a moment ago is found on its first submission.
 */
import type { Logger, SqlDatabase, Unlisten } from '@platform/core';
import type { ContractDefinition } from '../contracts/contract.js';
import {
  CONTRACT_CHANGED_CHANNEL,
  findContract,
  onContractChange,
} from '../contracts/contract-store.js';

export class ContractCache {
  private readonly entries = new Map<string, Promise<ContractDefinition | undefined>>();
  private unlisten: Unlisten | undefined;
  private readonly unsubscribe: () => void;
  /** Bumped on every change, so a read that started before a change is not kept. */
  private generation = 0;

  constructor(
    private readonly db: SqlDatabase,
    private readonly logger: Logger,
  ) {
    this.unsubscribe = onContractChange((id) => this.drop(id));
  }

  /** Subscribes to changes made by other processes; without it only this process's changes are seen. */
  async start(): Promise<void> {
    if (!this.db.supportsListenNotify) return;
    try {
      this.unlisten = await this.db.listen(CONTRACT_CHANGED_CHANNEL, (id) => this.drop(id));
    } catch (error) {
      this.logger.warn(
        { err: error },
        'contract change notifications unavailable; contracts read on every request',
      );
      this.unlisten = undefined;
    }
  }

  get(contractId: string): Promise<ContractDefinition | undefined> {
    if (!this.unlisten) return this.read(contractId);
    const cached = this.entries.get(contractId);
    if (cached) return cached;
    const generation = this.generation;
    const reading = this.read(contractId);
    this.entries.set(contractId, reading);
    void reading.then(
      (contract) => {
        if (!contract || generation !== this.generation) this.forget(contractId, reading);
      },
      () => this.forget(contractId, reading),
    );
    return reading;
  }

  async close(): Promise<void> {
    this.unsubscribe();
    await this.unlisten?.().catch(() => undefined);
    this.entries.clear();
  }

  private read(contractId: string): Promise<ContractDefinition | undefined> {
    return findContract(this.db, contractId).then((stored) => stored?.contract);
  }

  private forget(contractId: string, entry: Promise<ContractDefinition | undefined>): void {
    if (this.entries.get(contractId) === entry) this.entries.delete(contractId);
  }

  private drop(contractId: string): void {
    this.generation += 1;
    this.entries.delete(contractId);
  }
}
