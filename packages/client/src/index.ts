/**
 * Typed clients of the platform's seven HTTP APIs (issue 22). The types are generated
 * from each service's OpenAPI document (`npm run openapi`); the calls are openapi-fetch's,
 * so a path, its parameters, its body and each answer's type come from the document:
 *
 *   const render = renderClient({ baseUrl: 'http://127.0.0.1:8727' });
 *   const { data, error } = await render.GET('/v1/jobs/{job_id}', {
 *     params: { path: { job_id: id } },
 *   });
 *   if (error) throw new Error(error.detail);
 */
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { paths as AnalyticsPaths } from './generated/analytics.js';
import type { paths as ControlPlanePaths } from './generated/integration-control-plane.js';
import type { paths as CsvAdapterPaths } from './generated/integration-csv-adapter.js';
import type { paths as RelationalAdapterPaths } from './generated/integration-relational-adapter.js';
import type { paths as SubmissionPaths } from './generated/integration-submission.js';
import type { paths as WebhookAdapterPaths } from './generated/integration-webhook-adapter.js';
import type { paths as RenderPaths } from './generated/render.js';

export type {
  AnalyticsPaths,
  ControlPlanePaths,
  CsvAdapterPaths,
  RelationalAdapterPaths,
  RenderPaths,
  SubmissionPaths,
  WebhookAdapterPaths,
};
export type { components as RenderComponents } from './generated/render.js';
export type { components as ControlPlaneComponents } from './generated/integration-control-plane.js';
export type { components as SubmissionComponents } from './generated/integration-submission.js';
export type { components as AnalyticsComponents } from './generated/analytics.js';

export interface PlatformClientOptions extends ClientOptions {
  /** Where the service answers, e.g. `http://127.0.0.1:8727`. */
  baseUrl: string;
  /** An API key (`API_KEYS`), sent as `Authorization: Bearer <key>`. */
  apiKey?: string | undefined;
}

function clientFor<Paths extends object>(options: PlatformClientOptions): Client<Paths> {
  const { apiKey, headers, ...rest } = options;
  const auth = apiKey === undefined ? {} : { authorization: `Bearer ${apiKey}` };
  return createClient<Paths>({
    ...rest,
    headers: { ...(headers as Record<string, string> | undefined), ...auth },
  });
}

export const renderClient = (options: PlatformClientOptions) => clientFor<RenderPaths>(options);
export const controlPlaneClient = (options: PlatformClientOptions) =>
  clientFor<ControlPlanePaths>(options);
export const submissionClient = (options: PlatformClientOptions) =>
  clientFor<SubmissionPaths>(options);
export const relationalAdapterClient = (options: PlatformClientOptions) =>
  clientFor<RelationalAdapterPaths>(options);
export const csvAdapterClient = (options: PlatformClientOptions) =>
  clientFor<CsvAdapterPaths>(options);
export const webhookAdapterClient = (options: PlatformClientOptions) =>
  clientFor<WebhookAdapterPaths>(options);
export const analyticsClient = (options: PlatformClientOptions) =>
  clientFor<AnalyticsPaths>(options);

/**
 * openapi-fetch's `bodySerializer` for a multipart operation (`POST /v1/render`, the skin
 * uploads): the typed body as FormData, a Blob field as a file (a File keeps its name,
 * which the service checks: `.osr`, `.osk`), anything else as its text. Absent fields are
 * left out, so the service applies its defaults.
 *
 *   await render.POST('/v1/render', {
 *     body: { replay: new File([bytes], 'play.osr'), skin: 'Default' },
 *     bodySerializer: toFormData,
 *   });
 */
export function toFormData(body: object): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(body)) {
    if (value === undefined || value === null) continue;
    if (value instanceof Blob) form.append(name, value);
    else form.append(name, String(value));
  }
  return form;
}
