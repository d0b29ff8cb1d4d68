// Types for floors.js (plain JavaScript, as eslint.config.js loads it), for the tests that read it.
export interface Floor {
  name: string;
  why: string;
  rooms: string[];
}
export declare const FLOORS: Floor[];
export declare const EXCEPTIONS: { from: string; to: string; why: string }[];
