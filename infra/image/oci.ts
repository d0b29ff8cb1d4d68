// The image as an OCI layout, packed by umoci: the cached base layout's two layers, then each
// step's layer (a reproducible tar, infra/image/tools.ts), then the config. Every time in it is
// the build's epoch (SOURCE_DATE_EPOCH: the last commit that changed the image's inputs), so the same layers and config give
// the same digests.
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ImageConfig } from './steps.js';
import { run } from './tools.js';

export interface PackedLayer {
  tar: string;
  createdBy: string;
}

export interface Packed {
  /** The manifest's digest: what `image@sha256:...` names. */
  digest: string;
  config: OciConfig;
  layers: { digest: string; size: number }[];
}

export interface OciConfig {
  architecture: string;
  created?: string;
  history?: { created?: string; created_by?: string }[];
  config: { Env?: string[]; Entrypoint?: string[]; Cmd?: string[]; User?: string; WorkingDir?: string; ExposedPorts?: Record<string, object> };
  rootfs: { diff_ids: string[] };
}

const blob = (layout: string, digest: string) => readFileSync(join(layout, 'blobs', 'sha256', digest.replace(/^sha256:/, '')), 'utf8');

/** The manifest and config tagged `tag` in `layout`. */
export function readImage(layout: string, tag: string): Packed {
  const index = JSON.parse(readFileSync(join(layout, 'index.json'), 'utf8')) as { manifests: { digest: string; annotations?: Record<string, string> }[] };
  const entry = index.manifests.find((m) => m.annotations?.['org.opencontainers.image.ref.name'] === tag);
  if (!entry) throw new Error(`${layout} has no image tagged ${tag}`);
  const manifest = JSON.parse(blob(layout, entry.digest)) as { config: { digest: string }; layers: { digest: string; size: number }[] };
  return { digest: entry.digest, config: JSON.parse(blob(layout, manifest.config.digest)) as OciConfig, layers: manifest.layers };
}

function configFlags(config: ImageConfig): string[] {
  const many = (flag: string, values: string[]) => values.flatMap((v) => [flag, v]);
  return [
    '--clear=config.env',
    ...many(
      '--config.env',
      Object.entries(config.env).map(([k, v]) => `${k}=${v}`),
    ),
    '--clear=config.entrypoint',
    ...many('--config.entrypoint', config.entrypoint),
    '--clear=config.cmd',
    ...many('--config.cmd', config.cmd),
    '--clear=config.exposedports',
    ...many(
      '--config.exposedports',
      config.ports.map((p) => `${p}/tcp`),
    ),
    ...(config.user ? ['--config.user', config.user] : []),
    ...(config.workdir ? ['--config.workingdir', config.workdir] : []),
  ];
}

/** A copy of `baseLayout` (tag `base`) with `layers` on top and `config`, tagged `tag` in `out`. */
export function pack(o: { baseLayout: string; out: string; tag: string; layers: PackedLayer[]; config: ImageConfig; epoch: number }): Packed {
  const at = new Date(o.epoch * 1000).toISOString();
  cpSync(o.baseLayout, o.out, { recursive: true });
  run('umoci', ['tag', '--image', `${o.out}:base`, o.tag]);
  run('umoci', ['rm', '--image', `${o.out}:base`]);
  const image = `${o.out}:${o.tag}`;
  for (const layer of o.layers)
    run('umoci', ['raw', 'add-layer', '--image', image, '--history.created', at, '--history.created_by', layer.createdBy, layer.tar]);
  run('umoci', ['config', '--image', image, '--created', at, '--no-history', ...configFlags(o.config)]);
  run('umoci', ['gc', '--layout', o.out]);
  return readImage(o.out, o.tag);
}
