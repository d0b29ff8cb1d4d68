import { describe, expect, it } from 'vitest';
import { reportsServed } from './reports.js';

// The API server answers a resource it does not serve (no CRD) with a bare 404 "page not found".
const answering = (outcome: 'items' | number) => ({
  listCustomObjectForAllNamespaces: () =>
    outcome === 'items'
      ? Promise.resolve({ items: [] })
      : Promise.reject(Object.assign(new Error(`HTTP ${outcome}`), { code: outcome, body: '404 page not found' })),
});

describe('reportsServed', () => {
  it('is true when the list answers', async () => {
    expect(await reportsServed(answering('items') as never)).toBe(true);
  });

  it('is false on a 404: the OpenReports CRD is not installed', async () => {
    expect(await reportsServed(answering(404) as never)).toBe(false);
  });

  it('throws any other failure, as every read does', async () => {
    await expect(reportsServed(answering(503) as never)).rejects.toThrow(/list reports/);
  });
});
