/** Dashboards: a queue's state, PRs and week kept current in a channel canvas. The public face of dashboard/. */
export {
  type Dashboard,
  DashboardRepository,
  MAX_DASHBOARDS_PER_CHANNEL,
  MIN_EDIT_GAP_MS,
} from './repository.ts';
