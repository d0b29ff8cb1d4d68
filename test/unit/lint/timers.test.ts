// Every timer in the product whose delay a user, a policy or a peer gives goes through
// shared/config/long-timeout.ts: Node fires a setTimeout (or setInterval, or AbortSignal.timeout)
// longer than 2^31-1 ms after 1 ms, and `--descheduling-interval 720h` once cycled every
// millisecond. A bare timer is allowed only where its delay is bounded below that, said here
// with its bound, as data: a new bare timer fails this test until it is either moved to the
// helper or listed with the reason it cannot overflow.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** File -> why its bare timers cannot reach 2^31-1 ms (~24.8 days). */
const BOUNDED: Record<string, string> = {
  'shared/config/long-timeout.ts': 'the helper itself: never asks for more than MAX_TIMEOUT_MS',
  'shared/gcp/metadata-token.ts': 'a constant TIMEOUT_MS',
  'shared/gcp/pubsub-publish.ts': 'a constant TIMEOUT_MS',
  'shared/runtime/configmap-policy-source.ts': 'the watch restarts after 0 or 1000 ms',
  'shared/notify/outbox.ts': 'EVENTS_FLUSH_MS (max 10 s) and EVENTS_SEND_TIMEOUT_SECONDS (max 60) by their schemas',
  'shared/cleanup/due/io/tick-loop.ts':
    'a wait within the tick (pods and objects): DUE_POLL_SECONDS (max 60) or an entry within DUE_HORIZON_SECONDS (max 24 h)',
  'shared/cleanup/due/io/timers.ts': 'armOf caps a timer at the horizon, DUE_HORIZON_SECONDS (max 24 h); beyond, it fires only to look again',
  'shared/metrics/recorder.ts': 'the push cap (2 s by default, constants at every call) and 500 ms at shutdown',
  'shared/metrics/sampled-log.ts': "a sampler's window: constants (60 s) at every call",
  'shared/serve/http/auth.ts': 'a constant 5 s',
  'shared/hosts/descheduler/main.ts': 'the exit grace, 1 s',
  'shared/hosts/server/warm.ts': 'a constant LAZY_CLIENT_WARM_MS',
  'shared/hosts/cli/exec-credential.ts': 'a constant KILL_GRACE_MS',
  'shared/hosts/cli/main.ts': 'the exit grace, 1 s',
  'shared/hosts/standalone/release-check.ts': 'a constant TIMEOUT_MS',
  'shared/cleanup/io/shards.ts': 'a constant POST_TIMEOUT_MS',
  'shared/brakes/io/brakes.ts': 'a brakes window (max 168 h by the policy schema, 604,800,000 ms), BRAKES_HOLD_SECONDS (max 3600) and a 2 s idle',
  'infra/local/demo/evacuation.ts': 'a demo: 1 s',
  'infra/local/demo/demo.ts': 'a demo: 5 s',
  'infra/local/demo/multikueue.ts': 'a demo: 1 s',
};

const BARE = /(?<![.\w])setTimeout\(|(?<![.\w])setInterval\(|AbortSignal\.timeout\(/;

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.test.ts'))
    .map((e) => relative(ROOT, join(e.parentPath, e.name)));
}

describe('timers whose delay is given are waited out in steps (config/long-timeout.ts)', () => {
  const files = ['shared', 'functions', 'infra'].flatMap(sources);

  it('no bare setTimeout, setInterval or AbortSignal.timeout outside the files listed with their bound', () => {
    const bare = files.filter((f) => BARE.test(readFileSync(join(ROOT, f), 'utf8')));
    expect(bare.filter((f) => !(f in BOUNDED))).toEqual([]);
  });

  it('lists no file that has none left (the list stays the truth)', () => {
    const stale = Object.keys(BOUNDED).filter((f) => !BARE.test(readFileSync(join(ROOT, f), 'utf8')));
    expect(stale).toEqual([]);
  });
});
