// KeepAliveAgents hands out one kept-alive agent per TLS identity.
import { Agent as HttpAgent } from 'node:http';
import { Agent } from 'node:https';
import { afterEach, describe, expect, it } from 'vitest';
import { KeepAliveAgents } from './agent.js';

const agents = new KeepAliveAgents();
afterEach(() => agents.destroy());

class ProxyAgent extends Agent {}

describe('KeepAliveAgents.reuse', () => {
  it('gives the same keep-alive agent for the same TLS options', () => {
    const a = agents.reuse(new Agent({ ca: 'CA1', rejectUnauthorized: true }));
    const b = agents.reuse(new Agent({ ca: 'CA1', rejectUnauthorized: true }));
    expect(a).toBe(b);
    expect((a as Agent & { keepAlive: boolean }).keepAlive).toBe(true);
    expect((a as Agent).options.ca).toBe('CA1');
  });

  it('compares certificates as bytes (client-node decodes them into new Buffers for every request)', () => {
    const a = agents.reuse(new Agent({ ca: Buffer.from('CA1'), cert: Buffer.from('C1'), key: Buffer.from('K1') }));
    expect(agents.reuse(new Agent({ ca: Buffer.from('CA1'), cert: Buffer.from('C1'), key: Buffer.from('K1') }))).toBe(a);
    expect(agents.reuse(new Agent({ ca: Buffer.from('CA1'), cert: Buffer.from('C1'), key: Buffer.from('K2') }))).not.toBe(a);
    // Where one field ends and the next begins is part of the key.
    expect(agents.reuse(new Agent({ ca: Buffer.from('CA1C'), cert: Buffer.from('1'), key: Buffer.from('K1') }))).not.toBe(a);
  });

  for (const row of [
    { sentence: 'another CA gets another agent', other: { ca: 'CA2' } },
    { sentence: 'another client certificate gets another agent', other: { ca: 'CA1', cert: 'C2', key: 'K2' } },
    { sentence: 'skipping TLS verification gets another agent', other: { ca: 'CA1', rejectUnauthorized: false } },
  ]) {
    it(row.sentence, () => {
      expect(agents.reuse(new Agent({ ca: 'CA1' }))).not.toBe(agents.reuse(new Agent(row.other)));
    });
  }

  for (const row of [
    { sentence: 'a proxy agent (a subclass) is left alone', fresh: new ProxyAgent() },
    { sentence: 'a plain http agent is left alone', fresh: new HttpAgent() },
  ]) {
    it(row.sentence, () => {
      expect(agents.reuse(row.fresh)).toBe(row.fresh);
    });
  }
});
