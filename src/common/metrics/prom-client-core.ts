/**
 * The parts of prom-client that instruments need: registries, counters, gauges, histograms.
 * prom-client's index also loads its Pushgateway (node:http, node:https) and its default
 * metrics (perf_hooks, event loop monitoring): ~12 MiB of RSS and ~0.12 s of CPU in every
 * broker and every partition worker, measured, for what only a `/metrics` scrape uses
 * (`scrape.ts` imports the whole package, and loads with the endpoint). The classes are the
 * same objects as the index's, so registries mix freely.
 */
import { createRequire } from 'node:module';
import type * as PromClient from 'prom-client';

const require = createRequire(import.meta.url);

export const Registry: typeof PromClient.Registry = require('prom-client/lib/registry') as typeof PromClient.Registry;
export const Counter: typeof PromClient.Counter = require('prom-client/lib/counter') as typeof PromClient.Counter;
export const Gauge: typeof PromClient.Gauge = require('prom-client/lib/gauge') as typeof PromClient.Gauge;
export const Histogram: typeof PromClient.Histogram = require('prom-client/lib/histogram') as typeof PromClient.Histogram;
export const exponentialBuckets: typeof PromClient.exponentialBuckets = (require('prom-client/lib/bucketGenerators') as typeof PromClient)
  .exponentialBuckets;
