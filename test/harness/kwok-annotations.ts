// Annotations read by the kwok stages in kwok-stages.yaml (the contract lives there).
/** Value "<n>": once Running, every container terminates with exit code n (0: Succeeded, else Failed). */
export const EXIT_CODE_ANNOTATION = 'kwok.kube-tidy.dev/exit-code';
/** Optional terminated reason instead of Completed/Error, e.g. "OOMKilled". */
export const REASON_ANNOTATION = 'kwok.kube-tidy.dev/reason';
