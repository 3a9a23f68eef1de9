/**
 * Configuration from the environment, read once at start. Everything a deployment can change
 * is here; everything else is a constant of the spec (src/contract).
 */
import path from 'node:path';
import { allowList, defaultAllow } from './operations/access.js';
import { type LogLevel, logLevels } from './operations/log.js';
import { defaultMaxLagSeconds } from './operations/readiness.js';
import { secretFile } from './stores/secret-file.js';

/**
 * Every environment variable the town reads (the deployment file's test checks that what
 * compose.yaml sets is among them).
 */
export const environmentNames = [
  'PORT',
  'HOST',
  'TOWN_DATA',
  'EVENTSTORE_URL',
  'EVENTSTORE_MAX_APPEND_SIZE',
  'MONGO_URL',
  'TOWN_OPEN',
  'TOWN_ORIGIN',
  'TOWN_PROJECTORS',
  'TOWN_SIGNING',
  'TOWN_FIREHOSE_PORT',
  'TOWN_SECRET',
  'LOG_LEVEL',
  'TOWN_METRICS_ALLOW',
  'TOWN_METRICS_TOKEN',
  'TOWN_METRICS_PORT',
  'TOWN_READY_LAG_SECONDS',
  'TOWN_LEASE_MS',
  'TOWN_CATALOGUE',
  'TOWN_MIN_FREE_MB',
  'TOWN_FRONTS',
] as const;

export interface Settings {
  port: number;
  listenHost: string;
  dataDir: string;
  eventStoreUrl?: string;
  /**
   * EVENTSTORE_MAX_APPEND_SIZE: the journal's largest append in bytes, the EventStoreDB server's
   * `MaxAppendSize` (eventstore.conf; default 1 MiB). Both event stores refuse larger appends and
   * the world service caps its batches at it.
   */
  maxAppendSize?: number;
  mongoUrl?: string;
  /** TOWN_OPEN=1 starts the town open (arrive exists, turns count against the hourly quota). */
  open?: boolean;
  /** Public origin; defaults to http://localhost:<port>. */
  origin?: string;
  /**
   * TOWN_LEASE_MS: how long a projector worker's lease of its projections lasts unrenewed
   * (default 15 s); a second worker for the same projections takes over within about that long
   * after the first dies.
   */
  leaseMs?: number;
  /**
   * This process is an extra front beside the town that owns the embedded journal (`npm run
   * front`, or TOWN_FRONTS): it reads the journal and sends its appends to the owner, and leaves
   * the owner's own work (snapshots, the feed's answers, the firehose, the control socket) to it.
   */
  front?: boolean;
  /**
   * TOWN_FRONTS: `npm start` forks this many HTTP fronts sharing the port (node:cluster), and
   * the first process keeps the journal (embedded stores with TOWN_PROJECTORS=workers only).
   */
  fronts?: number;
  /** Run projectors inside this process (default with the embedded read store). */
  inProcessProjectors: boolean;
  /**
   * Whether this box signs the world's repository (default yes; TOWN_SIGNING=off: it does not, and
   * the repository then holds unsigned records and no tree). The keys live under the data
   * directory (src/repository/keys.ts).
   */
  signing?: boolean;
  /** Port of the firehose's WebSocket listener (TOWN_FIREHOSE_PORT; unset: no listener). */
  firehosePort?: number;
  /** LOG_LEVEL: the least severe level logged (info: one line per request). */
  logLevel?: LogLevel;
  /** TOWN_METRICS_ALLOW: addresses and CIDR ranges that may read /metrics (loopback by default). */
  metricsAllow?: string;
  /** TOWN_METRICS_TOKEN: a bearer token that may read /metrics from anywhere. */
  metricsToken?: string;
  /** TOWN_METRICS_PORT: the port a worker (projector, reactor) serves /metrics, /health, /ready on. */
  metricsPort?: number;
  /** TOWN_READY_LAG_SECONDS: how far behind the journal a read model may be while /ready says 200. */
  readyLagSeconds?: number;
  /**
   * TOWN_CATALOGUE: which catalogue shape the town serves (spec 9): `current` (default) or
   * `earlier`, for agents written against the earlier shape (docs/decisions/earlier-catalogue-shape.md).
   */
  catalogue?: CatalogueShape;
  /**
   * TOWN_MIN_FREE_MB: the free space (MiB) the embedded stores keep on the data directory's disk
   * (default 64; 0: no watermark). Below it the town refuses writes, 503 hostUnavailable, says so
   * in /ready and /metrics, and takes them again once space returns (src/stores/embedded/disk-guard.ts).
   */
  minFreeBytes?: number;
}

/** The two catalogue shapes of spec 9. */
export type CatalogueShape = 'current' | 'earlier';

function catalogueOf(text: string): CatalogueShape {
  if (text === 'current' || text === 'earlier') return text;
  throw new Error(`TOWN_CATALOGUE must be current or earlier, not ${text}`);
}

function portOf(text: string, name: string): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`${name} must be a port number, not ${text}`);
  return port;
}

function appendSizeOf(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 1024) throw new Error(`EVENTSTORE_MAX_APPEND_SIZE must be a whole number of bytes, at least 1024, not ${text}`);
  return n;
}

function minFreeOf(text: string): number {
  const n = Number(text);
  if (!Number.isFinite(n) || n < 0 || n > 1_048_576) throw new Error(`TOWN_MIN_FREE_MB must be a number of MiB from 0 to 1048576, not ${text}`);
  return Math.round(n * 1024 * 1024);
}

function frontsOf(text: string, mongoUrl: string | undefined, env: NodeJS.ProcessEnv): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 1 || n > 64) throw new Error(`TOWN_FRONTS must be a whole number of fronts from 1 to 64, not ${text}`);
  // Fronts read the read models the workers fold, and append through the journal's owner.
  if (env.EVENTSTORE_URL || mongoUrl || env.TOWN_PROJECTORS !== 'workers') {
    throw new Error('TOWN_FRONTS runs on the embedded stores with TOWN_PROJECTORS=workers (start the workers with npm run projector)');
  }
  return n;
}

function leaseMsOf(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 100 || n > 3_600_000)
    throw new Error(`TOWN_LEASE_MS must be a whole number of milliseconds from 100 to 3600000, not ${text}`);
  return n;
}

export function settingsFromEnv(env: NodeJS.ProcessEnv = process.env): Settings {
  const port = env.PORT === undefined ? 8080 : portOf(env.PORT, 'PORT');
  const mongoUrl = env.MONGO_URL || undefined;
  return {
    port,
    listenHost: env.HOST || '0.0.0.0',
    dataDir: path.resolve(env.TOWN_DATA || './data'),
    eventStoreUrl: env.EVENTSTORE_URL || undefined,
    ...(env.EVENTSTORE_MAX_APPEND_SIZE ? { maxAppendSize: appendSizeOf(env.EVENTSTORE_MAX_APPEND_SIZE) } : {}),
    ...(env.TOWN_LEASE_MS ? { leaseMs: leaseMsOf(env.TOWN_LEASE_MS) } : {}),
    mongoUrl,
    open: env.TOWN_OPEN === undefined ? undefined : env.TOWN_OPEN === '1' || env.TOWN_OPEN === 'true',
    origin: env.TOWN_ORIGIN || undefined,
    // With MongoDB, projectors are separate workers (`npm run projector -- <name>`) unless asked.
    inProcessProjectors: env.TOWN_PROJECTORS === 'inline' || (!mongoUrl && env.TOWN_PROJECTORS !== 'workers'),
    signing: env.TOWN_SIGNING !== 'off',
    ...(env.TOWN_CATALOGUE ? { catalogue: catalogueOf(env.TOWN_CATALOGUE) } : {}),
    ...(env.TOWN_MIN_FREE_MB ? { minFreeBytes: minFreeOf(env.TOWN_MIN_FREE_MB) } : {}),
    ...(env.TOWN_FRONTS ? { fronts: frontsOf(env.TOWN_FRONTS, mongoUrl, env) } : {}),
    ...(env.TOWN_FIREHOSE_PORT !== undefined && env.TOWN_FIREHOSE_PORT !== '' ? { firehosePort: portOf(env.TOWN_FIREHOSE_PORT, 'TOWN_FIREHOSE_PORT') } : {}),
    ...operationsFromEnv(env),
  };
}

/** The operator's settings: log level, who may read metrics, the workers' metrics port, readiness. */
function operationsFromEnv(env: NodeJS.ProcessEnv): Partial<Settings> {
  const level = env.LOG_LEVEL || 'info';
  if (!(logLevels as readonly string[]).includes(level)) throw new Error(`LOG_LEVEL must be one of ${logLevels.join(', ')}, not ${level}`);
  const allow = env.TOWN_METRICS_ALLOW ?? defaultAllow;
  allowList(allow); // refuses a malformed list at start, not at the first scrape
  const lag = env.TOWN_READY_LAG_SECONDS ? Number(env.TOWN_READY_LAG_SECONDS) : defaultMaxLagSeconds;
  if (!(lag > 0)) throw new Error(`TOWN_READY_LAG_SECONDS must be a positive number, not ${env.TOWN_READY_LAG_SECONDS}`);
  return {
    logLevel: level as LogLevel,
    metricsAllow: allow,
    ...(env.TOWN_METRICS_TOKEN ? { metricsToken: env.TOWN_METRICS_TOKEN } : {}),
    ...(env.TOWN_METRICS_PORT ? { metricsPort: portOf(env.TOWN_METRICS_PORT, 'TOWN_METRICS_PORT') } : {}),
    readyLagSeconds: lag,
  };
}

/**
 * The town's MAC key (arrival challenges, session cookies). Kept beside the data so that a
 * restart keeps outstanding challenges valid; several fronts sharing a town share this file
 * (or TOWN_SECRET, hex).
 */
export function loadSecret(dataDir: string, env: NodeJS.ProcessEnv = process.env): Uint8Array {
  if (env.TOWN_SECRET) return Buffer.from(env.TOWN_SECRET, 'hex');
  return Buffer.from(secretFile(dataDir, 'secret.key'), 'hex');
}
