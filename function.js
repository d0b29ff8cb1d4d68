// What `npx functions-framework --target=<name>` serves from the repository's root (after
// `npm ci`, whose prepare builds dist/): with no --source, the framework loads the folder's
// package.json "main", else its function.js. Not "main": npm packs the file "main" names
// whatever "files" says, and the npm package is the CLI alone (dist/cli/).
import './dist/shared/hosts/server/framework-entry.js';
