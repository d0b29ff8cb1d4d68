// The licences of the packages a bundle carries: a bundle redistributes their code, so it ships
// their notices (MIT, ISC, BSD and Apache-2.0 all ask for that). Read from esbuild's metafile:
// every input under node_modules names its package; each package once, with its version, its
// declared licence and the text of its licence file (when it ships one).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Metafile } from 'esbuild';

export interface BundledPackage {
  name: string;
  version: string;
  license: string;
  /** The package's licence file, or undefined when it ships none. */
  text?: string;
}

/** The package folder of a metafile input: the part up to its last node_modules/<name> (or @scope/name). */
function packageDir(input: string): string | undefined {
  const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
  return m?.[1];
}

export function bundledPackages(root: string, metafiles: Metafile[]): BundledPackage[] {
  const dirs = new Set(metafiles.flatMap((m) => Object.keys(m.inputs).map(packageDir)).filter((d): d is string => d !== undefined));
  const out = new Map<string, BundledPackage>();
  for (const dir of [...dirs].sort()) {
    const manifest = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as { name: string; version: string; license?: string };
    const key = `${manifest.name}@${manifest.version}`;
    if (out.has(key)) continue;
    const file = readdirSync(join(root, dir)).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f));
    const text = file && existsSync(join(root, dir, file)) ? readFileSync(join(root, dir, file), 'utf8').trim() : undefined;
    out.set(key, { name: manifest.name, version: manifest.version, license: manifest.license ?? 'UNKNOWN', ...(text ? { text } : {}) });
  }
  return [...out.values()];
}

export function noticesText(packages: BundledPackage[]): string {
  const head = `Third-party software bundled in this package (${packages.length} packages), with their licences.\n`;
  return [
    head,
    ...packages.map(
      (p) =>
        `${'-'.repeat(72)}\n${p.name}@${p.version} (${p.license})\n\n${p.text ?? '(the package ships no licence file; its package.json declares the licence above)'}\n`,
    ),
  ].join('\n');
}
