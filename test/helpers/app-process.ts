/**
 * A test-only entry: `node test/helpers/app-process.ts [--clock-offset-ms=N] [--digest-tick-cron=CRON]
 * [--digest-lease-ms=N] [--digest-pace-ms=N] [--watch-lease-ms=N] [--freeze-tick-ms=N] [--freeze-lease-ms=N]` runs the app exactly as `node src/main.ts` does (same
 * environment, same logs and shutdown), with the seams process-level tests need handed to createApp as
 * overrides: a shifted clock so a digest falls due seconds after start, a faster ticker, a short lease, a
 * channel pace; short watcher and freezer leases so a SIGKILLed replica's work is taken over within seconds. The product reads none of them; start it with `appProcessArgs()` through the harness.
 */
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { AppOverrides } from '../../src/app.ts';
import { main } from '../../src/main.ts';

export interface AppProcessSeams {
  /** Added to Date.now() for the app's clock. */
  clockOffsetMs?: number;
  digestTickCron?: string;
  digestLeaseMs?: number;
  digestPaceMs?: number;
  watchLeaseMs?: number;
  freezeTickMs?: number;
  freezeLeaseMs?: number;
}

/** The command-line arguments that hand `seams` to this entry. */
export function appProcessArgs(seams: AppProcessSeams): string[] {
  const args: string[] = [];
  if (seams.clockOffsetMs !== undefined) args.push(`--clock-offset-ms=${seams.clockOffsetMs}`);
  if (seams.digestTickCron !== undefined) args.push(`--digest-tick-cron=${seams.digestTickCron}`);
  if (seams.digestLeaseMs !== undefined) args.push(`--digest-lease-ms=${seams.digestLeaseMs}`);
  if (seams.digestPaceMs !== undefined) args.push(`--digest-pace-ms=${seams.digestPaceMs}`);
  if (seams.watchLeaseMs !== undefined) args.push(`--watch-lease-ms=${seams.watchLeaseMs}`);
  if (seams.freezeTickMs !== undefined) args.push(`--freeze-tick-ms=${seams.freezeTickMs}`);
  if (seams.freezeLeaseMs !== undefined) args.push(`--freeze-lease-ms=${seams.freezeLeaseMs}`);
  return args;
}

/** Parses the arguments appProcessArgs() writes; a mistyped one fails loudly rather than being ignored. */
export function overridesFromArgs(argv: string[]): AppOverrides {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      'clock-offset-ms': { type: 'string' },
      'digest-tick-cron': { type: 'string' },
      'digest-lease-ms': { type: 'string' },
      'digest-pace-ms': { type: 'string' },
      'watch-lease-ms': { type: 'string' },
      'freeze-tick-ms': { type: 'string' },
      'freeze-lease-ms': { type: 'string' },
    },
  });
  const number = (name: keyof typeof values): number | undefined => {
    const raw = values[name];
    if (raw === undefined) return undefined;
    const n = Number(raw);
    if (!Number.isFinite(n)) throw new Error(`--${name} must be a number of milliseconds, not ${raw}`);
    return n;
  };
  const offset = number('clock-offset-ms');
  const digest: NonNullable<Exclude<AppOverrides['digest'], false>> = {};
  if (values['digest-tick-cron'] !== undefined) digest.tickCron = values['digest-tick-cron'];
  const lease = number('digest-lease-ms');
  if (lease !== undefined) digest.leaseMs = lease;
  const pace = number('digest-pace-ms');
  if (pace !== undefined) digest.paceMs = pace;
  const watchLease = number('watch-lease-ms');
  const freeze: NonNullable<AppOverrides['freeze']> = {};
  const freezeTick = number('freeze-tick-ms');
  if (freezeTick !== undefined) freeze.tickMs = freezeTick;
  const freezeLease = number('freeze-lease-ms');
  if (freezeLease !== undefined) freeze.leaseMs = freezeLease;
  return {
    ...(offset !== undefined ? { clock: () => Date.now() + offset } : {}),
    ...(Object.keys(digest).length > 0 ? { digest } : {}),
    ...(watchLease !== undefined ? { watch: { leaseMs: watchLease } } : {}),
    ...(Object.keys(freeze).length > 0 ? { freeze } : {}),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await main(process.env, overridesFromArgs(process.argv.slice(2)));
}
