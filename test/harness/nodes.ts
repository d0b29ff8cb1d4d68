// Fake nodes: plain Node objects carrying the annotation kwok watches for; kwok then fills
// in their status (Ready, capacity) from kwok-stages.yaml and runs the pods bound to them.
import { KWOK_NODE_ANNOTATION } from './components.js';
import { kubeRequest, type Endpoint } from './kube-http.js';
import { waitFor } from './wait.js';

export async function createKwokNodes(endpoint: Endpoint, cluster: string, count: number): Promise<string[]> {
  const names = Array.from({ length: count }, (_, i) => `kwok-${cluster}-${i}`);
  for (const name of names) {
    const body = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        name,
        annotations: { [KWOK_NODE_ANNOTATION]: 'fake', 'node.alpha.kubernetes.io/ttl': '0' },
        labels: { type: 'kwok', 'kubernetes.io/hostname': name, 'kubernetes.io/os': 'linux' },
      },
    };
    const reply = await kubeRequest(endpoint, 'POST', '/api/v1/nodes', body);
    if (reply.status !== 201 && reply.status !== 409) {
      throw new Error(`creating node ${name}: ${reply.status} ${reply.body}`);
    }
  }
  return names;
}

interface NodeList {
  items: { metadata: { name: string }; status?: { conditions?: { type: string; status: string }[] } }[];
}

export async function waitForNodesReady(endpoint: Endpoint, names: string[]): Promise<void> {
  await waitFor(`kwok nodes ${names.join(', ')} Ready`, async () => {
    const reply = await kubeRequest(endpoint, 'GET', '/api/v1/nodes');
    if (reply.status !== 200) return false;
    const list = JSON.parse(reply.body) as NodeList;
    const ready = new Set(list.items.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).map((n) => n.metadata.name));
    return names.every((name) => ready.has(name));
  });
}
