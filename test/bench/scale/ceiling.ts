// The ceiling (issue 35): plain-client.mjs, a process of its own on the sweep's Node 22, so
// that what it does is plainly an HTTP client's and its CPU is its own (not the bench's). The
// bench reads the kubeconfig with client-node's KubeConfig, as any client would, and hands the
// child only the connection: server, CA, client certificate and key or the Authorization header.
import { spawn } from 'node:child_process';
import type { RequestOptions } from 'node:https';
import { fileURLToPath } from 'node:url';
import { KubeConfig } from '@kubernetes/client-node';
import { node22 } from '../../../infra/bundle/node22.js';

const CLIENT = fileURLToPath(new URL('./plain-client.mjs', import.meta.url));

/** What plain-client.mjs prints (its CPU in ms, from process.cpuUsage()). */
export interface PlainRun {
  listed: number;
  deleted: number;
  /** Answers other than 200/202, by status. */
  failed: Record<string, number>;
  pages: number;
  listSeconds: number;
  writeSeconds: number;
  /** deleteSystem: the kernel's part of `delete` (its system calls). */
  cpuMs: { list: number; delete: number; deleteSystem: number; process: number };
  peakRssMiB: number;
}

const text = (b: unknown): string | undefined => (b === undefined ? undefined : Buffer.isBuffer(b) ? b.toString('utf8') : String(b));

/** The connection plain-client.mjs needs, from a kubeconfig's current context. */
export async function connection(kubeconfigPath: string) {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  const opts: RequestOptions = {};
  await kc.applyToHTTPSOptions(opts);
  const authorization = (opts.headers as Record<string, string> | undefined)?.Authorization;
  return { server: kc.getCurrentCluster()!.server, ca: text(opts.ca), cert: text(opts.cert), key: text(opts.key), authorization };
}

/** Runs plain-client.mjs against the cluster of `kubeconfigPath`, as its user: LIST the Failed scale pods, DELETE them. */
export async function plainClient(kubeconfigPath: string): Promise<PlainRun> {
  const input = JSON.stringify(await connection(kubeconfigPath));
  const child = spawn(node22(), [CLIENT], { env: { PATH: process.env.PATH }, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += String(d)));
  child.stderr.on('data', (d: Buffer) => (err += String(d)));
  const code = await new Promise<number | null>((resolve) => {
    child.once('close', resolve);
    child.stdin.end(input);
  });
  if (code !== 0) throw new Error(`plain-client.mjs exited ${code}: ${err.slice(-2000)}`);
  return JSON.parse(out.trim().split('\n').at(-1)!) as PlainRun;
}
