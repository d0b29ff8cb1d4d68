import { z } from 'zod';
import { ExitCodeSchema, NamespacesSchema, SecondsSchema } from '../../policy/common.js';
import { LabelSelectorSchema } from '../../policy/label-selector.js';

// PodLifeTime's arguments as of descheduler v0.36.

export const POD_LIFETIME_STATES = [
  // phases
  'Running',
  'Pending',
  'Succeeded',
  'Failed',
  'Unknown',
  // pod status reasons
  'NodeAffinity',
  'NodeLost',
  'Shutdown',
  'UnexpectedAdmissionError',
  // container waiting reasons
  'PodInitializing',
  'ContainerCreating',
  'ImagePullBackOff',
  'CrashLoopBackOff',
  'CreateContainerConfigError',
  'ErrImagePull',
  'CreateContainerError',
  'InvalidImageName',
  // container terminated reasons
  'OOMKilled',
  'Error',
  'Completed',
  'DeadlineExceeded',
  'Evicted',
  'ContainerCannotRun',
  'StartError',
] as const;

export const ConditionFilterSchema = z
  .strictObject({
    type: z.string().min(1).optional(),
    status: z.string().min(1).optional(),
    reason: z.string().min(1).optional(),
    /** The condition has held at least this long. */
    minTimeSinceLastTransitionSeconds: SecondsSchema.optional(),
  })
  .refine((f) => Object.values(f).some((v) => v !== undefined), {
    message: 'at least one of type, status, reason or minTimeSinceLastTransitionSeconds must be set',
  });

export const OwnerKindsSchema = z
  .strictObject({
    include: z.array(z.string().min(1)).optional(),
    exclude: z.array(z.string().min(1)).optional(),
  })
  .refine((o) => !(o.include?.length && o.exclude?.length), { message: 'only one of include/exclude may be set' });

export const PodLifeTimeArgsSchema = z
  .strictObject({
    /** Pods older than this (seconds since creation) are selected. */
    maxPodLifeTimeSeconds: SecondsSchema.optional(),
    /** Pod phases, pod status reasons and container waiting or terminated reasons; any one matches. */
    states: z.array(z.enum(POD_LIFETIME_STATES)).optional(),
    /** Pod conditions by type, status and reason; any one matches. */
    conditions: z.array(ConditionFilterSchema).optional(),
    /** Containers' exit codes, or ranges such as "128-255"; any one matches. */
    exitCodes: z.array(ExitCodeSchema).optional(),
    /** The owners' kinds to include or to exclude (one of the two). */
    ownerKinds: OwnerKindsSchema.optional(),
    namespaces: NamespacesSchema.optional(),
    labelSelector: LabelSelectorSchema.optional(),
    /** Init containers' states and exit codes count too. */
    includingInitContainers: z.boolean().default(false),
    /** Ephemeral containers' states count too. */
    includingEphemeralContainers: z.boolean().default(false),
  })
  .refine((a) => a.maxPodLifeTimeSeconds !== undefined || !!a.states?.length || !!a.conditions?.length || !!a.exitCodes?.length, {
    message: 'at least one of maxPodLifeTimeSeconds, states, conditions or exitCodes must be set',
  });

export type PodLifeTimeArgs = z.output<typeof PodLifeTimeArgsSchema>;
