// The event path's floor (issue 45, item 6): the least a receiver can do with the storm's
// events, so the kube-tidy rows can be read against it. Plain node:http in, plain node:https
// out (../plain-https.mjs: the ceiling's own client, 32 sockets kept alive), no framework,
// no Kubernetes client, no TypeScript loader, no checks, no log, no metrics: each POST's body
// read whole and JSON.parse'd (a binary-mode CloudEvent's data is the pod), one DELETE at the
// pod's uid and resourceVersion, and the answer `{"outcome":"deleted"}` (any other status:
// `{"outcome":"http <status>"}`). It decides nothing and trusts everything: it is a
// measuring stick, not a way to run.
//
// Its parent hands it the connection on stdin as plain-client.mjs's is handed, and reads one
// JSON line from stdout once it listens: { port }.
import { Buffer } from 'node:buffer';
import { createServer } from 'node:http';
import process from 'node:process';
import { plainHttps, readInput } from '../plain-https.mjs';

const { send } = plainHttps(await readInput());

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', async () => {
    let outcome;
    try {
      const { metadata } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const path = `/api/v1/namespaces/${metadata.namespace}/pods/${metadata.name}`;
      const { status } = await send('DELETE', path, { preconditions: { uid: metadata.uid, resourceVersion: metadata.resourceVersion } }, false);
      outcome = status === 200 || status === 202 ? 'deleted' : `http ${status}`;
    } catch (e) {
      outcome = `error ${e.message}`;
    }
    const body = JSON.stringify({ outcome });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(JSON.stringify({ port: server.address().port }) + '\n'));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
