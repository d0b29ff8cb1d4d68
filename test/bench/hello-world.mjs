// The baseline for the cold-start bench: the smallest functions-framework function.
import { http } from '@google-cloud/functions-framework';

http('hello', (_req, res) => {
  res.send('hello');
});
