// The answers to writes (app.ts routeAndSend: POST, PUT, PATCH, DELETE) are written together at the end of the turn of
// the event loop in which they became ready (its check phase, setImmediate), one after another, instead of each right
// after its own request's work. Reads are answered at once: their clients wait for that one answer.
//
// Why: a client waiting for answers sleeps in epoll, and the write that makes one of its sockets readable wakes it:
// on a virtual machine a cross-CPU interrupt, paid in the writer's system time. When the server is the busier side,
// answers written between other requests' work (a create is ~70 µs of it) find the client asleep again every time,
// so each paid its own wake-up; written back to back, the first wakes the client and the rest find it awake.
// (Corking each socket until the turn's end cannot do this: node's ServerResponse.end() uncorks its socket fully.)
// Measured with 32 keep-alive connections and 128 creates in flight from one client process (2026-11-27, 2 cores):
// the client's voluntary context switches per answer 0.67-0.72 → 0.06-0.07, the server's CPU per create 97-103 →
// 79-88 µs, creates per second +13%; the same for strategic merge PATCH.
//
// Go's server (what the real one is) writes each answer as it is made: the difference is only when the bytes leave,
// never what they are or their order on a connection (node's HTTP server holds the answer to a pipelined request
// until the answers before it on that connection are out). An answer waits at most for the rest of its turn, which
// the per-client queues (fair-queue.ts) bound to their budget.

export interface TurnEndTask {
  run(): void;
}

const waiting: TurnEndTask[] = [];

/** Runs `task` at the end of this turn of the event loop, after the tasks given before it. */
export function atTurnEnd(task: TurnEndTask): void {
  if (waiting.length === 0) setImmediate(release);
  waiting.push(task);
}

function release(): void {
  // A task given while these run (an answer made by one of them) waits for the next turn: the list is taken first.
  const tasks = waiting.splice(0);
  for (const t of tasks) {
    try {
      t.run();
    } catch (e) {
      // A task's failure must not cost the others their answers (nor the process): said, and the rest go on.
      process.stderr.write(`turn-writes: a task failed: ${(e as Error)?.stack ?? e}\n`);
    }
  }
}

/** Tasks waiting now (tests). */
export function waitingCount(): number {
  return waiting.length;
}
