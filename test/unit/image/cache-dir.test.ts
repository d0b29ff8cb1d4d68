// Where the daemon-less build keeps its caches: under the same root as the control plane's
// (infra/local/versions.ts cacheRoot), so one XDG_CACHE_HOME rule holds for every cache. An empty
// XDG_CACHE_HOME is unset (the XDG rule), not a path relative to wherever the build was started.
import { isAbsolute, join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { imageCache } from '../../../infra/image/tools.js';
import { cacheRoot } from '../../../infra/local/versions.js';

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("the image build's cache folders", () => {
  it('are under the control plane cache root', () => {
    vi.stubEnv('XDG_CACHE_HOME', '/var/cache/someone');
    expect(imageCache('image')).toBe(join(cacheRoot(), 'image'));
    expect(imageCache('image')).toBe('/var/cache/someone/kube-tidy/image');
  });

  it('are absolute when XDG_CACHE_HOME is set but empty (never a folder of the current directory)', () => {
    vi.stubEnv('XDG_CACHE_HOME', '');
    expect(isAbsolute(imageCache('image-run'))).toBe(true);
    expect(imageCache('image-run')).toBe(join(cacheRoot(), 'image-run'));
  });
});
