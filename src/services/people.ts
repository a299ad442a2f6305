/**
 * The people feature: a person's own GitHub login (`me …`), for notes about their PRs, and an operator's
 * verified link of someone to a login (`config people`). A self-made link is a claim nobody checked: it
 * brings notes and nothing more, a login someone else holds is refused, and only the workspace's own people
 * may claim one (a guest or a person of another organization could otherwise collect another's notes).
 * An operator's link settles a dispute: the login moves, and the earlier holder is named in the answer so
 * the Slack side can tell them. Every change and refusal is audited.
 */
import { PeopleRepository, SubmitterRepository } from '../watch/index.ts';
import type { PersonLink } from '../watch/types.ts';
import type { Actor } from './actor.ts';
import type { ServiceDeps } from './ports.ts';

/** What a login typed by a person becomes in the audit: never longer than this. */
const LOGIN_AUDIT_MAX = 60;

/** What a forgotten login is replaced with in the audit. */
export const FORGOTTEN_LOGIN = '(forgotten GitHub login)';

/** How long queue events (with the PR author as Trunk names them) are kept: watch/watcher.ts KEEP_EVENTS_MS. */
export const QUEUE_EVENT_DAYS = 7;

/** What `me forget` changed, and what is still kept and for how long. */
export interface Forgotten {
  /** Audit entries whose login was replaced with FORGOTTEN_LOGIN. */
  auditEntries: number;
  /** Records of notes delivered to the person, removed. */
  deliveries: number;
  /** Audit entries (who did what, by Slack id, without the login) are kept this many days. */
  auditRetentionDays: number;
  /** Queue events Trunk reported (the PR's author as GitHub names it) are kept this many days. */
  queueEventDays: number;
}

export type PeopleAnswer =
  | { answer: 'person'; link: PersonLink | undefined }
  | { answer: 'forgotten'; had: boolean; forgotten?: Forgotten }
  | { answer: 'notify'; on: boolean; linked: boolean }
  /** `replaced`: who held the login before an operator's link moved it (they should be told). */
  | { answer: 'linked'; link: PersonLink; byOperator: boolean; replaced?: string }
  | { answer: 'invalid'; message: string }
  /** Someone else holds the login; an operator settles it. */
  | { answer: 'taken'; login: string }
  /** `config people` by someone who is not an operator. */
  | { answer: 'not_operator'; because: string }
  /** A guest, a person of another organization, a bot: they may not link a login to themselves. */
  | { answer: 'not_own_person'; guest: boolean; because: string };

export class PeopleService {
  readonly #deps: ServiceDeps;

  constructor(deps: ServiceDeps) {
    this.#deps = deps;
  }

  #people(): PeopleRepository {
    return new PeopleRepository(this.#deps.store.db);
  }

  /** `me`: the person's own link. */
  async show(actor: Actor): Promise<PeopleAnswer> {
    return { answer: 'person', link: await this.#people().get(actor.workspace.id, actor.userId) };
  }

  /**
   * `me forget`: removes the person's link, replaces the login in the workspace's audit entries, and
   * removes the records of notes delivered to them. The answer says what is still kept, and how long.
   */
  async forget(actor: Actor): Promise<PeopleAnswer> {
    const people = this.#people();
    const workspaceId = actor.workspace.id;
    const link = await people.get(workspaceId, actor.userId);
    const had = await people.forget(workspaceId, actor.userId);
    if (!had || !link) return { answer: 'forgotten', had };
    const scrubbed = await this.#scrub(workspaceId, actor.userId, link.githubLogin);
    // The entry saying it happened names no login either.
    await actor.audit('me.forget', '', 'ok', scrubbed);
    return {
      answer: 'forgotten',
      had,
      forgotten: {
        ...scrubbed,
        auditRetentionDays: this.#deps.defaults().auditRetentionDays,
        queueEventDays: QUEUE_EVENT_DAYS,
      },
    };
  }

  /** The login out of the audit (target and detail), and the person's delivery records gone. */
  async #scrub(
    workspaceId: string,
    userId: string,
    login: string,
  ): Promise<{ auditEntries: number; deliveries: number }> {
    const { db } = this.#deps.store;
    return db.transaction(async (tx) => {
      const targets = await tx.execute(
        `UPDATE audit_log SET target = $3
         WHERE workspace_id = $1 AND action IN ('me.github', 'config.people') AND LOWER(target) = LOWER($2)`,
        [workspaceId, login, FORGOTTEN_LOGIN],
      );
      // Details that quote it: as a JSON value, or in words ("GitHub alice-gh, linked by an operator",
      // "config people @you alice-gh`"). Only those delimited forms, so a short login never rewrites other
      // words (or a JSON key). One statement, so each entry counts once.
      const forms = [
        [`:"${login}"`, `:"${FORGOTTEN_LOGIN}"`],
        [` ${login},`, ` ${FORGOTTEN_LOGIN},`],
        [` ${login}\``, ` ${FORGOTTEN_LOGIN}\``],
        [` ${login})`, ` ${FORGOTTEN_LOGIN})`],
      ];
      let replaced = 'detail';
      const params: string[] = [workspaceId];
      for (const [was, now] of forms) {
        params.push(was!, now!);
        replaced = `REPLACE(${replaced}, $${params.length - 1}, $${params.length})`;
      }
      const details = await tx.execute(
        `UPDATE audit_log SET detail = ${replaced} WHERE workspace_id = $1 AND ${replaced} <> detail`,
        params,
      );
      const deliveries = await tx.execute(
        'DELETE FROM watch_deliveries WHERE workspace_id = $1 AND destination = $2',
        [workspaceId, `author:${userId}`],
      );
      return { auditEntries: targets + details, deliveries };
    });
  }

  /** `me notify on|off`. */
  async notify(actor: Actor, on: boolean): Promise<PeopleAnswer> {
    const linked = await this.#people().setNotify(actor.workspace.id, actor.userId, on);
    // The same choice for notes about PRs they submit from Slack, link or not (issue 29).
    await new SubmitterRepository(this.#deps.store.db).setOptOut(
      actor.workspace.id,
      actor.userId,
      !on,
      actor.now(),
    );
    return { answer: 'notify', on, linked };
  }

  /** `me github <login>`: a claim of one's own login (unverified unless an operator confirmed it already). */
  async linkSelf(actor: Actor, login: string): Promise<PeopleAnswer> {
    const standing = await actor.standing();
    if (!standing.own) {
      const because = standing.unreadable
        ? 'your Slack profile could not be checked right now; try again in a minute'
        : standing.guest
          ? 'guests may not link a GitHub login to themselves'
          : 'only people of this workspace may link a GitHub login to themselves';
      await actor.audit('me.github', login.slice(0, LOGIN_AUDIT_MAX), 'refused', { because });
      return { answer: 'not_own_person', guest: standing.guest, because };
    }
    const people = this.#people();
    const workspaceId = actor.workspace.id;
    const current = await people.get(workspaceId, actor.userId);
    // Re-claiming one's own operator-confirmed login keeps it confirmed.
    const same = current?.githubLogin.toLowerCase() === login.replace(/^@/, '').toLowerCase();
    const r = await people.link({
      workspaceId,
      userId: actor.userId,
      githubLogin: login,
      linkedBy: actor.userId,
      verified: same && current?.verified === true,
      now: actor.now(),
    });
    if (!r.ok && r.reason === 'invalid') return { answer: 'invalid', message: r.message };
    if (!r.ok) {
      await actor.audit('me.github', login.slice(0, LOGIN_AUDIT_MAX), 'refused', {
        because: 'the login is linked to someone else',
      });
      return { answer: 'taken', login };
    }
    await actor.audit('me.github', r.link.githubLogin, 'ok', {});
    return { answer: 'linked', link: r.link, byOperator: false };
  }

  /** `config people <@user> <login>`: an operator's verified link, which moves the login from any holder. */
  async linkByOperator(actor: Actor, userId: string, login: string): Promise<PeopleAnswer> {
    const decision = await actor.operator();
    if (!decision.allowed) {
      await actor.audit('config.people', login.slice(0, LOGIN_AUDIT_MAX), 'refused', {
        because: decision.because,
      });
      return { answer: 'not_operator', because: decision.because };
    }
    const r = await this.#people().link({
      workspaceId: actor.workspace.id,
      userId,
      githubLogin: login,
      linkedBy: actor.userId,
      verified: true,
      reassign: true,
      now: actor.now(),
    });
    if (!r.ok)
      // reassign: true never answers `taken`; only an invalid login is left.
      return {
        answer: 'invalid',
        message: r.reason === 'invalid' ? r.message : 'That login could not be linked.',
      };
    await actor.audit('config.people', r.link.githubLogin, 'ok', {
      user: userId,
      ...(r.replaced ? { replaced: r.replaced } : {}),
    });
    return {
      answer: 'linked',
      link: r.link,
      byOperator: true,
      ...(r.replaced ? { replaced: r.replaced } : {}),
    };
  }
}
