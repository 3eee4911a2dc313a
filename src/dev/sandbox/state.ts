// The sandbox's in-memory CDN: zones, their settings, and a log of purges. Its zones can be taken
// out as a snapshot and put back (the console keeps them in a file: state-file.ts).
import { createHash } from 'node:crypto';
import type { KnownZoneStatus, ZonePlan } from '../../cdn/schemas.js';
import type { Clock } from '../../clock.js';
import type { TrafficShape } from './traffic.js';

export interface SandboxZone {
  id: string;
  name: string;
  plan: ZonePlan;
  createdAt: number;
  /** A pending zone turns active at this instant; seeded pending zones never do. */
  activatesAt?: number;
  deleted: boolean;
  limits: { enabled: boolean; mode: 'automatic' };
}

export interface PurgeRecord {
  id: string;
  zoneId: string;
  kind: 'everything' | 'files' | 'tags';
  items: string[];
  at: number;
}

/**
 * What of an account's state outlives the process (SandboxState.snapshot): its zones, their
 * shaped traffic, and where its ids are, so an id is never given twice. Purges are not kept: only
 * the edge reads them, and its cache starts afresh with the process.
 */
export interface SandboxStateSnapshot {
  zones: SandboxZone[];
  shapes: Record<string, TrafficShape[]>;
  sequence: number;
}

const DAY = 86_400_000;

/** Demo zones in every status; nested names so "longest matching zone" has something to do. */
const DEMO_ZONES: ReadonlyArray<{ name: string; status: KnownZoneStatus; ageDays: number }> = [
  { name: 'example.com', status: 'active', ageDays: 420 },
  { name: 'static.example.com', status: 'active', ageDays: 300 },
  { name: 'shop.example.org', status: 'active', ageDays: 190 },
  { name: 'blog.example.net', status: 'active', ageDays: 95 },
  { name: 'api.example.io', status: 'active', ageDays: 60 },
  { name: 'staging.example.com', status: 'pending', ageDays: 2 },
  { name: 'launch.example.io', status: 'pending', ageDays: 1 },
  { name: 'old-site.example.com', status: 'deleted', ageDays: 700 },
  { name: 'legacy.example.org', status: 'deleted', ageDays: 900 },
];

export class SandboxState {
  readonly #zones: SandboxZone[] = [];
  readonly purges: PurgeRecord[] = [];
  /** Traffic injected per zone id (spikes, drops, hit-rate falls). */
  readonly #shapes = new Map<string, TrafficShape[]>();
  #sequence = 0;
  readonly #listeners = new Set<() => void>();

  constructor(
    private readonly clock: Clock,
    private readonly activationDelayMs: number,
  ) {}

  /** Calls `listener` after each change a snapshot holds; returns what stops it. */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #changed(): void {
    for (const listener of this.#listeners) listener();
  }

  /** The zones, shapes and id sequence, as plain data (see SandboxStateSnapshot). */
  snapshot(): SandboxStateSnapshot {
    return structuredClone({
      zones: this.#zones,
      shapes: Object.fromEntries(this.#shapes),
      sequence: this.#sequence,
    });
  }

  /** Replaces the zones, shapes and id sequence with a snapshot's (purges are left as they are). */
  restore(snapshot: SandboxStateSnapshot): void {
    const copy = structuredClone(snapshot);
    this.#zones.splice(0, this.#zones.length, ...copy.zones);
    this.#shapes.clear();
    for (const [zoneId, shapes] of Object.entries(copy.shapes)) this.#shapes.set(zoneId, shapes);
    this.#sequence = copy.sequence;
    this.#changed();
  }

  seedDemo(): void {
    const now = this.clock.now();
    for (const demo of DEMO_ZONES) {
      const zone = this.#add(demo.name, 'pro', now - demo.ageDays * DAY);
      zone.deleted = demo.status === 'deleted';
      if (demo.status !== 'pending') zone.activatesAt = zone.createdAt;
    }
  }

  /** `count` active zones named zone-001.bulk.test…, for pagination tests. */
  seedBulk(count: number): void {
    const now = this.clock.now();
    const width = String(count).length;
    for (let i = 1; i <= count; i++) {
      const zone = this.#add(
        `zone-${String(i).padStart(width, '0')}.bulk.test`,
        'free',
        now - i * 60_000,
      );
      zone.activatesAt = zone.createdAt;
    }
  }

  statusOf(zone: SandboxZone): KnownZoneStatus {
    if (zone.deleted) return 'deleted';
    return zone.activatesAt !== undefined && zone.activatesAt <= this.clock.now()
      ? 'active'
      : 'pending';
  }

  list(status?: KnownZoneStatus): SandboxZone[] {
    return status === undefined
      ? [...this.#zones]
      : this.#zones.filter((zone) => this.statusOf(zone) === status);
  }

  byId(id: string): SandboxZone | undefined {
    return this.#zones.find((zone) => zone.id === id);
  }

  /** The live zone of that name (a deleted one may share it). */
  byName(name: string): SandboxZone | undefined {
    const lower = name.toLowerCase();
    return this.#zones.find((zone) => zone.name === lower && !zone.deleted);
  }

  create(name: string, plan: ZonePlan): SandboxZone {
    const now = this.clock.now();
    const zone = this.#add(name.toLowerCase(), plan, now);
    zone.activatesAt = now + this.activationDelayMs;
    this.#changed();
    return zone;
  }

  /** Shapes the zone's traffic over a span (see TrafficShape). */
  shape(zoneId: string, shape: TrafficShape): void {
    this.#shapes.set(zoneId, [...(this.#shapes.get(zoneId) ?? []), shape]);
    this.#changed();
  }

  /**
   * A shape from the last whole minute for `minutes` more: the analytics show it at once (a drop
   * is to nothing).
   */
  shapeRecent(zoneId: string, kind: TrafficShape['kind'], minutes: number): void {
    const from = Math.floor(this.clock.now() / 60_000) * 60_000 - 60_000;
    const to = from + (minutes + 1) * 60_000;
    this.shape(
      zoneId,
      kind === 'hitrate'
        ? { kind, from, to }
        : { kind, from, to, ...(kind === 'drop' ? { factor: 0 } : {}) },
    );
  }

  shapesOf(zoneId: string): readonly TrafficShape[] {
    return this.#shapes.get(zoneId) ?? [];
  }

  clearShapes(zoneId: string): void {
    this.#shapes.delete(zoneId);
    this.#changed();
  }

  /** A pending zone turns active now (its CNAME found). */
  activate(zoneId: string): void {
    const zone = this.byId(zoneId);
    if (zone && !zone.deleted) {
      zone.activatesAt = Math.min(zone.activatesAt ?? Infinity, this.clock.now());
      this.#changed();
    }
  }

  /** The zone is deleted (as from the dashboard). */
  remove(zoneId: string): void {
    const zone = this.byId(zoneId);
    if (zone) {
      zone.deleted = true;
      this.#changed();
    }
  }

  /** The zone's rate limiting, as its settings endpoint sets it. */
  setLimits(zone: SandboxZone, enabled: boolean): void {
    zone.limits = { enabled, mode: 'automatic' };
    this.#changed();
  }

  recordPurge(zoneId: string, kind: PurgeRecord['kind'], items: string[]): PurgeRecord {
    const record = { id: this.#newId('purge'), zoneId, kind, items, at: this.clock.now() };
    this.purges.push(record);
    return record;
  }

  toJson(zone: SandboxZone) {
    return {
      id: zone.id,
      name: zone.name,
      status: this.statusOf(zone),
      created_at: new Date(zone.createdAt).toISOString().replace('.000Z', 'Z'),
    };
  }

  #add(name: string, plan: ZonePlan, createdAt: number): SandboxZone {
    const zone: SandboxZone = {
      id: this.#newId('zone'),
      name,
      plan,
      createdAt,
      deleted: false,
      limits: { enabled: false, mode: 'automatic' },
    };
    this.#zones.push(zone);
    return zone;
  }

  /** Stable across runs: ids depend only on the order things were made in. */
  #newId(prefix: string): string {
    const digest = createHash('sha256')
      .update(`${prefix}:${++this.#sequence}`)
      .digest('hex');
    return `${prefix}_${digest.slice(0, 24)}`;
  }
}
