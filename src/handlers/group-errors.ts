/** What the group APIs share beyond the coordinator. */
/** Kafka shows a member's host as `/<address>`; the connection knows it as `<address>:<port>`. */
export function clientHostOf(clientAddress: string): string {
  const colon = clientAddress.lastIndexOf(':');
  return `/${colon > 0 ? clientAddress.slice(0, colon) : clientAddress}`;
}
