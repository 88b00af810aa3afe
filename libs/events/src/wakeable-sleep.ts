/** A sleep that another party can cut short (stop, notify). One sleeper at a time. */
export class WakeableSleep {
  private wakeCurrent: (() => void) | undefined;

  /** Resolves after ms, or as soon as wake() is called; true when woken early. */
  sleep(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => finish(false), ms);
      const finish = (woken: boolean) => {
        clearTimeout(timer);
        if (this.wakeCurrent === wake) this.wakeCurrent = undefined;
        resolve(woken);
      };
      const wake = () => finish(true);
      this.wakeCurrent = wake;
    });
  }

  /** Ends the current sleep now; a no-op when nobody sleeps. */
  wake(): void {
    this.wakeCurrent?.();
  }
}
