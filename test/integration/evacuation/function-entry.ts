// The evacuation target as its own functions-framework process (loaded with --source through
// tsx), for the test that kills a function mid-evacuation with SIGKILL. The same runtime and
// handler as production; registered here because functions/targets.ts's TARGETS must match
// serverless.yml, which the deployment work owns (see README, "Evacuation").
import { http } from '@google-cloud/functions-framework';
import { evacuation } from '../../../functions/evacuation.js';
import { startRuntime } from '../../../shared/runtime/runtime.js';

http('evacuation', evacuation(await startRuntime()));
