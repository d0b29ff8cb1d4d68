'use strict';
// The image's entry (dist/bundle/server.cjs). It runs the bundle (app.cjs, and client.cjs when
// the Kubernetes client is first needed) from V8 code caches warmed at image build (warm.cjs),
// one per target and file. Why not Node's own compile cache: that one is written when a file
// is compiled, before it runs, so it holds only top-level code; every function a start and the
// first request call (Express, zod, our handlers) was still compiled on the spot. V8's
// `createCachedData()` taken after the first request holds those too. A cache V8 rejects
// (other Node, other V8 flags) is ignored and the code compiled as usual; the "serving" log
// line says which happened (codeCache).
const { createHash } = require('node:crypto');
const { mkdirSync, readFileSync, renameSync, writeFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const { dirname, join } = require('node:path');
const { constants: vmConstants, Script } = require('node:vm');

// Replaced by infra/bundle/build.ts with a hash of the bundle: V8 checks a cache against the
// source's length only, so a cache from another build must never be picked up.
const BUILD = '__KUBE_TIDY_BUILD__';
// Packages bundled into files of their own, read only when first required: this line is
// rewritten by build.ts from its SEPARATE, the one list.
const SEPARATE = { '@kubernetes/client-node': 'client' };

const target = process.env.FUNCTION_TARGET ?? '';
const writeCache = process.env.KUBE_TIDY_WRITE_CODE_CACHE === '1';
const nodeRequire = createRequire(__filename);
const status = {};
globalThis[Symbol.for('kube-tidy.codeCache')] = status;
const loaded = new Map();

function requireBundled(id) {
  const name = SEPARATE[id];
  if (!name) return nodeRequire(id);
  if (!loaded.has(name)) loaded.set(name, run(name));
  return loaded.get(name);
}

// A cache file is the SHA-256 of V8's data, then the data. Release builds of V8 do not verify
// a cache's checksum, and a damaged one crashes the process: it is checked here (about 1 ms a MB).
const sha256 = (data) => createHash('sha256').update(data).digest();

function readCache(file) {
  try {
    const bytes = readFileSync(file);
    const data = bytes.subarray(32);
    return sha256(data).equals(bytes.subarray(0, 32)) ? data : null;
  } catch {
    return undefined;
  }
}

/** Runs <name>.cjs as a CommonJS module and returns its exports. */
function run(name) {
  const file = join(__dirname, `${name}.cjs`);
  const cacheFile = /^[A-Za-z]+$/.test(target) ? join(__dirname, 'code-cache', `${target}-${name}-${BUILD}.bin`) : undefined;
  const cachedData = cacheFile ? readCache(cacheFile) : undefined;
  // The CommonJS wrapper, on the source's first line so line numbers in stack traces hold.
  // A Script has no loader for import() unless given one: the OTLP exporter's `import("http")`
  // (left as is by esbuild) threw, and no metrics were ever pushed. Node's own loader, as a file has.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${readFileSync(file, 'utf8')}\n})`, {
    filename: file,
    cachedData: cachedData ?? undefined,
    importModuleDynamically: vmConstants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  status[name] = cachedData === undefined ? 'none' : cachedData === null || script.cachedDataRejected ? 'rejected' : 'accepted';
  if (cacheFile && writeCache) {
    // At exit, after the first requests: the cache then holds every function compiled so far.
    // Only after a clean stop: a start that failed compiled the wrong paths.
    process.once('exit', (code) => {
      if (code !== 0) return;
      mkdirSync(dirname(cacheFile), { recursive: true });
      const data = script.createCachedData();
      writeFileSync(`${cacheFile}.tmp`, Buffer.concat([sha256(data), data]));
      renameSync(`${cacheFile}.tmp`, cacheFile);
    });
  }
  const mod = { exports: {}, filename: file, id: file, loaded: false };
  script.runInThisContext()(mod.exports, requireBundled, mod, file, __dirname);
  mod.loaded = true;
  return mod.exports;
}

run('app');
