/** The client subcommands of `sluice`, by name; each talks to any Kafka-compatible broker. */
import type { Command } from './command-support.js';
import { aclsCommand } from './acls.js';
import { configsCommand } from './configs.js';
import { consumeCommand } from './consume.js';
import { groupsCommand } from './groups.js';
import { leaderElectionCommand } from './leader-election.js';
import { logDirsCommand } from './log-dirs.js';
import { reassignPartitionsCommand } from './reassign-partitions.js';
import { produceCommand } from './produce.js';
import { tlsCommand } from './tls.js';
import { topicsCommand } from './topics.js';

export { runCommand, type Command } from './command-support.js';

export const CLIENT_COMMANDS: ReadonlyMap<string, Command> = new Map([
  ['topics', topicsCommand],
  ['configs', configsCommand],
  ['acls', aclsCommand],
  ['produce', produceCommand],
  ['consume', consumeCommand],
  ['groups', groupsCommand],
  ['leader-election', leaderElectionCommand],
  ['reassign-partitions', reassignPartitionsCommand],
  ['log-dirs', logDirsCommand],
  ['tls', tlsCommand],
]);
