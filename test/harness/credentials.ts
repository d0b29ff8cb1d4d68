// Credentials of one test cluster, all generated fresh into its directory: a static token
// per identity (admin and kwok in system:masters; the controller manager and scheduler as
// their own users so the bootstrap RBAC roles apply) and the service-account signing keys.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';

export const IDENTITIES = {
  admin: { user: 'kube-tidy-admin', groups: ['system:masters'] },
  controllerManager: { user: 'system:kube-controller-manager', groups: [] },
  scheduler: { user: 'system:kube-scheduler', groups: [] },
  kwok: { user: 'kwok', groups: ['system:masters'] },
} as const;
export type Identity = keyof typeof IDENTITIES;

export interface Credentials {
  tokens: Record<Identity, string>;
  tokenFile: string;
  saPublicKey: string;
  saPrivateKey: string;
}

export function writeCredentials(dir: string): Credentials {
  const tokens = Object.fromEntries(Object.keys(IDENTITIES).map((id) => [id, randomBytes(24).toString('hex')])) as Record<Identity, string>;
  const lines = (Object.keys(IDENTITIES) as Identity[]).map((id) => {
    const { user, groups } = IDENTITIES[id];
    return `${tokens[id]},${user},${user}` + (groups.length ? `,"${groups.join(',')}"` : '');
  });
  const tokenFile = join(dir, 'tokens.csv');
  writeFileSync(tokenFile, lines.join('\n') + '\n', { mode: 0o600 });

  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const saPublicKey = join(dir, 'sa.pub');
  const saPrivateKey = join(dir, 'sa.key');
  writeFileSync(saPublicKey, publicKey);
  writeFileSync(saPrivateKey, privateKey, { mode: 0o600 });
  return { tokens, tokenFile, saPublicKey, saPrivateKey };
}

export function writeKubeconfig(path: string, name: string, server: string, ca: string, token: string): string {
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name, cluster: { server, 'certificate-authority-data': Buffer.from(ca).toString('base64') } }],
    users: [{ name, user: { token } }],
    contexts: [{ name, context: { cluster: name, user: name } }],
    'current-context': name,
  };
  writeFileSync(path, stringify(config), { mode: 0o600 });
  return path;
}

/** A kubeconfig at `path` for `token` against the cluster `kc` is current on (its server and CA). */
export function tokenKubeconfig(kc: { getCurrentCluster(): { server: string; caData?: string } | null }, path: string, name: string, token: string): string {
  const cluster = kc.getCurrentCluster()!;
  return writeKubeconfig(path, name, cluster.server, Buffer.from(cluster.caData ?? '', 'base64').toString('utf8'), token);
}
