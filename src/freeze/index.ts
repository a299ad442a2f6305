/** Freeze windows, as plain data: the public face of freeze/ for the Slack side. */
export { Freezer, type FreezerDeps, notResumedReason } from './freezer.ts';
export { queueCallbacks } from './queue-callbacks.ts';
export {
  activeOccurrence,
  activeOrNext,
  type FreezeRule,
  nextWindowOccurrence,
  type Occurrence,
} from './schedule.ts';
export type * from './types.ts';
export { STATE_FOR_ACTION } from './types.ts';
export {
  type AddWindowInput,
  addWindow,
  listWindows,
  nextOrActiveWindow,
  removeWindow,
  type SkipResult,
  skipNext,
  type WindowView,
} from './windows.ts';
