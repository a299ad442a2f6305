// The sandbox page: a Slack-like channel, the app's direct messages and its Home tab, talking to the sandbox
// bridge (/sandbox/api/*). The bridge turns every command, click and submission into the signed request
// Slack would send, and streams back what the app did through Slack's Web API (messages, updates,
// ephemerals, threads, DMs, modals, Home tabs) as Server-Sent Events.
import { canvasHtml, elementAt, escapeHtml, renderBlocks } from './blockkit.js';

const $ = (sel) => document.querySelector(sel);
const state = {
  as: localStorage.getItem('mq-sandbox-as') === 'member' ? 'member' : 'operator',
  users: {},
  botName: 'mergequeue',
  /** ts → message */
  messages: new Map(),
  /** view id → { id, userId, view, errors } */
  views: new Map(),
  /** user id → the Home tab the app last published for them */
  homes: new Map(),
  /** 'channel' or 'home': what the main pane shows */
  page: 'channel',
  /** In the channel view: 'channel' (#merge-queue) or 'dm' (the app's direct messages to this person) */
  pane: 'channel',
  /** user id → ts of the newest DM they have seen */
  dmSeen: new Map(),
  openThread: null,
  history: [],
  historyAt: -1,
};

const me = () => state.users[state.as] ?? { id: '', name: state.as };
const userNames = () => Object.fromEntries(Object.values(state.users).map((u) => [u.id, u.name]));
const CHANNELS = { C0MERGEQ01: 'merge-queue' };
const renderOpts = (extra = {}) => ({ users: userNames(), channels: CHANNELS, ...extra });

async function api(path, body) {
  const res = await fetch(`/sandbox/api/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ as: state.as, ...body }),
  });
  const json = await res
    .json()
    .catch(() => ({ ok: false, error: `The sandbox answered HTTP ${res.status}` }));
  if (!json.ok && json.error) showNotice(json.error);
  return json;
}

function showNotice(text) {
  const el = document.createElement('div');
  el.className = 'notice';
  el.setAttribute('role', 'alert');
  el.textContent = text;
  $('#messages').append(el);
  scrollDown($('#messages'));
}

function scrollDown(el) {
  el.scrollTop = el.scrollHeight;
}

// ---- messages ----------------------------------------------------------------------------------------

function visible(m) {
  if (m.ephemeralTo && m.ephemeralTo !== me().id) return false;
  // The app's DMs to this person make the "Direct messages" pane; everything else is #merge-queue.
  return state.pane === 'dm' ? m.dmWith === me().id : !m.dmWith;
}

const PANES = {
  channel: { name: '# merge-queue', topic: 'Trunk merge queue for acme/web, acme/api and acme/mobile' },
  dm: { name: 'mergequeue', topic: 'Direct messages from the app: notes about your own PRs' },
};

function unreadDms() {
  const seen = state.dmSeen.get(me().id) ?? 0;
  return [...state.messages.values()].filter((m) => m.dmWith === me().id && Number(m.ts) > seen).length;
}

function markDmsSeen() {
  const mine = [...state.messages.values()].filter((m) => m.dmWith === me().id);
  state.dmSeen.set(me().id, Math.max(0, ...mine.map((m) => Number(m.ts))));
}

/** #merge-queue or the app's DMs, in the channel view. */
function setPane(pane) {
  state.pane = PANES[pane] ? pane : 'channel';
  $('#nav-channel').classList.toggle('active', state.page !== 'home' && state.pane === 'channel');
  $('#nav-dm').classList.toggle('active', state.page !== 'home' && state.pane === 'dm');
  $('#pane-name').textContent = PANES[state.pane].name;
  $('#pane-topic').textContent = PANES[state.pane].topic;
  // Commands are typed in the channel, as in this workspace's Slack.
  $('#composer').hidden = state.pane !== 'channel';
  $('#messages').innerHTML = '';
  render();
}

function timeOf(ts) {
  return new Date(Number(ts) * 1000).toLocaleTimeString([], { hour: 'numeric', minute: '2-digit' });
}

function messageHtml(m, inThread) {
  const bot = m.author.kind === 'bot';
  const initial = escapeHtml((m.author.name || '?').slice(0, 1).toUpperCase());
  const eph = m.ephemeralTo ? '<div class="only-you">👁 Only visible to you</div>' : '';
  const body = m.command
    ? `<div class="command-echo">${escapeHtml(m.command)}</div>`
    : m.blocks?.length
      ? renderBlocks(m.blocks, renderOpts())
      : renderBlocks([{ type: 'section', text: { type: 'mrkdwn', text: m.text ?? '' } }], renderOpts());
  // Link previews the app attached (chat.unfurl), under the message as Slack shows them.
  const unfurls = (m.unfurls ?? [])
    .map(
      (u) =>
        `<div class="unfurl" data-unfurl="${escapeHtml(u.url)}">${renderBlocks(u.blocks, renderOpts())}</div>`,
    )
    .join('');
  const replies = state.replyCounts.get(m.ts) ?? 0;
  const repliesBtn =
    !inThread && replies > 0
      ? `<button type="button" class="replies" data-thread="${escapeHtml(m.ts)}">${replies} ${replies === 1 ? 'reply' : 'replies'}</button>`
      : '';
  return `<div class="avatar ${bot ? 'bot' : 'human'}">${initial}</div><div class="msg-body"><div class="msg-head"><span class="msg-author">${escapeHtml(m.author.name)}</span>${bot ? '<span class="app-tag">APP</span>' : ''}<span class="msg-time">${escapeHtml(timeOf(m.ts))}</span>${m.edited ? '<span class="edited">(edited)</span>' : ''}</div>${eph}${body}${unfurls}${repliesBtn}</div>`;
}

function renderList(container, list, inThread) {
  const keep = new Set();
  let prev = null;
  for (const m of list) {
    const id = `${inThread ? 't' : 'm'}-${m.ts}`;
    keep.add(id);
    let node = container.querySelector(`[data-node="${CSS.escape(id)}"]`);
    const html = messageHtml(m, inThread);
    if (!node) {
      node = document.createElement('div');
      node.dataset.node = id;
      node.dataset.ts = m.ts;
      node.className = `msg${m.ephemeralTo ? ' ephemeral' : ''}`;
      node.innerHTML = html;
      node._html = html;
      if (prev) prev.after(node);
      else container.prepend(node);
    } else if (node._html !== html) {
      node.innerHTML = html;
      node._html = html;
    }
    prev = node;
  }
  for (const node of [...container.querySelectorAll('[data-node]')])
    if (!keep.has(node.dataset.node)) node.remove();
}

function render() {
  state.replyCounts = new Map();
  const all = [...state.messages.values()].filter(visible).sort((a, b) => Number(a.ts) - Number(b.ts));
  for (const m of all)
    if (m.threadTs && m.threadTs !== m.ts)
      state.replyCounts.set(m.threadTs, (state.replyCounts.get(m.threadTs) ?? 0) + 1);
  const box = $('#messages');
  const atBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 80;
  const top = all.filter((m) => !m.threadTs || m.threadTs === m.ts);
  renderList(box, top, false);
  if (top.length === 0 && !box.querySelector('.empty'))
    box.insertAdjacentHTML(
      'afterbegin',
      state.pane === 'dm'
        ? '<div class="empty">No messages from the app yet. It writes here when a PR of yours starts testing, merges or fails.</div>'
        : '<div class="empty">Type <code>status</code> below to see the merge queue.</div>',
    );
  else if (top.length > 0) box.querySelector('.empty')?.remove();
  if (atBottom) scrollDown(box);
  if (state.pane === 'dm' && state.page !== 'home') markDmsSeen();
  const unread = unreadDms();
  $('#dm-unread').hidden = unread === 0;
  $('#dm-unread').textContent = String(unread);
  if (state.openThread) {
    const parent = state.messages.get(state.openThread);
    const replies = all.filter((m) => m.threadTs === state.openThread && m.ts !== state.openThread);
    renderList($('#thread-messages'), parent ? [parent, ...replies] : replies, true);
  }
  renderModal();
}

// ---- modals ------------------------------------------------------------------------------------------

function topView() {
  const mine = [...state.views.values()].filter((v) => v.userId === me().id);
  return mine[mine.length - 1];
}

let confirmOpen = false;

function renderModal() {
  if (confirmOpen) return;
  const root = $('#modal-root');
  const v = topView();
  if (!v) {
    root.innerHTML = '';
    return;
  }
  const key = JSON.stringify([v.id, v.hash]);
  if (root.dataset.key === key) {
    // Same view, new errors: keep what the person typed, as Slack does.
    showErrors(root, v.errors ?? {});
    return;
  }
  root.dataset.key = key;
  const view = v.view;
  const submit = view.submit
    ? `<button type="submit" class="bk-btn bk-btn-primary">${escapeHtml(view.submit.text)}</button>`
    : '';
  const close = escapeHtml(view.close?.text ?? 'Cancel');
  root.innerHTML = `<div class="overlay"><form class="dialog modal" data-view="${escapeHtml(v.id)}" role="dialog" aria-modal="true" aria-label="${escapeHtml(view.title?.text ?? '')}" novalidate><header><span>${escapeHtml(view.title?.text ?? '')}</span><button type="button" data-close aria-label="Close">✕</button></header><div class="body">${renderBlocks(view.blocks, renderOpts({ errors: v.errors ?? {} }))}</div><div class="view-error" role="alert"></div><footer><button type="button" class="bk-btn" data-close>${close}</button>${submit}</footer></form></div>`;
  root.querySelector('input, select, textarea')?.focus();
}

function showErrors(root, errors) {
  for (const el of root.querySelectorAll('.bk-input-block .bk-error')) el.remove();
  for (const block of root.querySelectorAll('.bk-input-block')) {
    const message = errors[block.dataset.blockId];
    block.classList.toggle('has-error', Boolean(message));
    if (!message) continue;
    const div = document.createElement('div');
    div.className = 'bk-error';
    div.setAttribute('role', 'alert');
    div.textContent = message;
    block.append(div);
  }
  root.querySelector('.has-error')?.scrollIntoView({ block: 'nearest' });
}

function collectValues(form) {
  const values = {};
  for (const el of form.querySelectorAll('.body [data-path]')) {
    const type = el.dataset.type;
    if (type === 'plain_text_input' || type === 'number_input') values[el.dataset.path] = el.value;
    else if (el.tagName === 'SELECT')
      values[el.dataset.path] = [...el.selectedOptions].map((o) => o.value).filter(Boolean);
    else if (type === 'checkboxes' || type === 'radio_buttons')
      values[el.dataset.path] = [...el.querySelectorAll('input:checked')].map((i) => i.value);
  }
  return values;
}

document.addEventListener('submit', async (ev) => {
  const form = ev.target.closest('form.modal');
  if (!form) return;
  ev.preventDefault();
  const btn = form.querySelector('button[type=submit]');
  if (btn) btn.disabled = true;
  const res = await api('submit', { viewId: form.dataset.view, values: collectValues(form) });
  if (btn) btn.disabled = false;
  if (!res.ok && res.error) form.querySelector('.view-error').textContent = res.error;
});

function confirmDialog(confirm) {
  return new Promise((resolve) => {
    confirmOpen = true;
    const root = $('#modal-root');
    root.dataset.key = '';
    const style = confirm.style === 'danger' ? 'bk-btn-danger' : 'bk-btn-primary';
    root.innerHTML = `<div class="overlay"><div class="dialog confirm" role="alertdialog" aria-modal="true"><header><span>${escapeHtml(confirm.title?.text ?? 'Are you sure?')}</span></header><div class="body">${renderBlocks([{ type: 'section', text: confirm.text }], renderOpts())}</div><footer><button type="button" class="bk-btn" data-answer="no">${escapeHtml(confirm.deny?.text ?? 'Cancel')}</button><button type="button" class="bk-btn ${style}" data-answer="yes">${escapeHtml(confirm.confirm?.text ?? 'Yes')}</button></footer></div></div>`;
    root.querySelector('[data-answer=yes]').focus();
    root.onclick = (e) => {
      const answer = e.target.closest('[data-answer]')?.dataset.answer;
      if (!answer) return;
      root.onclick = null;
      confirmOpen = false;
      root.innerHTML = '';
      resolve(answer === 'yes');
      render();
    };
  });
}

// ---- interactions ------------------------------------------------------------------------------------

async function act(target, selected) {
  const path = target.dataset.path;
  const viewForm = target.closest('form.modal');
  const homeNode = target.closest('[data-home]');
  const msgNode = target.closest('[data-ts]');
  const viewId = viewForm?.dataset.view ?? homeNode?.dataset.home;
  const where = viewId ? { viewId } : { ts: msgNode?.dataset.ts };
  const blocks = viewForm
    ? state.views.get(viewId)?.view.blocks
    : homeNode
      ? state.homes.get(me().id)?.view.blocks
      : state.messages.get(where.ts)?.blocks;
  const found = elementAt(blocks, path);
  if (!found) return;
  if (found.element.confirm && !(await confirmDialog(found.element.confirm))) return;
  // A link button opens its URL and still tells the app it was clicked, as in Slack.
  if (typeof found.element.url === 'string' && /^https?:/.test(found.element.url))
    window.open(found.element.url, '_blank', 'noopener');
  target.disabled = true;
  await api('action', { ...where, path, selected });
  target.disabled = false;
}

document.addEventListener('click', (ev) => {
  const t = ev.target;
  const btn = t.closest('button[data-path]');
  if (btn) return void act(btn);
  const thread = t.closest('[data-thread]');
  if (thread) {
    state.openThread = thread.dataset.thread;
    $('#thread').hidden = false;
    $('#thread-messages').innerHTML = '';
    return void render();
  }
  const close = t.closest('[data-close]');
  if (close) {
    const form = close.closest('form.modal');
    state.views.delete(form.dataset.view);
    api('close', { viewId: form.dataset.view });
    return void render();
  }
  const suggestion = t.closest('[data-suggest]');
  if (suggestion) {
    $('#command').value = suggestion.dataset.suggest;
    $('#command').focus();
  }
});

document.addEventListener('change', (ev) => {
  const t = ev.target;
  if (t.matches('select[data-path]') && !t.closest('form.modal .body .bk-input-block')) {
    const selected = [...t.selectedOptions].map((o) => o.value).filter(Boolean);
    act(t, selected);
  }
  if (t.name === 'who') setWho(t.value);
});

$('#close-thread').addEventListener('click', () => {
  state.openThread = null;
  $('#thread').hidden = true;
});

$('#composer').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const input = $('#command');
  const text = input.value.trim();
  if (!text) return;
  state.history.push(text);
  state.historyAt = state.history.length;
  input.value = '';
  // A message with a link (not a /command) is posted to the channel; the app may unfurl its links.
  if (!text.startsWith('/') && /https?:\/\//.test(text)) await api('say', { text });
  else await api('command', { text });
});

$('#command').addEventListener('keydown', (ev) => {
  if (ev.key !== 'ArrowUp' && ev.key !== 'ArrowDown') return;
  if (state.history.length === 0) return;
  state.historyAt = Math.max(
    0,
    Math.min(state.history.length, state.historyAt + (ev.key === 'ArrowUp' ? -1 : 1)),
  );
  ev.target.value = state.history[state.historyAt] ?? '';
  ev.preventDefault();
});

$('#run-digest').addEventListener('click', () => api('digest', {}));
$('#step').addEventListener('click', async () => {
  const res = await api('step', {});
  if (res.ok)
    $('#step-result').textContent = res.happened?.length
      ? res.happened.join('\n')
      : 'Nothing changed this step.';
});

$('#workflow').addEventListener('click', async () => {
  const res = await api('workflow', {});
  if (res.ok) $('#workflow-result').textContent = (res.happened ?? []).join('\n');
});

// ---- the Home tab --------------------------------------------------------------------------------------

function renderHome() {
  const home = state.homes.get(me().id);
  $('#home-body').innerHTML = home
    ? `<div class="home" data-home="${escapeHtml(home.id)}">${renderBlocks(home.view.blocks, renderOpts())}</div>`
    : '<div class="empty">Opening your Home…</div>';
}

/** Opening the Home tab sends app_home_opened; the app builds the Home and publishes it. */
function showPage(page) {
  state.page = page === 'home' || page === 'canvas' ? page : 'channel';
  $('#home-view').hidden = state.page !== 'home';
  $('#canvas-view').hidden = state.page !== 'canvas';
  $('.channel-view:not(.home-view)').hidden = state.page !== 'channel';
  $('#nav-home').classList.toggle('active', state.page === 'home');
  $('#nav-canvas').classList.toggle('active', state.page === 'canvas');
  $('#nav-channel').classList.toggle('active', state.page === 'channel' && state.pane === 'channel');
  $('#nav-dm').classList.toggle('active', state.page === 'channel' && state.pane === 'dm');
  if (state.page === 'home') {
    renderHome();
    api('home', {});
  }
  if (state.page === 'canvas') void renderCanvas();
}

/** The channel's canvases (a dashboard edits its canvas at most once a minute): read again while shown. */
async function renderCanvas() {
  const res = await fetch('/sandbox/api/canvases');
  const canvases = res.ok ? await res.json() : [];
  $('#canvas-body').innerHTML = canvases.length
    ? canvases
        .map(
          (c) =>
            `<article class="canvas" data-canvas="${escapeHtml(c.id)}">${canvasHtml(c.markdown)}</article>`,
        )
        .join('')
    : '<div class="empty">No canvas yet: <code>/mergequeue dashboard</code> makes one.</div>';
}
setInterval(() => {
  if (state.page === 'canvas') void renderCanvas();
}, 5_000);

$('#nav-home').addEventListener('click', () => showPage('home'));
$('#nav-canvas').addEventListener('click', () => showPage('canvas'));
$('#nav-channel').addEventListener('click', () => {
  showPage('channel');
  setPane('channel');
});
$('#nav-dm').addEventListener('click', () => {
  showPage('channel');
  setPane('dm');
});

function setWho(who) {
  state.as = who === 'member' ? 'member' : 'operator';
  localStorage.setItem('mq-sandbox-as', state.as);
  for (const r of document.querySelectorAll('input[name=who]')) r.checked = r.value === state.as;
  $('#modal-root').dataset.key = '';
  render();
  // Each person has their own Home: opening it as the other one builds theirs.
  if (state.page === 'home') showPage('home');
}

const SUGGESTIONS = [
  'help',
  'status',
  'status acme/api',
  'status acme/mobile',
  'watch list',
  'freeze list',
  'me',
  'pr 4821',
  'pause Deploy freeze for the 2.14 release',
  'resume',
  'concurrency 3',
  'settings',
  'pr 4812',
  'why 4799',
  // Not a command: a pasted PR link, which the app unfurls under the message.
  'https://github.com/acme/web/pull/4799',
  'why 4803',
  'eta 4816',
  'run tr_7f3a9c21',
  'flaky',
  'quarantined acme/api',
  'digest add failing 09:00 weekdays',
  'digest list',
  'stats',
  'stats acme/web:main 30d',
  'digest add health acme/web:main 09:00 weekly',
  'dashboard',
];
$('#suggestions').innerHTML = SUGGESTIONS.map(
  (s) => `<li><button type="button" data-suggest="${escapeHtml(s)}">${escapeHtml(s)}</button></li>`,
).join('');

// ---- live updates ------------------------------------------------------------------------------------

function connect() {
  const es = new EventSource('/sandbox/api/events');
  es.addEventListener('open', () => $('#conn').classList.add('live'));
  es.addEventListener('error', () => $('#conn').classList.remove('live'));
  es.addEventListener('snapshot', (e) => {
    const s = JSON.parse(e.data);
    state.users = s.users;
    for (const [key, u] of Object.entries(s.users)) {
      const label = document.querySelector(`[data-user-label="${key}"]`);
      if (label) label.textContent = `${u.name} (${u.role})`;
    }
    state.messages = new Map(s.messages.map((m) => [m.ts, m]));
    state.views = new Map(s.views.map((v) => [v.id, v]));
    state.homes = new Map((s.homes ?? []).map((v) => [v.userId, v]));
    setWho(state.as);
    document.body.dataset.ready = 'true';
  });
  es.addEventListener('msg', (e) => {
    const m = JSON.parse(e.data);
    state.messages.set(m.ts, m);
    render();
  });
  es.addEventListener('msg-deleted', (e) => {
    state.messages.delete(JSON.parse(e.data).ts);
    render();
  });
  es.addEventListener('view', (e) => {
    const v = JSON.parse(e.data);
    state.views.delete(v.id);
    state.views.set(v.id, v);
    render();
  });
  es.addEventListener('view-closed', (e) => {
    state.views.delete(JSON.parse(e.data).id);
    render();
  });
  es.addEventListener('home', (e) => {
    const v = JSON.parse(e.data);
    state.homes.set(v.userId, v);
    if (v.userId === me().id) renderHome();
  });
  es.addEventListener('notice', (e) => showNotice(JSON.parse(e.data).text));
}

// Both pretend users live in the viewer's time zone, so digest times default to it.
api('hello', { tz: Intl.DateTimeFormat().resolvedOptions().timeZone });
connect();
