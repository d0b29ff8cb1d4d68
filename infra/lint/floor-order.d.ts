// Types for floor-order.js (plain JavaScript, as eslint.config.js loads it), for the tests that read it.
import type { Rule } from 'eslint';
export declare function globRegExp(glob: string): RegExp;
export declare function floorOf(path: string): { level: number; floor: string } | undefined;
declare const rule: Rule.RuleModule;
export default rule;
