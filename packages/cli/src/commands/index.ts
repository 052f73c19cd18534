/**
 * The client subcommands of `sluice`, by name; each talks to any Kafka-compatible broker. Each is
 * loaded only when it runs, so a tool invocation does not pay for every other tool's imports.
 */
import type { Command } from './command-support.js';

export type { Command } from './command-support.js';

export const CLIENT_COMMANDS: ReadonlyMap<string, () => Promise<Command>> = new Map([
  ['topics', async () => (await import('./topics.js')).topicsCommand],
  ['configs', async () => (await import('./configs.js')).configsCommand],
  ['acls', async () => (await import('./acls.js')).aclsCommand],
  ['produce', async () => (await import('./produce.js')).produceCommand],
  ['consume', async () => (await import('./consume.js')).consumeCommand],
  ['groups', async () => (await import('./groups.js')).groupsCommand],
  ['leader-election', async () => (await import('./leader-election.js')).leaderElectionCommand],
  ['reassign-partitions', async () => (await import('./reassign-partitions.js')).reassignPartitionsCommand],
  ['log-dirs', async () => (await import('./log-dirs.js')).logDirsCommand],
  ['tls', async () => (await import('./tls.js')).tlsCommand],
  ['tune', async () => (await import('./tune.js')).tuneCommand],
  ['console', async () => (await import('./console.js')).consoleCommand],
]);
