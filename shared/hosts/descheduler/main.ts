// /bin/descheduler in the image (infra/bundle/build.ts bundles this file as descheduler.cjs
// with a `#!/usr/bin/env node` line): `kube-tidy descheduler` as its own program, so a
// descheduler Deployment, CronJob or Helm chart runs it by changing only the image.
import { MetricsRecorder } from '../../metrics/recorder.js';
import { deschedulerCommand } from './index.js';

const metrics = new MetricsRecorder(process.env);
void deschedulerCommand(process.argv.slice(2), { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s), metrics }).then((code) => {
  process.exitCode = code;
  // Whatever is still being closed (a kept-alive socket) does not hold the exit.
  setTimeout(() => process.exit(code), 1000).unref();
});
