// Types for module-state.js (plain JavaScript, as eslint.config.js loads it), for the tests that read it.
import type { Rule } from 'eslint';
export declare const MODULE_STATE_EXCEPTIONS: readonly { file: string; reason: string }[];
declare const rule: Rule.RuleModule;
export default rule;
