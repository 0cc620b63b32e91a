/** Subjects remembered at most. */
const MOST_SUBJECTS = 10_000;

/**
 * Subjects known to have no quads in the bulk partition (a compound, a feature: the rows of
 * datasets are its subjects), until its next write. A subject looked up over every graph is
 * looked up in each bulk graph, a LevelDB iterator each (bulk-partition.ts); one found in none of
 * them is not looked up there again. Every write of a bulk graph forgets them all, before it
 * (a lookup racing with it) and once it is written; a lookup that began before either is not
 * remembered. Bounded (the oldest forgotten first), so memory does not grow with history.
 */
export class BulkAbsences {
  private readonly subjects = new Set<string>();
  private writes = 0;

  /** The count of bulk writes so far: a lookup remembers it when it starts. */
  get writeCount(): number {
    return this.writes;
  }

  has(subject: string): boolean {
    return this.subjects.has(subject);
  }

  /** Remembers that a lookup begun at `writeCount` found no quad of `subject`, unless a write came in between. */
  note(subject: string, writeCount: number): void {
    if (writeCount !== this.writes) return;
    this.subjects.add(subject);
    if (this.subjects.size > MOST_SUBJECTS) this.subjects.delete(this.subjects.values().next().value as string);
  }

  /** A write of a bulk graph begins or ends. */
  written(): void {
    this.writes++;
    this.subjects.clear();
  }
}
