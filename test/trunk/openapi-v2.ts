/**
 * Checks v2 requests (method, path, query string) against Trunk's v2 OpenAPI subset: the path must be an
 * operation of the document, every query parameter declared, every required one present, each value valid
 * for its schema. So the client's v2 wire format is judged by the vendor's description, not by our fake.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

const SPEC_PATH = new URL('../fixtures/trunk-openapi-v2-subset.json', import.meta.url);

interface Parameter {
  name: string;
  in: string;
  required?: boolean;
  schema?: object;
  $ref?: string;
}
interface Operation {
  operationId?: string;
  parameters?: Parameter[];
}
interface Doc {
  paths: Record<string, Record<string, Operation>>;
  components?: { parameters?: Record<string, Parameter> };
}

const doc = JSON.parse(readFileSync(SPEC_PATH, 'utf8')) as Doc;
// Query values arrive as strings: coerce them to the parameter's type, as a server would.
const ajv = new Ajv2020({ strict: false, allErrors: true, coerceTypes: true });
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as unknown as (a: Ajv2020) => void;
addFormats(ajv);
ajv.addSchema(doc as object, 'trunk-openapi-v2');

const compiled = new Map<string, ReturnType<typeof ajv.compile>>();

const templates = Object.keys(doc.paths).map((template) => ({
  template,
  re: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
}));

function resolve(p: Parameter): Parameter {
  if (!p.$ref) return p;
  const name = p.$ref.split('/').pop() ?? '';
  return doc.components?.parameters?.[name] ?? p;
}

/** The operationId a request is for, or undefined when the document has no such operation. */
export function v2OperationOf(method: string, pathAndQuery: string): string | undefined {
  const path = pathAndQuery.split('?')[0] ?? '';
  const hit = templates.find((t) => t.re.test(path));
  return hit ? doc.paths[hit.template]?.[method.toLowerCase()]?.operationId : undefined;
}

/** What is wrong with one v2 request (empty when it is valid for the document). */
export function v2RequestErrors(method: string, pathAndQuery: string): string[] {
  const url = new URL(pathAndQuery, 'http://x');
  const hit = templates.find((t) => t.re.test(url.pathname));
  if (!hit) return [`${method} ${url.pathname}: no such path in the v2 document`];
  const op = doc.paths[hit.template]?.[method.toLowerCase()];
  if (!op) return [`${method} ${hit.template}: no such method in the v2 document`];
  const params = (op.parameters ?? []).map(resolve).filter((p) => p.in === 'query');
  const errors: string[] = [];
  for (const name of new Set(url.searchParams.keys()))
    if (!params.some((p) => p.name === name))
      errors.push(`${op.operationId}: undeclared query parameter ${name}`);
  for (const p of params) {
    const value = url.searchParams.get(p.name);
    if (value === null) {
      if (p.required) errors.push(`${op.operationId}: required query parameter ${p.name} missing`);
      continue;
    }
    const key = `${op.operationId}.${p.name}`;
    let validate = compiled.get(key);
    if (!validate) {
      // Wrapped in an object so coercion can replace the value in place.
      validate = ajv.compile({ type: 'object', properties: { v: p.schema ?? {} } });
      compiled.set(key, validate);
    }
    if (!validate({ v: value }))
      errors.push(`${op.operationId}: ${p.name}=${value} ${ajv.errorsText(validate.errors)}`);
  }
  return errors;
}

const bodyValidators = new Map<string, ReturnType<typeof ajv.compile>>();

function validatorFor(ref: string): ReturnType<typeof ajv.compile> {
  let v = bodyValidators.get(ref);
  if (!v) {
    v = ajv.compile({ $ref: `trunk-openapi-v2${ref}` });
    bodyValidators.set(ref, v);
  }
  return v;
}

function operationAt(method: string, pathAndQuery: string) {
  const path = pathAndQuery.split('?')[0] ?? '';
  const hit = templates.find((t) => t.re.test(path));
  return hit
    ? (doc.paths[hit.template]?.[method.toLowerCase()] as Record<string, unknown> | undefined)
    : undefined;
}

/** What is wrong with a write's JSON body (empty when it is valid for the operation's request schema). */
export function v2RequestBodyErrors(method: string, pathAndQuery: string, body: unknown): string[] {
  const op = operationAt(method, pathAndQuery);
  if (!op) return [`${method} ${pathAndQuery}: no such operation in the v2 document`];
  const schema = (
    op['requestBody'] as { content?: Record<string, { schema?: { $ref?: string } }> } | undefined
  )?.content?.['application/json']?.schema?.$ref;
  if (!schema) return body === undefined ? [] : [`${op['operationId']}: takes no body`];
  const v = validatorFor(schema.replace(/^#/, '#'));
  return v(body) ? [] : [`${op['operationId']} body: ${ajv.errorsText(v.errors)}`];
}

/** What is wrong with an answer of `status` (empty when valid for the documented response schema, or none is documented). */
export function v2ResponseErrors(
  method: string,
  pathAndQuery: string,
  status: number,
  body: unknown,
): string[] {
  const op = operationAt(method, pathAndQuery);
  if (!op) return [`${method} ${pathAndQuery}: no such operation in the v2 document`];
  const responses = op['responses'] as Record<
    string,
    { content?: Record<string, { schema?: { $ref?: string } }> }
  >;
  const schema = responses?.[String(status)]?.content?.['application/json']?.schema?.$ref;
  if (!schema) return [];
  const v = validatorFor(schema);
  return v(body) ? [] : [`${op['operationId']} ${status}: ${ajv.errorsText(v.errors)}`];
}
