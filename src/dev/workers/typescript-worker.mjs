// Development only: lets a worker thread run a TypeScript module (through tsx) when the bot runs
// from its sources (tests, the console). The built bot's workers load compiled JavaScript instead.
import { workerData } from 'piscina';
import { tsImport } from 'tsx/esm/api';

const { default: handler } = await tsImport(workerData.module, import.meta.url);
export default handler;
