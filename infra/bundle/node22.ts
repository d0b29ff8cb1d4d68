// The Node 22 binary the bundle is built for (the image's Node); see node-binary.ts.
import { nodeBinary } from './node-binary.js';

export const node22 = (): string => nodeBinary(22);
