/**
 * The town's metrics: one prom-client registry per town (tests and benches
 * open several towns in one process), rendered in the Prometheus text format at `GET /metrics`,
 * with the process's default metrics (memory, event-loop delay, GC) from one registry per
 * process.
 *
 * What is counted on every request lives in plain numbers per route (RouteMeter), made once per
 * route when the app is built: prom-client's own `observe` hashes its labels and makes a closure
 * on every call, which the request path should not pay. The registry reads those numbers only
 * when scraped, through metric objects of the shape it renders (`get()`). Everything counted
 * less often than once per request (turns, appends, refusals) uses prom-client's metrics as
 * they are.
 */
import client, { Registry } from 'prom-client';

/** Request durations, seconds: a read answers in under a millisecond, a long poll in 30 s. */
export const requestBuckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** A route's request counts: by status, and a latency histogram. Kept per route, made once. */
export class RouteMeter {
  /** Requests per latency bucket (not cumulative; the last slot is +Inf). */
  readonly buckets = new Float64Array(requestBuckets.length + 1);
  sum = 0;
  count = 0;
  /** Requests by HTTP status. */
  readonly statuses = new Map<number, number>();

  constructor(readonly route: string) {}

  observe(status: number, seconds: number): void {
    let i = 0;
    while (i < requestBuckets.length && seconds > requestBuckets[i]!) i++;
    this.buckets[i]!++;
    this.sum += seconds;
    this.count++;
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
  }
}

/**
 * Turns decided, counted by world kind, outcome and refusal class: every decided turn counts one,
 * so it is counted here (three map lookups) and read when scraped, as the route meters are;
 * prom-client's labelled `inc` validated and hashed its labels on every turn.
 */
export class TurnCounts {
  private readonly counts = new Map<string, Map<string, Map<string, number>>>();

  inc(labels: { world: string; outcome: string; class: string }): void {
    let byOutcome = this.counts.get(labels.world);
    if (!byOutcome) this.counts.set(labels.world, (byOutcome = new Map()));
    let byClass = byOutcome.get(labels.outcome);
    if (!byClass) byOutcome.set(labels.outcome, (byClass = new Map()));
    byClass.set(labels.class, (byClass.get(labels.class) ?? 0) + 1);
  }

  /** The counts with their labels, in the order they were first counted. */
  values(): Value[] {
    const out: Value[] = [];
    for (const [world, byOutcome] of this.counts)
      for (const [outcome, byClass] of byOutcome) for (const [cls, value] of byClass) out.push({ labels: { world, outcome, class: cls }, value });
    return out;
  }
}

/** The streams a slow consumer is dropped from: the firehose, the SSE routes, the MCP session streams. */
export type StreamKind = 'firehose' | 'live' | 'mcp';

/**
 * Consumers dropped for reading too slowly (docs/decisions/slow-consumers.md), by stream. The
 * streams hold a callback, `drop(kind)`, rather than the registry: they are made before, and
 * without, a town's metrics in tests.
 */
export class SlowConsumerDrops {
  private readonly counts = new Map<StreamKind, number>();

  drop(kind: StreamKind): void {
    this.counts.set(kind, (this.counts.get(kind) ?? 0) + 1);
  }

  count(kind: StreamKind): number {
    return this.counts.get(kind) ?? 0;
  }

  values(): Value[] {
    return (['firehose', 'live', 'mcp'] as const).map((stream) => ({ labels: { stream }, value: this.count(stream) }));
  }
}

/** One line of a metric as the registry renders it (prom-client's own shape of `get()`). */
interface Value {
  metricName?: string;
  labels: Record<string, string | number>;
  value: number;
}

/**
 * A metric object the registry renders (`registerMetric` takes any object with a name, a type
 * and `get()`), from what `values()` reads at scrape time.
 */
function scraped(name: string, help: string, type: 'counter' | 'histogram', values: () => Value[]): never {
  const get = async () => ({ name, help, type, aggregator: 'sum', values: values() });
  return { name, help, type, aggregator: 'sum', get } as never;
}

/** A number read when scraped, with the labels it is read under. */
export type Reading = () => number | undefined | Promise<number | undefined>;

let processRegistry: Registry | undefined;
/** The process's default metrics, registered once whatever the number of towns. */
function defaults(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    client.collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

export class TownMetrics {
  readonly registry = new Registry();
  private readonly meters: RouteMeter[] = [];

  /** Turns decided, by world (town, scratch), outcome (done, refused, repeat, …) and refusal class. */
  readonly turns = ((counts: TurnCounts) => {
    this.registry.registerMetric(scraped('town_turns_total', 'Turns decided, by world kind, outcome and refusal class', 'counter', () => counts.values()));
    return counts;
  })(new TurnCounts());
  /** Replies that were the envelope of a failure, by error class (busy, rateLimited, …). */
  readonly failures = new client.Counter({
    name: 'town_http_failures_total',
    help: 'Requests answered with an error envelope, by error class (busy and rateLimited among them)',
    labelNames: ['class'] as const,
    registers: [this.registry],
  });
  readonly appendSeconds = new client.Histogram({
    name: 'town_append_duration_seconds',
    help: "Durable appends of the town world's batches, issue to commit",
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [this.registry],
  });
  readonly batchEntries = new client.Histogram({
    name: 'town_append_batch_entries',
    help: "Entries per committed append of the town world's journal",
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
    registers: [this.registry],
  });
  /** Consumers dropped because what waited unsent for them passed its stream's cap. */
  readonly slowConsumers = ((drops: SlowConsumerDrops) => {
    this.registry.registerMetric(
      scraped(
        'town_slow_consumers_dropped_total',
        'Stream consumers dropped for letting too many bytes wait unsent, by stream (firehose, live, mcp)',
        'counter',
        () => drops.values(),
      ),
    );
    return drops;
  })(new SlowConsumerDrops());
  /** SSE streams being sent now, by route (the front counts them as they open and close). */
  readonly streams = new client.Gauge({
    name: 'town_live_streams',
    help: 'Live streams open now: server-sent event routes by route name, the firehose as websocket',
    labelNames: ['route'] as const,
    registers: [this.registry],
  });

  constructor() {
    this.registry.registerMetric(
      scraped('town_http_requests_total', 'HTTP requests answered, by route name and status', 'counter', () => {
        const out: Value[] = [];
        for (const m of this.meters) for (const [status, value] of m.statuses) out.push({ labels: { route: m.route, status }, value });
        return out;
      }),
    );
    this.registry.registerMetric(
      scraped('town_http_request_duration_seconds', 'Time from a request reaching the app until its reply is ready, by route name', 'histogram', () => {
        const out: Value[] = [];
        for (const m of this.meters) {
          if (!m.count) continue;
          let running = 0;
          for (let i = 0; i < requestBuckets.length; i++) {
            running += m.buckets[i]!;
            out.push({ metricName: 'town_http_request_duration_seconds_bucket', labels: { route: m.route, le: requestBuckets[i]! }, value: running });
          }
          out.push({ metricName: 'town_http_request_duration_seconds_bucket', labels: { route: m.route, le: '+Inf' }, value: m.count });
          out.push({ metricName: 'town_http_request_duration_seconds_sum', labels: { route: m.route }, value: m.sum });
          out.push({ metricName: 'town_http_request_duration_seconds_count', labels: { route: m.route }, value: m.count });
        }
        return out;
      }),
    );
  }

  /** A route's meter, made once when the app is built (one per route name). */
  meter(route: string): RouteMeter {
    let m = this.meters.find((x) => x.route === route);
    if (!m) this.meters.push((m = new RouteMeter(route)));
    return m;
  }

  /** A gauge whose value is read when scraped. */
  gauge(name: string, help: string, read: Reading): void {
    new client.Gauge({
      name,
      help,
      registers: [this.registry],
      async collect() {
        const v = await read();
        if (v !== undefined) this.set(v);
      },
    });
  }

  /** A counter whose value (it only grows) is read when scraped. */
  counter(name: string, help: string, read: () => number): void {
    this.registry.registerMetric(scraped(name, help, 'counter', () => [{ labels: {}, value: read() }]));
  }

  /** A gauge with one label, each label's value read when scraped. */
  labelledGauge(name: string, help: string, label: string, read: () => Promise<[string, number][]> | [string, number][]): void {
    new client.Gauge({
      name,
      help,
      labelNames: [label],
      registers: [this.registry],
      async collect() {
        this.reset();
        for (const [value, n] of await read()) this.set({ [label]: value }, n);
      },
    });
  }

  private readonly scrapeHooks: (() => void)[] = [];

  /** Runs before each scrape's gauges are read (one look at the stores shared by several gauges). */
  beforeScrape(hook: () => void): void {
    this.scrapeHooks.push(hook);
  }

  /** The Prometheus text of this town's metrics and the process's. */
  async text(): Promise<string> {
    for (const hook of this.scrapeHooks) hook();
    const [own, process] = await Promise.all([this.registry.metrics(), defaults().metrics()]);
    return own + process;
  }

  readonly contentType = Registry.PROMETHEUS_CONTENT_TYPE;
}
