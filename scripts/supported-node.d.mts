/** The root package.json's `engines.node`: `^20.19.0 || ^22.12.0` (supported-node.mjs says why). */
export declare const SUPPORTED_NODE_RANGE: string;
/** Why this Node (`process.versions.node` by default) cannot run the suite, or undefined when it can. */
export declare function unsupportedNodeReason(version?: string): string | undefined;
