import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

type Json = Record<string, any>;

export const documentPath = new URL('../../docs/openapi.json', import.meta.url);

export function committedDocument(): Json {
  return JSON.parse(readFileSync(documentPath, 'utf8')) as Json;
}

const documentId = 'https://licensing.invalid/openapi.json';

/** JSON Pointer escaping (RFC 6901) of one reference token. */
const token = (value: string) => value.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Ajv (JSON Schema 2020-12, the dialect of OpenAPI 3.1) over the whole document,
 * so a schema anywhere in it is compiled with its `#/components/...` references.
 * Strict: a keyword Ajv does not know fails the compile instead of being ignored.
 */
export function documentValidator(document: Json) {
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
  addFormats.default(ajv);
  ajv.addVocabulary(['openapi', 'info', 'servers', 'tags', 'paths', 'components']);
  ajv.addSchema(document, documentId);
  const compiled = new Map<string, ValidateFunction>();
  const at = (pointer: string): ValidateFunction => {
    let validate = compiled.get(pointer);
    if (!validate) {
      validate = ajv.compile({ $ref: `${documentId}#${pointer}` });
      compiled.set(pointer, validate);
    }
    return validate;
  };
  const operation = (path: string) => document.paths[path]?.post as Json | undefined;

  return {
    /** Problems with an answer of `path`: undocumented status, missing required header, body outside its schema. */
    answerProblems(path: string, status: number, headers: Headers, body: unknown): string[] {
      const response = operation(path)?.responses?.[String(status)] as Json | undefined;
      if (!response) return [`${path}: status ${status} is not documented`];
      const problems: string[] = [];
      for (const [name, header] of Object.entries((response.headers ?? {}) as Json)) {
        const definition = header.$ref ? document.components.headers[header.$ref.split('/').pop()] : header;
        const value = headers.get(name);
        if (value === null) {
          if (definition.required) problems.push(`${path} ${status}: header ${name} is missing`);
          continue;
        }
        const pointer = header.$ref ? `/components/headers/${token(name)}/schema` : `/paths/${token(path)}/post/responses/${status}/headers/${token(name)}/schema`;
        if (!at(pointer)(value)) problems.push(`${path} ${status}: header ${name}: ${ajv.errorsText(at(pointer).errors)}`);
      }
      const validate = at(`/paths/${token(path)}/post/responses/${status}/content/application~1json/schema`);
      if (!validate(body)) problems.push(`${path} ${status}: ${ajv.errorsText(validate.errors, { separator: '; ' })} in ${JSON.stringify(body).slice(0, 400)}`);
      return problems;
    },
    /** Problems with a request body of `path` against its documented schema. */
    requestProblems(path: string, body: unknown): string[] {
      const validate = at(`/paths/${token(path)}/post/requestBody/content/application~1json/schema`);
      return validate(body) ? [] : [`${path} request: ${ajv.errorsText(validate.errors, { separator: '; ' })}`];
    },
    /** Every example of the document against the schema beside it. */
    exampleProblems(): string[] {
      const problems: string[] = [];
      for (const [path, item] of Object.entries(document.paths as Json)) {
        const body = item.post.requestBody.content['application/json'];
        if (body.example !== undefined) problems.push(...this.requestProblems(path, body.example));
        for (const [status, response] of Object.entries(item.post.responses as Json)) {
          const example = response.content?.['application/json']?.example;
          if (example === undefined) continue;
          const validate = at(`/paths/${token(path)}/post/responses/${status}/content/application~1json/schema`);
          if (!validate(example)) problems.push(`${path} ${status} example: ${ajv.errorsText(validate.errors)}`);
        }
      }
      return problems;
    },
  };
}
