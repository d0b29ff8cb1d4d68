export { PodTTL, compilePodTTL, podTTLCriteria, type PodTTLMatcher } from './pod-ttl.js';
export { PodTTLArgsSchema, TTL_SOURCES, type PodTTLArgs, type TtlSource } from './schema.js';
export {
  expiryOf,
  expiryOfMeta,
  type TtlMeta,
  type TtlReads,
  KYVERNO_TTL_LABEL,
  JANITOR_TTL_ANNOTATION,
  JANITOR_EXPIRES_ANNOTATION,
  type Expiry,
} from './expiry.js';
export { parseKyvernoTtl, parseJanitorTtl, parseJanitorExpires, type Parsed } from './parse.js';
