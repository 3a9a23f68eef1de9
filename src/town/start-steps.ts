/**
 * How long each step of a town's start took, in order (Town.startSteps, for the bench and the
 * operator), and how long the whole start took (Town.startMs).
 */
export interface StartSteps {
  /** Milliseconds each named step took, in the order they ended. */
  steps: Record<string, number>;
  /** Ends the step running now under `name`; the next one starts. */
  step(name: string): void;
  /** Milliseconds since the start began. */
  sinceStart(): number;
}

export function startSteps(): StartSteps {
  const started = performance.now();
  const steps: Record<string, number> = {};
  let stepStarted = started;
  return {
    steps,
    step: (name) => {
      const now = performance.now();
      steps[name] = Math.round(now - stepStarted);
      stepStarted = now;
    },
    sinceStart: () => performance.now() - started,
  };
}
