// Which job kinds may have claimable work this process has not looked for yet: the runner's claims
// skip a kind whose last claim found nothing, until something says it may have work again (a job
// of it enqueued here, a general look, the poll). Under a burst of enqueues of one kind whose slots
// are full (a hundred API purges), the runner would otherwise ask the database, for each enqueue
// and each job that ends, about the other kinds, which have nothing: two empty claims a purge.
// A mark made while a claim is on its way wins over that claim's empty answer.

/** What a claim asked about, for `nothingFor`. */
export interface ClaimLook {
  readonly kinds: ReadonlyArray<readonly [kind: string, marks: number]>;
  readonly all: number;
}

export class UnseenKinds {
  /** Kinds whose last claim found nothing, and not marked since. */
  readonly #quiet = new Set<string>();
  readonly #marks = new Map<string, number>();
  #all = 0;

  /** `kind` (or, with none, every kind) may have work: its next look claims it. */
  mark(kind?: string): void {
    if (kind === undefined) {
      this.#all++;
      this.#quiet.clear();
      return;
    }
    this.#marks.set(kind, (this.#marks.get(kind) ?? 0) + 1);
    this.#quiet.delete(kind);
  }

  /** Of `kinds`, those worth a claim. */
  worth(kinds: readonly string[]): string[] {
    return kinds.filter((kind) => !this.#quiet.has(kind));
  }

  /** Taken before a claim of `kinds`. */
  look(kinds: readonly string[]): ClaimLook {
    return { kinds: kinds.map((kind) => [kind, this.#marks.get(kind) ?? 0]), all: this.#all };
  }

  /** The claim of `look` found nothing: its kinds are quiet, unless marked since it was asked. */
  nothingFor(look: ClaimLook): void {
    if (look.all !== this.#all) return;
    for (const [kind, marks] of look.kinds)
      if ((this.#marks.get(kind) ?? 0) === marks) this.#quiet.add(kind);
  }
}
