// Starting floor-receiver.mjs (the event path's floor, issue 45 item 6) as its own process on
// the sweep's Node 22, handed the connection of `kubeconfigPath`'s user as the ceiling's
// client is, and stopped with SIGTERM.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { node22 } from '../../../infra/bundle/node22.js';
import { connection } from '../scale/ceiling.js';
import type { Served } from './serve.js';

const RECEIVER = fileURLToPath(new URL('./floor-receiver.mjs', import.meta.url));

export async function floorReceiver(kubeconfigPath: string): Promise<Served> {
  const child = spawn(node22(), [RECEIVER], { env: { PATH: process.env.PATH }, stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.stdin.end(JSON.stringify(await connection(kubeconfigPath)));
  const port = await new Promise<number>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', (l) => resolve((JSON.parse(l) as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`floor-receiver.mjs exited ${code} before listening`)));
  });
  return {
    url: `http://127.0.0.1:${port}/`,
    pid: child.pid!,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
