/**
 * The broker's parts that most brokers never run, loaded when the broker's configuration asks
 * for them rather than at start-up: module loading is most of a broker's start-up CPU and much of
 * its idle memory (docs/journal/performance.md). `broker.ts` stays the composition root; these
 * factories only defer the `import`.
 */
import type { Logger } from '../common/logger.js';
import type { BrokerMetrics } from '../common/metrics/broker-metrics.js';
import type { ScrapeOptions, ScrapeSources } from '../common/metrics/scrape.js';
import type { MetadataImage } from '../metadata/metadata-image.js';
import type { SaslAuthenticator } from '../security/sasl/authenticator.js';
import type { SaslConfig } from '../security/sasl/sasl-config.js';
import type { ClusterMember } from './cluster-member.js';
import type { ClusterMemberConfig } from './config.js';
import type { MetricsServer } from './metrics-server.js';

/** ZooKeeper, the controller and the replica fetchers: only a broker with `zookeeper.connect` is a cluster member. */
export async function connectClusterMember(config: ClusterMemberConfig, proposedClusterId: string, log: Logger): Promise<ClusterMember> {
  const { ClusterMember } = await import('./cluster-member.js');
  return ClusterMember.connect(config, proposedClusterId, log);
}

/** The `/metrics` endpoint (node:http, and prom-client's default metrics): only with `metrics.listener`. */
export async function startMetricsEndpoint(
  at: { readonly host: string; readonly port: number },
  sources: ScrapeSources,
  options: ScrapeOptions,
): Promise<MetricsServer> {
  const [{ MetricsScraper }, { MetricsServer }] = await Promise.all([import('../common/metrics/scrape.js'), import('./metrics-server.js')]);
  return MetricsServer.start(at.host, at.port, new MetricsScraper(sources, options), options.log);
}

/**
 * The SASL mechanisms (PLAIN, SCRAM and their crypto): only a broker with a SASL listener
 * authenticates. SCRAM credentials are read from the current metadata image
 * (`SCRAM-SHA-256=salt=…,stored_key=…` in the user's client-entity configs), as the quotas are.
 */
export async function createSaslAuthenticator(
  config: SaslConfig,
  image: () => MetadataImage,
  metrics: BrokerMetrics,
  log: Logger,
): Promise<SaslAuthenticator> {
  const [{ SaslAuthenticator }, { parseCredential }] = await Promise.all([
    import('../security/sasl/authenticator.js'),
    import('@sluice/protocol/sasl/scram-formatter.js'),
  ]);
  return new SaslAuthenticator(
    config,
    (user, mechanism) => {
      const text = image().clientEntityConfigs({ user }).get(mechanism.name);
      return text === undefined ? undefined : parseCredential(text);
    },
    metrics,
    log,
  );
}
