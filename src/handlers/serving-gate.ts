/**
 * Holds requests until the broker can serve them. The listeners are bound before the logs open
 * (the advertised port may be the one the OS picked), so a client can connect while a broker is
 * still recovering; Kafka's socket server holds such requests until start-up completes
 * (`enableRequestProcessing`), and so does Sluice: the client waits for its answer instead of
 * losing its connection. A start-up that fails releases the held requests with its error, and
 * their connections close.
 */
export class ServingGate {
  private state: 'holding' | 'open' | 'failed' = 'holding';
  private release!: () => void;
  private refuse!: (reason: unknown) => void;
  private readonly released: Promise<void>;

  constructor() {
    this.released = new Promise<void>((resolve, reject) => {
      this.release = resolve;
      this.refuse = reject;
    });
    // A gate that fails with nothing held must not report an unhandled rejection.
    this.released.catch(() => undefined);
  }

  get isOpen(): boolean {
    return this.state === 'open';
  }

  /** Resolves once the gate opens; rejects with the start-up's error if it fails instead. */
  passed(): Promise<void> {
    return this.released;
  }

  open(): void {
    if (this.state !== 'holding') return;
    this.state = 'open';
    this.release();
  }

  fail(reason: unknown): void {
    if (this.state !== 'holding') return;
    this.state = 'failed';
    this.refuse(reason);
  }
}
