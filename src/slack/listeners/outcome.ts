/**
 * How a command or a click ended, for the `commands` and `interactions` counters: one type for both, so a
 * dashboard reads a refused click and a refused command the same way.
 */
export type Outcome = 'ok' | 'noop' | 'refused' | 'invalid' | 'failed';
