/** Defaults the `ObjectStore` contract documents, shared by every driver. */
export const DEFAULT_CONTENT_TYPE = 'application/octet-stream';
export const DEFAULT_SIGNED_URL_EXPIRES_SECONDS = 900;
