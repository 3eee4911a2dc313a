// The console's /traffic: shapes a sandbox zone's traffic (a spike, a drop, a hit-rate fall) or
// moves a pending zone to active, so a watch's alert or 'now live' notice can be seen at once.
import type { Sandbox } from '../sandbox/server.js';

const USAGE = 'Usage: /traffic <zone> spike|drop|hitrate [minutes] · /traffic <zone> live|delete';

/** Does what the words say to the sandbox's zone; returns what to print. */
export function shapeTraffic(sandbox: Sandbox | undefined, words: string[]): string {
  if (!sandbox) return '/traffic shapes the embedded sandbox; CDN_API_BASE_URL names another CDN.';
  const [name = '', kind = '', minutesText = '10'] = words;
  const zone = sandbox.state.byName(name) ?? sandbox.state.byId(name);
  if (!zone) return `No zone ${name} in the sandbox. ${USAGE}`;
  if (kind === 'live') {
    sandbox.state.activate(zone.id);
    return `${zone.name} is active now; a watching channel hears of it at its next evaluation.`;
  }
  if (kind === 'delete') {
    sandbox.state.remove(zone.id);
    return `${zone.name} is deleted now.`;
  }
  const minutes = Number(minutesText);
  if (!['spike', 'drop', 'hitrate'].includes(kind) || !Number.isInteger(minutes) || minutes < 1)
    return USAGE;
  sandbox.state.shapeRecent(zone.id, kind as 'spike' | 'drop' | 'hitrate', minutes);
  return `${zone.name}: a ${kind} for ${minutes} min. Watch it with /cdn watch ${zone.name}; an alert follows within a minute.`;
}
