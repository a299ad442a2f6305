/**
 * Checks request bodies against Trunk's public OpenAPI document (JSON Schema 2020-12 dialect), so the
 * client's wire format is judged by the vendor's own description, not by our types.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/** Trunk's public OpenAPI document (a copy in test/fixtures, see its README). */
const SPEC_PATH = new URL('../fixtures/trunk-openapi-v1.json', import.meta.url);

interface OpenApiDoc {
  servers?: Array<{ url: string }>;
  paths: Record<string, Record<string, unknown>>;
}

const doc = JSON.parse(readFileSync(SPEC_PATH, 'utf8')) as OpenApiDoc;
/** The servers' URL includes /v1 (https://api.trunk.io/v1); paths in the document are relative to it. */
const serverBasePath = new URL(doc.servers?.[0]?.url ?? 'https://api.trunk.io/v1').pathname.replace(
  /\/$/,
  '',
);

// OpenAPI keywords (info, paths, examples, …) are not JSON Schema; strict mode would reject the document.
const ajv = new Ajv2020({ strict: false, allErrors: true });
// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (a: Ajv2020) => void;
addFormats(ajv);
// The whole document is one schema resource, so any "$ref": "#/components/..." inside resolves.
ajv.addSchema(doc as object, 'trunk-openapi');

function pointerEscape(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

const compiled = new Map<string, ReturnType<typeof ajv.compile>>();

/** The OpenAPI path of a wire path: `/v1/getQueue` → `/getQueue`. */
export function specPath(wirePath: string): string {
  const path = wirePath.split('?')[0] ?? wirePath;
  return path.startsWith(serverBasePath) ? path.slice(serverBasePath.length) : path;
}

/** Validation errors of one request body for the operation at `wirePath` (empty when valid). */
export function requestBodyErrors(wirePath: string, body: unknown): string[] {
  const path = specPath(wirePath);
  if (!doc.paths[path]?.post) return [`${wirePath}: no POST operation ${path} in the OpenAPI document`];
  let validate = compiled.get(path);
  if (!validate) {
    const ref = `trunk-openapi#/paths/${pointerEscape(path)}/post/requestBody/content/${pointerEscape('application/json')}/schema`;
    validate = ajv.compile({ $ref: ref });
    compiled.set(path, validate);
  }
  if (validate(body)) return [];
  return (validate.errors ?? []).map((e) => `${wirePath}${e.instancePath || ''} ${e.message ?? 'invalid'}`);
}
