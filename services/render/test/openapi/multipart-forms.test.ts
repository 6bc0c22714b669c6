/**
 * The multipart forms are in the render document as `requestBody` (issue 22 item 4): a
 * generated client builds `POST /v1/render` from them, so each field of the spec's
 * section 2 table must be there, `replay` the one required file.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { renderOpenApiDocuments } from '../../src/openapi-document.js';

// Section 2, "Render parameters (multipart fields of POST /v1/render)".
const SPEC_FIELDS = [
  'replay',
  'skin',
  'bg_dim',
  'resolution',
  'motion_blur',
  'storyboard',
  'video',
  'snaking_in',
  'snaking_out',
  'hit_error_meter',
  'key_overlay',
];

interface Operation {
  requestBody?: { required?: boolean; content: Record<string, { schema: FormSchema }> };
}

interface FormSchema {
  required?: string[];
  properties: Record<string, { type?: string; format?: string; default?: unknown }>;
}

async function formOf(path: string): Promise<FormSchema> {
  const { render } = await renderOpenApiDocuments();
  const operation = (render as { paths: Record<string, Record<string, Operation>> }).paths[path]!
    .post;
  assert.equal(operation?.requestBody?.required, true, `${path} declares its body`);
  return operation!.requestBody!.content['multipart/form-data']!.schema;
}

test('POST /v1/render documents every field of the spec, replay the required file', async () => {
  const form = await formOf('/v1/render');
  for (const field of SPEC_FIELDS) assert.ok(form.properties[field], `field ${field}`);
  assert.deepEqual(form.required, ['replay']);
  assert.equal(form.properties.replay!.format, 'binary');
  assert.equal(form.properties.skin!.default, 'Default');
  assert.equal(form.properties.bg_dim!.default, 0.95);
  assert.equal(form.properties.video!.default, false);
});

test('legacy POST /render adds quality; the skin uploads take one file, skin', async () => {
  const legacy = await formOf('/render');
  for (const field of [...SPEC_FIELDS, 'quality']) assert.ok(legacy.properties[field], field);
  for (const path of ['/v1/skins/upload', '/skins/upload']) {
    const form = await formOf(path);
    assert.deepEqual(form.required, ['skin']);
    assert.equal(form.properties.skin!.format, 'binary');
  }
});
