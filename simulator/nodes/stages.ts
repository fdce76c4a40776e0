// A small generic stage engine, in the spirit of kwok's Stages: behaviour is a table of stages, each with a
// selector (the step the subject is in, plus a predicate on the subject), a delay with optional jitter, and a
// `next` that applies the change and names the step that follows. Entering a step arms every stage selected
// there; leaving it disarms them, except `sticky` stages (a deadline that counts across restarts). The engine
// knows nothing about pods: the kubelet's table is pod-stages.ts.

export interface Stage<S extends StageSubject> {
  name: string;
  /** Selector, part 1: the steps in which the stage is armed. */
  from: readonly string[];
  /** Selector, part 2: a predicate on the subject when the step is entered (annotations, restart policy...). */
  when?(s: S): boolean;
  /** Milliseconds after entering the step; undefined or not finite = never. */
  delayMs(s: S): number | undefined;
  /** Up to this many milliseconds are added at random (kwok's jitterDurationMilliseconds); none by default. */
  jitterMs?(s: S): number;
  /** Stays armed when the step changes (cleared only by `cancelAll`). */
  sticky?: boolean;
  /** The change: updates the subject (and writes what it must); answers the next step, or undefined to stay. */
  next(s: S): string | undefined;
}

/** What the engine keeps on each subject. */
export interface StageSubject {
  step: string;
  /** Timers of the current step (disarmed on a step change) and sticky ones. */
  stageTimers: { step: Set<NodeJS.Timeout>; sticky: Set<NodeJS.Timeout> };
}

export function newStageTimers(): StageSubject['stageTimers'] {
  return { step: new Set(), sticky: new Set() };
}

export class StageEngine<S extends StageSubject> {
  constructor(
    private readonly stages: readonly Stage<S>[],
    /** May a timer still fire for the subject (not finished, engine owner not closed)? */
    private readonly alive: (s: S) => boolean,
  ) {}

  /** Moves the subject into `step` and arms the stages selected there. */
  enter(s: S, step: string): void {
    this.disarm(s.stageTimers.step);
    s.step = step;
    for (const stage of this.stages) {
      if (!stage.from.includes(step) || (stage.when && !stage.when(s))) continue;
      const delay = stage.delayMs(s);
      if (delay === undefined || !Number.isFinite(delay)) continue;
      const jitter = stage.jitterMs?.(s) ?? 0;
      const ms = Math.max(0, delay + (jitter > 0 ? Math.random() * jitter : 0));
      const set = stage.sticky ? s.stageTimers.sticky : s.stageTimers.step;
      const t = setTimeout(() => {
        set.delete(t);
        if (!this.alive(s)) return;
        const next = stage.next(s);
        if (next !== undefined) this.enter(s, next);
      }, ms);
      set.add(t);
    }
  }

  /** Disarms every stage of the subject, sticky ones included. */
  cancelAll(s: S): void {
    this.disarm(s.stageTimers.step);
    this.disarm(s.stageTimers.sticky);
  }

  private disarm(set: Set<NodeJS.Timeout>): void {
    for (const t of set) clearTimeout(t);
    set.clear();
  }
}
