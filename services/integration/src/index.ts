/** Public entry of @platform/integration: the app builders, the one-process wiring and the contract model. */
export { buildControlPlaneApp, type ControlPlaneOptions } from './control-plane/app.js';
export { buildSubmissionApp, type SubmissionOptions } from './submission/app.js';
export { startPlatform, type PlatformOptions, type RunningPlatform } from './platform.js';
export { integrationEnvSchema, ROLES, type IntegrationEnv, type Role } from './config.js';
export { migrateIntegration } from './migrations.js';
export type { ContractDefinition, FieldDefinition, LifecycleClass } from './contracts/contract.js';
export type { Envelope } from './contracts/envelope.js';
export { checkCompatibility, type Incompatibility } from './contracts/compatibility.js';
export { validateDefinition } from './contracts/validate-definition.js';
export { INTERNS_CONTRACT, INTERNS_CONTRACT_ID } from './contracts/interns-contract.js';
