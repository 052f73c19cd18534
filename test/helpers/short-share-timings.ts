/** Short locks and sessions so that redelivery after a kill takes seconds, not Kafka's 30 s / 45 s. */
export function shortShareTimings(deliveryLimit: number): Record<string, string> {
  return {
    'group.share.min.record.lock.duration.ms': '1000',
    'group.share.record.lock.duration.ms': '3000',
    'group.share.min.session.timeout.ms': '3000',
    'group.share.session.timeout.ms': '6000',
    'group.share.min.heartbeat.interval.ms': '500',
    'group.share.heartbeat.interval.ms': '1000',
    'group.share.min.delivery.count.limit': '2',
    'group.share.delivery.count.limit': String(deliveryLimit),
  };
}
