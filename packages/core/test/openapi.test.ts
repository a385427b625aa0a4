import { validate } from '@readme/openapi-parser';
import { describe, expect, it } from 'vitest';
import { ENDPOINT_LIST } from '../src/endpoints.ts';
import { ClickDetails, OpenDetails } from '../src/events.ts';
import { TeamMember } from '../src/member.ts';
import { openApiDocument } from '../src/openapi.ts';
import { defaultQueryParams } from '../src/params.ts';

// biome-ignore lint/suspicious/noExplicitAny: the test walks a plain JSON document
type Json = Record<string, any>;
const doc = openApiDocument() as Json;

describe('openApiDocument', () => {
  it('is a valid OpenAPI 3.1 document (@readme/openapi-parser)', async () => {
    const result = await validate(structuredClone(doc) as never);
    expect('errors' in result ? result.errors : []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe('3.1.0');
  });

  it('fails validation when broken, so the check above can fail', async () => {
    const broken = structuredClone(doc);
    broken.paths['/teams'].get.responses['200'].content['application/json'].schema = {
      $ref: '#/components/schemas/NoSuchSchema',
    };
    expect((await validate(broken as never)).valid).toBe(false);
  });

  it('has one GET operation for each of the 17 catalogue paths, and no other path', () => {
    expect(Object.keys(doc.paths).sort()).toEqual(ENDPOINT_LIST.map((e) => e.path).sort());
    expect(Object.keys(doc.paths)).toHaveLength(17);
    expect(doc.paths['/teams/stats']).toBeDefined();
    for (const e of ENDPOINT_LIST) {
      expect(Object.keys(doc.paths[e.path]), e.path).toEqual(['get']);
      expect(doc.paths[e.path].get.operationId).toBe(e.id);
    }
  });

  it('lists every path and query parameter of each endpoint, with required flags', () => {
    for (const e of ENDPOINT_LIST) {
      const params = doc.paths[e.path].get.parameters as Json[];
      const path = params.filter((p) => p.in === 'path');
      const query = params.filter((p) => p.in === 'query');
      expect(path.map((p) => p.name)).toEqual([...e.pathParams]);
      expect(path.every((p) => p.required === true)).toBe(true);
      expect(query.map((p) => p.name).sort()).toEqual([...e.query].sort());
      for (const p of query)
        expect(p.required, `${e.id} ${p.name}`).toBe(e.requiredQuery.includes(p.name));
    }
    const daily = doc.paths['/tags/daily/{tagID}'].get.parameters as Json[];
    expect(daily.find((p) => p.name === 'date')?.required).toBe(true);
  });

  it('gives query parameters their enum, format and default', () => {
    const params = doc.paths['/stats'].get.parameters as Json[];
    const byName = (n: string) => params.find((p) => p.name === n)!;
    expect(byName('rtn').schema).toEqual({ $ref: '#/components/schemas/Rtn', default: 'json' });
    expect(doc.components.schemas.Rtn.enum).toEqual(['json', 'text', 'html']);
    expect(doc.components.schemas.AccountType.enum).toEqual(['admin', 'manager', 'user']);
    expect(doc.components.schemas.CalendarDate.format).toBe('date');
    expect(byName('aggregateData').schema.default).toBe(String(defaultQueryParams().aggregateData));
    const pattern = new RegExp(byName('aggregateData').schema.pattern);
    for (const ok of ['true', 'FALSE', 'True', '1', '0']) expect(pattern.test(ok)).toBe(true);
    for (const bad of ['yes', '2', '']) expect(pattern.test(bad)).toBe(false);
    expect(byName('cursor').schema.default).toBe('0');
  });

  it('derives component schemas from zod, counry included', () => {
    const { schemas } = doc.components;
    for (const [id, schema] of [
      ['ClickDetails', ClickDetails],
      ['OpenDetails', OpenDetails],
      ['TeamMember', TeamMember],
    ] as const) {
      expect(Object.keys(schemas[id].properties)).toEqual(Object.keys(schema.shape));
    }
    expect(schemas.ClickDetails.properties.counry).toMatchObject({ type: 'string' });
    expect(schemas.OpenDetails.required).toContain('counry');
    expect(schemas.TeamMember.required).not.toContain('groupID');
    expect(schemas.StatsSummary.properties.dateLastSent).toBeDefined();
    expect(JSON.stringify(doc)).not.toContain('__shared');
  });

  it('answers 200 in json, text and html, with the envelope of the endpoint', () => {
    for (const e of ENDPOINT_LIST) {
      const ok = doc.paths[e.path].get.responses['200'];
      expect(Object.keys(ok.content).sort()).toEqual([
        'application/json',
        'text/html',
        'text/plain',
      ]);
      const envelope = ok.content['application/json'].schema.$ref.split('/').pop();
      const schema = doc.components.schemas[envelope];
      expect(schema.required).toEqual(e.response === 'list' ? ['data', 'paging'] : ['data']);
      if (e.response === 'list') expect(Object.keys(ok.headers)).toEqual(['X-Total-Count', 'Link']);
    }
  });

  it('documents the error statuses with ErrorBody and the Authorization security scheme', () => {
    for (const e of ENDPOINT_LIST) {
      const { responses } = doc.paths[e.path].get;
      const statuses = ['200', '400', '401', '404', '405', '429'];
      // list endpoints also document the 204 of paging end no-content (spec §5 Revision 2)
      if (e.response === 'list') statuses.splice(1, 0, '204');
      expect(Object.keys(responses).sort()).toEqual(statuses);
      if (e.response === 'list') expect(responses['204'].headers['X-Total-Count']).toBeDefined();
      else expect(responses['200'].headers).toBeUndefined();
    }
    for (const r of Object.values(doc.components.responses) as Json[]) {
      expect(r.content['application/json'].schema).toEqual({
        $ref: '#/components/schemas/ErrorBody',
      });
    }
    expect(doc.components.responses.TooManyRequests.headers['Retry-After']).toBeDefined();
    expect(doc.components.responses.MethodNotAllowed.headers.Allow).toBeDefined();
    expect(doc.components.schemas.ErrorBody.required).toEqual(['statusCode', 'error', 'message']);
    expect(doc.components.securitySchemes.signature).toMatchObject({
      type: 'apiKey',
      in: 'header',
      name: 'Authorization',
    });
    expect(doc.security).toEqual([{ signature: [] }]);
  });

  it('uses the given server URL and is JSON-serialisable', () => {
    const d = openApiDocument({ serverUrl: 'http://127.0.0.1:8080' }) as Json;
    expect(d.servers).toEqual([{ url: 'http://127.0.0.1:8080' }]);
    expect(JSON.parse(JSON.stringify(d))).toEqual(d);
  });
});
