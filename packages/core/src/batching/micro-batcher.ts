/**
 * Coalesces concurrent calls into one: items handed in while a flush is in flight go out
 * together in the next one (at most `maxItems` a flush), so N concurrent submissions cost
 * one multi-row statement instead of N. A call that finds nothing in flight is flushed on
 * the next turn of the event loop (setImmediate): the calls of requests whose bytes
 * arrived together join it — on PGlite a statement runs to its end inside the call, so a
 * flush was never in flight when the next request came and every call went alone — at a
 * cost of microseconds when idle.
 */
interface Waiting<In, Out> {
  items: In[];
  resolve(out: Out[]): void;
  reject(error: unknown): void;
}

export class MicroBatcher<In, Out> {
  private queue: Array<Waiting<In, Out>> = [];
  private flushing = false;

  constructor(
    /** One result per item, in order. */
    private readonly flush: (items: In[]) => Promise<Out[]>,
    private readonly maxItems = 2000,
    /** Also bounds a flush by size (bytes, say); a call heavier than `max` still goes, alone. */
    private readonly weight?: { of: (item: In) => number; max: number },
  ) {}

  run(items: In[]): Promise<Out[]> {
    if (items.length === 0) return Promise.resolve([]);
    return new Promise<Out[]>((resolve, reject) => {
      this.queue.push({ items, resolve, reject });
      if (!this.flushing) {
        this.flushing = true;
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    this.flushing = true;
    while (this.queue.length > 0) {
      const taken: Array<Waiting<In, Out>> = [];
      let count = 0;
      let weight = 0;
      const weighOf = (items: In[]) =>
        this.weight ? items.reduce((sum, item) => sum + this.weight!.of(item), 0) : 0;
      while (this.queue.length > 0) {
        const next = this.queue[0]!;
        const nextWeight = weighOf(next.items);
        if (
          taken.length > 0 &&
          (count + next.items.length > this.maxItems ||
            (this.weight && weight + nextWeight > this.weight.max))
        )
          break;
        taken.push(this.queue.shift()!);
        count += next.items.length;
        weight += nextWeight;
      }
      try {
        const out = await this.flush(taken.flatMap((waiting) => waiting.items));
        let at = 0;
        for (const waiting of taken) {
          waiting.resolve(out.slice(at, at + waiting.items.length));
          at += waiting.items.length;
        }
      } catch (error) {
        for (const waiting of taken) waiting.reject(error);
      }
    }
    this.flushing = false;
  }
}
