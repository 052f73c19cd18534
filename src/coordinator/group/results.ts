/**
 * What every coordinator operation hands back. The caller appends `records` to the group's
 * `__consumer_offsets` partition and only after the append succeeds sends `response` and every
 * `released` answer: a client must never see a state the log does not hold yet.
 */
import type { JoinGroupResponseDataInput } from '@sluice/protocol/messages/api/11-join-group.js';
import type { SyncGroupResponseDataInput } from '@sluice/protocol/messages/api/14-sync-group.js';
import type { CoordinatorRecord } from './records.js';

/**
 * The answer to a JoinGroup or SyncGroup that was parked by an earlier call; `to` is the `replyTo`
 * the caller passed with that request.
 */
export type Released<T> =
  { to: T; api: 'JoinGroup'; response: JoinGroupResponseDataInput } | { to: T; api: 'SyncGroup'; response: SyncGroupResponseDataInput };

export interface CoordinatorResult<R, T> {
  records: CoordinatorRecord[];
  response: R;
  released: Released<T>[];
}

/** JoinGroup and SyncGroup: `response` is null while the request is parked. */
export type ParkableResult<R, T> = CoordinatorResult<R | null, T>;

/** What `tick` produced: expiries, finished rebalances, swept offsets. */
export interface TickResult<T> {
  records: CoordinatorRecord[];
  released: Released<T>[];
}

/** A parked request: the caller's reply address, compared by identity inside the coordinator. */
export interface Waiter<T> {
  readonly to: T;
}

/** Records and answers gathered while one operation or timer runs. */
export class Effects<T> {
  readonly records: CoordinatorRecord[] = [];
  private readonly answers: Array<{ waiter: Waiter<T>; released: Released<T> }> = [];

  answerJoin(waiter: Waiter<T>, response: JoinGroupResponseDataInput): void {
    this.answers.push({ waiter, released: { to: waiter.to, api: 'JoinGroup', response } });
  }

  answerSync(waiter: Waiter<T>, response: SyncGroupResponseDataInput): void {
    this.answers.push({ waiter, released: { to: waiter.to, api: 'SyncGroup', response } });
  }

  /** Everything answered, minus the answer to `own` (the request being handled), returned apart. */
  split(own: Waiter<T> | null): { own: Released<T> | null; released: Released<T>[] } {
    let mine: Released<T> | null = null;
    const released: Released<T>[] = [];
    for (const a of this.answers) {
      if (a.waiter === own) mine = a.released;
      else released.push(a.released);
    }
    return { own: mine, released };
  }
}
