/** Whether `p` has settled (either way) by the next turn of the event loop: for tests of what waits. */
export async function settledYet(p: Promise<unknown>): Promise<boolean> {
  let settled = false;
  p.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((r) => setImmediate(r));
  return settled;
}
