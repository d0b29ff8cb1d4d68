// The image's entry (dist/bundle/server.mjs): turns on V8's compile cache, then loads the
// bundle. Parsing and compiling the bundle (0.8 MB; the rest waits in chunks/) is a large part of a cold start;
// with the cache (warmed when the image is built) Node 22 reads compiled code instead.
// NODE_COMPILE_CACHE, when set, wins; on Node without the API this is a plain import.
import module from 'node:module';
import process from 'node:process';
import { fileURLToPath, URL } from 'node:url';

module.enableCompileCache?.(process.env.NODE_COMPILE_CACHE || fileURLToPath(new URL('./.compile-cache', import.meta.url)));
await import('./app.mjs');
