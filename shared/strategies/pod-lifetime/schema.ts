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
    maxPodLifeTimeSeconds: SecondsSchema.optional(),
    states: z.array(z.enum(POD_LIFETIME_STATES)).optional(),
    conditions: z.array(ConditionFilterSchema).optional(),
    exitCodes: z.array(ExitCodeSchema).optional(),
    ownerKinds: OwnerKindsSchema.optional(),
    namespaces: NamespacesSchema.optional(),
    labelSelector: LabelSelectorSchema.optional(),
    includingInitContainers: z.boolean().default(false),
    includingEphemeralContainers: z.boolean().default(false),
  })
  .refine((a) => a.maxPodLifeTimeSeconds !== undefined || !!a.states?.length || !!a.conditions?.length || !!a.exitCodes?.length, {
    message: 'at least one of maxPodLifeTimeSeconds, states, conditions or exitCodes must be set',
  });

export type PodLifeTimeArgs = z.output<typeof PodLifeTimeArgsSchema>;
