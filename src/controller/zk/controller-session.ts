/**
 * This broker's standing as the controller: the ZooKeeper client it works through (replaced when
 * the member's session is) and, while it is the active controller, the guard every write names
 * (the controller epoch's znode version). The controller's parts share it; only `ZkController`
 * changes it.
 */
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import type { ControllerGuard, KafkaZkClient } from '../../zk/index.js';
import type { ControllerIdentity } from './controller-requests.js';

export class ControllerSession {
  private currentGuard: ControllerGuard | null = null;

  constructor(
    private client: KafkaZkClient,
    private readonly brokerId: number,
  ) {}

  get zk(): KafkaZkClient {
    return this.client;
  }

  get isActive(): boolean {
    return this.currentGuard !== null;
  }

  /** The controller epoch while active, else -1. */
  get epoch(): number {
    return this.currentGuard?.epoch ?? -1;
  }

  get identity(): ControllerIdentity {
    return { controllerId: this.brokerId, controllerEpoch: this.requireGuard().epoch };
  }

  requireGuard(): ControllerGuard {
    if (this.currentGuard === null) throw new KafkaError(ErrorCode.NOT_CONTROLLER, `broker ${this.brokerId} is not the controller`);
    return this.currentGuard;
  }

  activate(guard: ControllerGuard): void {
    this.currentGuard = guard;
  }

  deactivate(): void {
    this.currentGuard = null;
  }

  replaceClient(zk: KafkaZkClient): void {
    this.client = zk;
  }
}
