import { randomBytes } from 'node:crypto';
import type { Env } from './env.js';

/** A fresh namespace of the same name in the manager and both workers. */
export async function namespaceEverywhere(env: Env, prefix: string): Promise<string> {
  const name = `${prefix}-${randomBytes(3).toString('hex')}`;
  for (const a of [env.manager, ...env.workers]) await a.core.createNamespace({ body: { metadata: { name } } });
  return name;
}
