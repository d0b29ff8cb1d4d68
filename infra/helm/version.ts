// One place for the Helm version and where its binary lives, so the build script and the
// tests always agree on the cache directory.
import { join } from 'node:path';
import { cacheRoot } from '../local/versions.js';

// Newest v4 tag on the Go module proxy (helm.sh/helm/v4/@v/list); its go.mod says go 1.26.0,
// so Go 1.26 builds it without a toolchain switch.
export const HELM_VERSION = 'v4.3.1';

export const helmDir = (): string => join(cacheRoot(), 'helm', HELM_VERSION);
export const helmBinDir = (): string => join(helmDir(), 'bin');
export const helmBin = (): string => join(helmBinDir(), 'helm');
export const helmStamp = (): string => join(helmDir(), 'complete.stamp');
