// Free loopback ports for the components of a cluster. The kernel picks an unused port;
// ports handed out by this process are remembered so concurrent clusters never share one.
import { createServer } from 'node:net';

const handedOut = new Set<number>();

function onePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('no port assigned'));
      });
    });
  });
}

export async function freePorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  while (ports.length < count) {
    const port = await onePort();
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    ports.push(port);
  }
  return ports;
}
