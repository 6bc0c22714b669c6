/**
 * Use cases of the contract registry: register (checks, persist, provision the topics of
 * the declared lifecycle classes only), check an edit (dry run), and apply a versioned,
 * compatibility-checked edit. Nothing is persisted or provisioned when a check fails.
 */
import type { SqlDatabase } from '@platform/core';
import type { Broker } from '../broker/broker.js';
import type { ContractDefinition } from '../contracts/contract.js';
import { checkCompatibility, type Incompatibility } from '../contracts/compatibility.js';
import {
  deleteContract,
  findContract,
  insertContract,
  updateContract,
} from '../contracts/contract-store.js';
import { contractTopics } from '../contracts/topics.js';
import { validateDefinition } from '../contracts/validate-definition.js';
import { integrationErrors } from '../errors.js';

function definitionOrThrow(input: unknown): ContractDefinition {
  const check = validateDefinition(input);
  if (!check.ok) {
    const first = check.violations[0]!;
    throw integrationErrors.CONTRACT_INVALID({
      detail: `contract definition is invalid: ${first.path || '(body)'} ${first.message}`,
      body: { errors: check.violations },
    });
  }
  return check.contract;
}

async function provisionTopics(broker: Broker, contract: ContractDefinition): Promise<void> {
  for (const topic of contractTopics(contract)) await broker.ensureTopic(topic);
}

export async function registerContract(
  db: SqlDatabase,
  broker: Broker,
  input: unknown,
): Promise<ContractDefinition> {
  const contract = definitionOrThrow(input);
  if (!(await insertContract(db, contract))) throw integrationErrors.CONTRACT_EXISTS();
  try {
    await provisionTopics(broker, contract);
  } catch (error) {
    await deleteContract(db, contract.contractId);
    throw integrationErrors.BROKER_UNAVAILABLE({
      detail: 'broker unavailable; the contract was not registered',
      cause: error,
    });
  }
  return contract;
}

export interface EvolutionCheck {
  contractId: string;
  currentVersion: number;
  proposedVersion: number;
  compatible: boolean;
  incompatibilities: Incompatibility[];
  next: ContractDefinition;
}

/** Validates the proposed definition and compares it with the current version (no writes). */
export async function checkEvolution(
  db: SqlDatabase,
  contractId: string,
  input: unknown,
): Promise<EvolutionCheck> {
  const stored = await findContract(db, contractId);
  if (!stored) throw integrationErrors.CONTRACT_NOT_FOUND();
  const current = stored.contract;
  const body =
    typeof input === 'object' && input !== null && !Array.isArray(input)
      ? (input as Record<string, unknown>)
      : undefined;
  if (body && body.contractId !== undefined && body.contractId !== contractId) {
    throw integrationErrors.CONTRACT_INVALID({
      detail: 'contract definition is invalid: contractId must match the path',
      body: { errors: [{ path: 'contractId', message: 'must match the path' }] },
    });
  }
  const proposedVersion = current.schemaVersion + 1;
  const next = definitionOrThrow(
    body ? { ...body, contractId, schemaVersion: body.schemaVersion ?? proposedVersion } : input,
  );
  if (next.schemaVersion !== proposedVersion) {
    throw integrationErrors.CONTRACT_VERSION_CONFLICT({
      detail: `schemaVersion must be ${proposedVersion} (the current version is ${current.schemaVersion})`,
    });
  }
  const incompatibilities = checkCompatibility(current, next);
  return {
    contractId,
    currentVersion: current.schemaVersion,
    proposedVersion,
    compatible: incompatibilities.length === 0,
    incompatibilities,
    next,
  };
}

/** Applies a compatible edit as the next version and provisions topics of newly declared classes. */
export async function evolveContract(
  db: SqlDatabase,
  broker: Broker,
  contractId: string,
  input: unknown,
): Promise<ContractDefinition> {
  const check = await checkEvolution(db, contractId, input);
  if (!check.compatible) {
    const first = check.incompatibilities[0]!;
    throw integrationErrors.CONTRACT_INCOMPATIBLE({
      detail: `incompatible contract change (BACKWARD mode): ${first.path} ${first.message}`,
      body: { incompatibilities: check.incompatibilities },
    });
  }
  try {
    await provisionTopics(broker, check.next);
  } catch (error) {
    throw integrationErrors.BROKER_UNAVAILABLE({
      detail: 'broker unavailable; the contract was not changed',
      cause: error,
    });
  }
  if (!(await updateContract(db, check.next, check.currentVersion))) {
    throw integrationErrors.CONTRACT_VERSION_CONFLICT({
      detail: 'the contract was changed meanwhile; check again against the new version',
    });
  }
  return check.next;
}
