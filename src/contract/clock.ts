/** Milliseconds since the epoch. Passed in everywhere so tests and the kernel control time. */
export type Clock = () => number;
