/** One printed figure. A ratio target compares with a baseline measured in the same run. */
export interface BenchFigure {
  id: string;
  value: number;
  unit: string;
  /** Human-readable target, e.g. "<= 1.5x bare" or "= 0"; "" when the figure is informational. */
  target: string;
  ok: boolean;
}

export interface Benchmark {
  /** Short name used by `npm run bench -- NAME`. */
  name: string;
  description: string;
  run(): Promise<BenchFigure[]>;
}
