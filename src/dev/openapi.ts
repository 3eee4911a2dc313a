// Writes openapi.json, the HTTP API's OpenAPI document as the bot serves it (`npm run openapi`,
// which then formats it); test/api/openapi.test.ts fails when the committed file differs from it.
import { writeFile } from 'node:fs/promises';
import { openApiDocument } from '../api/openapi.js';

await writeFile(
  new URL('../../openapi.json', import.meta.url),
  `${JSON.stringify(openApiDocument(), null, 2)}\n`,
);
