/**
 * Test-time proof that a service answers as its OpenAPI document says (issue 22): every
 * response of a documented route is checked against the app's own `/openapi.json` — the
 * status is declared for that operation, the content type is one the document lists, and
 * a JSON body matches its schema (Ajv). A response the document does not describe is
 * replaced by a 500 naming the mismatch, and the process is marked failed, so the test
 * that caused it fails even when it did not look at the status.
 *
 * On when `OPENAPI_RESPONSE_CHECK=1`, or unset under `node --test` (`NODE_TEST_CONTEXT`);
 * never in production. Hidden routes (`schema.hide`), routes that declare no success
 * answer (2xx or 3xx) and unmatched URLs are not checked.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { openApiUrl } from './wildcard.js';

// ajv-formats is CommonJS: its default export arrives as the module object under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as (ajv: Ajv) => Ajv;

export function responseCheckEnabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const setting = env.OPENAPI_RESPONSE_CHECK;
  if (setting !== undefined && setting !== '') return setting === '1' || setting === 'true';
  return env.NODE_TEST_CONTEXT !== undefined;
}

interface MediaType {
  schema?: unknown;
}
interface ResponseObject {
  content?: Record<string, MediaType>;
}
interface Operation {
  responses?: Record<string, ResponseObject>;
}
type Document = { paths?: Record<string, Record<string, Operation>> } & Record<string, unknown>;

/** `/a/:b/c::d/*` (Fastify) → `/a/{b}/c:d/{path}` (OpenAPI), as the document writes it. */
export function openApiPath(url: string): string {
  return openApiUrl(url)
    .split('::')
    .map((part) => part.replace(/:(\w+)(\([^)]*\))?/g, '{$1}'))
    .join(':');
}

const pointer = (...segments: string[]) =>
  segments
    .map((s) => '/' + encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1')))
    .join('');

function mediaTypeMatches(declared: string, actual: string): boolean {
  if (declared === '*/*' || declared === actual) return true;
  if (declared.endsWith('/*')) return actual.startsWith(declared.slice(0, -1));
  return false;
}

class ResponseChecker {
  private readonly ajv = new Ajv({ strict: false, allErrors: false, validateSchema: false });
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(private readonly doc: Document) {
    addFormats(this.ajv);
    for (const format of ['binary', 'byte', 'int32', 'int64', 'float', 'double', 'password'])
      this.ajv.addFormat(format, true);
    this.ajv.addSchema({ ...doc, $id: 'openapi.json' });
  }

  /** What is wrong with this response, or undefined when the document describes it. */
  check(method: string, url: string, status: number, contentType: string, body: unknown) {
    const path = openApiPath(url);
    const lower = method === 'HEAD' ? 'get' : method.toLowerCase();
    const operation = this.doc.paths?.[path]?.[lower];
    if (!operation) return `${method} ${path} is not in the document`;
    const key = operation.responses?.[String(status)]
      ? String(status)
      : operation.responses?.[`${String(status)[0]}XX`]
        ? `${String(status)[0]}XX`
        : operation.responses?.default
          ? 'default'
          : undefined;
    if (key === undefined)
      return `${method} ${path} answered ${status}, a status it does not declare`;
    const content = operation.responses![key]!.content;
    if (!content || Object.keys(content).length === 0) {
      if (body === undefined || body === '' || status === 204 || method === 'HEAD')
        return undefined;
      return `${method} ${path} ${status} has a body (${contentType || 'no content type'}) where the document declares none`;
    }
    const actual = contentType.split(';')[0]!.trim().toLowerCase();
    const declared = Object.keys(content).find((type) => mediaTypeMatches(type, actual));
    if (declared === undefined) {
      return `${method} ${path} ${status} answered content type "${actual}", the document lists ${Object.keys(content).join(', ')}`;
    }
    if (!/[/+]json$/.test(actual) || typeof body !== 'string' || !content[declared]!.schema)
      return undefined;
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return `${method} ${path} ${status} answered ${actual} that is not JSON`;
    }
    const ref = `openapi.json#${pointer('paths', path, lower, 'responses', key, 'content', declared, 'schema')}`;
    let validate = this.validators.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: ref });
      this.validators.set(ref, validate);
    }
    if (validate(parsed)) return undefined;
    const errors = (validate.errors ?? [])
      .map((e) => `${e.instancePath || '(body)'} ${e.message ?? ''}`)
      .join('; ');
    return `${method} ${path} ${status} body does not match its schema: ${errors}`;
  }
}

// A test file builds many apps with the same document; they share one checker, so each
// schema is compiled once per process rather than once per app (the check's main cost).
const checkers = new Map<string, ResponseChecker>();
const CHECKERS_KEPT = 16;

function checkerFor(doc: Document): ResponseChecker {
  const key = JSON.stringify(doc);
  let checker = checkers.get(key);
  if (!checker) {
    checker = new ResponseChecker(doc);
    if (checkers.size >= CHECKERS_KEPT) checkers.delete(checkers.keys().next().value!);
    checkers.set(key, checker);
  }
  return checker;
}

/** Installs the check on `app` (call before routes are registered; it reads the document once ready). */
export function installResponseCheck(app: FastifyInstance): void {
  let checker: ResponseChecker | undefined;
  app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const url = request.routeOptions.url;
    const schema = request.routeOptions.schema as {
      hide?: boolean;
      response?: Record<string, unknown>;
    };
    // A route whose author declared no success answer (a test's ad-hoc route, with only
    // the access errors core adds) describes nothing to check; every route of a service
    // declares its success (Redocly's operation-2xx-response fails the lint otherwise).
    const declaresSuccess = Object.keys(schema?.response ?? {}).some((status) =>
      /^[23]/.test(status),
    );
    if (url === undefined || schema?.hide || !declaresSuccess) return payload;
    if (url === '/openapi.json' || url.startsWith('/docs')) return payload;
    checker ??= checkerFor(app.swagger() as unknown as Document);
    // Streams and buffers are checked for status and content type only.
    const body =
      typeof payload === 'string' || payload === null || payload === undefined
        ? (payload ?? '')
        : undefined;
    const contentType = String(reply.getHeader('content-type') ?? '');
    const problem = checker.check(request.method, url, reply.statusCode, contentType, body);
    if (problem === undefined) return payload;
    const detail = `OpenAPI response check: ${problem}`;
    console.error(`${detail} (request ${request.method} ${request.url})`);
    process.exitCode = 1;
    (payload as { destroy?: () => void } | null)?.destroy?.();
    reply.code(500).header('content-type', 'application/json; charset=utf-8');
    reply.header('x-openapi-violation', 'true');
    return JSON.stringify({ detail });
  });
}
