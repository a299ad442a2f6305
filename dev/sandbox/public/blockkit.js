// Block Kit → HTML for the sandbox page. Plain JS (no build step), loaded by the browser as a module and
// imported by the unit tests. Every piece of text is escaped here; nothing from a message reaches the page
// as markup. Interactive elements carry `data-path` (where the element sits in the block list) so the page
// script can look up the element's JSON and build the exact Slack payload from it.

/** @param {unknown} s */
export function escapeHtml(s) {
  return String(s ?? '')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

/** Slack escapes only &, < and > in message text; undo that before escaping for HTML. */
function unslack(s) {
  return s.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
}

const EMOJI = {
  white_check_mark: '✅',
  grey_question: '❔',
  grey_exclamation: '❕',
  heavy_check_mark: '✔️',
  x: '❌',
  warning: '⚠️',
  rotating_light: '🚨',
  satellite_antenna: '📡',
  red_circle: '🔴',
  large_green_circle: '🟢',
  green_circle: '🟢',
  large_yellow_circle: '🟡',
  yellow_circle: '🟡',
  large_orange_circle: '🟠',
  orange_circle: '🟠',
  large_blue_circle: '🔵',
  blue_circle: '🔵',
  white_circle: '⚪',
  black_circle: '⚫',
  double_vertical_bar: '⏸️',
  pause_button: '⏸️',
  arrow_forward: '▶️',
  play_button: '▶️',
  stop_button: '⏹️',
  hourglass: '⌛',
  hourglass_flowing_sand: '⏳',
  hammer_and_wrench: '🛠️',
  gear: '⚙️',
  lock: '🔒',
  no_entry: '⛔',
  no_entry_sign: '🚫',
  test_tube: '🧪',
  microscope: '🔬',
  bug: '🐛',
  fire: '🔥',
  tada: '🎉',
  sparkles: '✨',
  zap: '⚡',
  clock1: '🕐',
  alarm_clock: '⏰',
  calendar: '📆',
  date: '📅',
  memo: '📝',
  mag: '🔍',
  link: '🔗',
  bust_in_silhouette: '👤',
  busts_in_silhouette: '👥',
  construction: '🚧',
  ticket: '🎫',
  arrow_up: '⬆️',
  arrow_down: '⬇️',
  arrow_right: '➡️',
  chart_with_upwards_trend: '📈',
  bar_chart: '📊',
  snail: '🐌',
  chart_with_downwards_trend: '📉',
  new: '🆕',
  inbox_tray: '📥',
  outbox_tray: '📤',
  fast_forward: '⏩',
  no_bell: '🔕',
  wave: '👋',
  information_source: 'ℹ️',
  question: '❓',
  exclamation: '❗',
  heavy_plus_sign: '➕',
  heavy_minus_sign: '➖',
  ok: '🆗',
  snowflake: '❄️',
  traffic_light: '🚥',
  vertical_traffic_light: '🚦',
  rocket: '🚀',
  robot_face: '🤖',
  mega: '📣',
  loudspeaker: '📢',
  bell: '🔔',
  package: '📦',
  card_index_dividers: '🗂️',
  clipboard: '📋',
  pushpin: '📌',
  ghost: '👻',
  skull: '💀',
  broken_heart: '💔',
  thumbsup: '👍',
  '+1': '👍',
  eyes: '👀',
  shield: '🛡️',
  checkered_flag: '🏁',
  arrows_counterclockwise: '🔄',
  repeat: '🔁',
  label: '🏷️',
  wastebasket: '🗑️',
  zzz: '💤',
};

function emojify(escaped) {
  return escaped.replace(/:([a-z0-9_+-]{1,40}):/g, (m, name) => EMOJI[name] ?? m);
}

// ---- dates: <!date^unix^format^optional_link|fallback> in the viewer's own time zone ----------------

function ordinal(n) {
  const s = ['th', 'st', 'nd', 'rd'];
  const v = n % 100;
  return n + (s[(v - 20) % 10] || s[v] || s[0]);
}

function partsIn(date, timeZone) {
  const f = new Intl.DateTimeFormat('en-US', {
    timeZone,
    year: 'numeric',
    month: 'long',
    day: 'numeric',
    weekday: 'long',
    hour: 'numeric',
    minute: '2-digit',
    second: '2-digit',
    hour12: true,
  });
  const p = {};
  for (const { type, value } of f.formatToParts(date)) p[type] = value;
  return p;
}

function dayKey(date, timeZone) {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(date);
}

function relativeDay(date, now, timeZone) {
  const key = dayKey(date, timeZone);
  const day = 86_400_000;
  if (key === dayKey(now, timeZone)) return 'Today';
  if (key === dayKey(new Date(now.getTime() - day), timeZone)) return 'Yesterday';
  if (key === dayKey(new Date(now.getTime() + day), timeZone)) return 'Tomorrow';
  return undefined;
}

function ago(date, now) {
  const secs = Math.round((now.getTime() - date.getTime()) / 1000);
  const abs = Math.abs(secs);
  const unit = (n, u) => `${n} ${u}${n === 1 ? '' : 's'}`;
  let s;
  if (abs < 60) s = unit(abs, 'second');
  else if (abs < 3600) s = unit(Math.round(abs / 60), 'minute');
  else if (abs < 86_400) s = unit(Math.round(abs / 3600), 'hour');
  else s = unit(Math.round(abs / 86_400), 'day');
  return secs >= 0 ? `${s} ago` : `in ${s}`;
}

/**
 * Formats Slack's date tokens ({date_num}, {date}, {date_short}, {date_long}, the *_pretty forms, {time},
 * {time_secs}, {ago}) in `opts.timeZone` (default: the viewer's own).
 */
export function formatSlackDate(unixSeconds, format, opts = {}) {
  const date = new Date(unixSeconds * 1000);
  if (Number.isNaN(date.getTime())) return undefined;
  const now = opts.now ? new Date(opts.now) : new Date();
  const tz = opts.timeZone;
  const p = partsIn(date, tz);
  const monthShort = p.month.slice(0, 3);
  const dayNum = Number(p.day);
  const num = dayKey(date, tz);
  const dates = {
    date_num: num,
    date: `${p.month} ${ordinal(dayNum)}, ${p.year}`,
    date_short: `${monthShort} ${dayNum}, ${p.year}`,
    date_long: `${p.weekday}, ${p.month} ${ordinal(dayNum)}, ${p.year}`,
  };
  const rel = relativeDay(date, now, tz);
  return format.replace(/\{(\w+)\}/g, (m, token) => {
    if (token in dates) return dates[token];
    if (token.endsWith('_pretty') && token.slice(0, -7) in dates) return rel ?? dates[token.slice(0, -7)];
    if (token === 'time') return `${p.hour}:${p.minute} ${p.dayPeriod}`;
    if (token === 'time_secs') return `${p.hour}:${p.minute}:${p.second} ${p.dayPeriod}`;
    if (token === 'ago') return ago(date, now);
    return m;
  });
}

// ---- mrkdwn -------------------------------------------------------------------------------------------

function renderAngle(inner, opts) {
  // inner is the raw text between < and >, still Slack-escaped.
  const bar = inner.indexOf('|');
  const head = bar === -1 ? inner : inner.slice(0, bar);
  const label = bar === -1 ? undefined : inner.slice(bar + 1);
  if (head.startsWith('@')) {
    const id = head.slice(1);
    const name = label ?? opts.users?.[id] ?? id;
    return `<span class="mention">@${escapeHtml(unslack(name))}</span>`;
  }
  if (head.startsWith('#')) {
    const name = label ?? opts.channels?.[head.slice(1)] ?? head.slice(1);
    return `<span class="mention">#${escapeHtml(unslack(name))}</span>`;
  }
  if (head.startsWith('!date^')) {
    const [, ts, fmt, link] = head.split('^');
    const text = formatSlackDate(Number(ts), unslack(fmt ?? ''), opts) ?? unslack(label ?? '');
    const shown = `<time datetime="${escapeHtml(new Date(Number(ts) * 1000).toISOString?.() ?? '')}" title="${escapeHtml(unslack(label ?? ''))}">${escapeHtml(text)}</time>`;
    return link ? linkHtml(unslack(link), shown) : shown;
  }
  if (head.startsWith('!subteam^')) {
    return `<span class="mention">${escapeHtml(unslack(label ?? `@${head.slice(9)}`))}</span>`;
  }
  if (head.startsWith('!')) {
    return `<span class="mention">@${escapeHtml(unslack(label ?? head.slice(1)))}</span>`;
  }
  const url = unslack(head);
  return linkHtml(url, escapeHtml(label === undefined ? url : unslack(label)));
}

function linkHtml(url, innerHtml) {
  if (!/^(https?:|mailto:)/i.test(url)) return innerHtml;
  return `<a href="${escapeHtml(url)}" target="_blank" rel="noopener noreferrer">${innerHtml}</a>`;
}

// Bold, italic and strike: markers must sit at word edges, as in Slack.
const STYLES = [
  [/(^|[^\w*])\*(?=\S)([^*\n]*?\S)\*(?![\w*])/g, 'strong'],
  [/(^|[^\w_])_(?=\S)([^_\n]*?\S)_(?![\w_])/g, 'em'],
  [/(^|[^\w~])~(?=\S)([^~\n]*?\S)~(?![\w~])/g, 'del'],
];

/** Inline mrkdwn (no code fences) → HTML. */
function inline(text, opts) {
  // Pull out code spans and <…> tokens first so styling never reaches inside them.
  const slots = [];
  const keep = (html) => {
    slots.push(html);
    return `\uE000${slots.length - 1}\uE001`;
  };
  // Private-use characters mark the slots; drop any already in the text so none can be forged.
  let s = text
    .replace(/[\uE000\uE001]/g, '')
    .replace(/`([^`\n]+)`/g, (_, code) => keep(`<code>${escapeHtml(unslack(code))}</code>`));
  s = s.replace(/<([^<>\n]+)>/g, (_, inner) => keep(renderAngle(inner, opts)));
  s = emojify(escapeHtml(unslack(s)));
  for (const [re, tag] of STYLES) s = s.replace(re, (_, pre, body) => `${pre}<${tag}>${body}</${tag}>`);
  return s.replace(/\uE000(\d+)\uE001/g, (_, i) => slots[Number(i)]);
}

/** Block-level mrkdwn: code fences, quotes, bullet and numbered lists, line breaks. */
export function mrkdwn(text, opts = {}) {
  const out = [];
  const parts = String(text ?? '').split('```');
  for (const [i, part] of parts.entries()) {
    if (i % 2 === 1 && i < parts.length - 1) {
      out.push(`<pre>${escapeHtml(unslack(part.replace(/^\n/, '')))}</pre>`);
      continue;
    }
    const chunk = i % 2 === 1 ? `\`\`\`${part}` : part;
    let list = null;
    const lines = [];
    const flushList = () => {
      if (list) lines.push(`<${list.tag}>${list.items.map((li) => `<li>${li}</li>`).join('')}</${list.tag}>`);
      list = null;
    };
    for (const line of chunk.split('\n')) {
      const bullet = /^\s*(?:[•◦▪-]|\*(?=\s))\s+(.*)$/.exec(line);
      const numbered = /^\s*\d+[.)]\s+(.*)$/.exec(line);
      if (bullet || numbered) {
        const tag = bullet ? 'ul' : 'ol';
        if (!list || list.tag !== tag) {
          flushList();
          list = { tag, items: [] };
        }
        list.items.push(inline((bullet ?? numbered)[1], opts));
        continue;
      }
      flushList();
      const quote = /^(?:&gt;|>)\s?(.*)$/.exec(line);
      if (quote) lines.push(`<blockquote>${inline(quote[1], opts)}</blockquote>`);
      else lines.push(`${inline(line, opts)}<br>`);
    }
    flushList();
    let html = lines.join('');
    if (html.endsWith('<br>')) html = html.slice(0, -4);
    out.push(html);
  }
  return out.join('');
}

/** A text object: mrkdwn or plain_text (plain_text may still carry emoji shortcodes). */
export function textObject(t, opts = {}) {
  if (!t) return '';
  if (typeof t === 'string') return mrkdwn(t, opts);
  if (t.type === 'mrkdwn') return t.verbatim ? escapeHtml(unslack(t.text)) : mrkdwn(t.text, opts);
  const plain = escapeHtml(t.text);
  return t.emoji === false ? plain : emojify(plain);
}

function plain(t) {
  return typeof t === 'string' ? t : (t?.text ?? '');
}

// ---- elements -----------------------------------------------------------------------------------------

function optionHtml(o, selectedValues) {
  const v = o.value ?? '';
  const sel = selectedValues.has(v) ? ' selected' : '';
  return `<option value="${escapeHtml(v)}"${sel}>${escapeHtml(plain(o.text))}</option>`;
}

function selectHtml(el, path, attrs = '') {
  const selected = new Set();
  if (el.initial_option) selected.add(el.initial_option.value);
  for (const o of el.initial_options ?? []) selected.add(o.value);
  const multi = el.type === 'multi_static_select';
  const placeholder = el.placeholder ? plain(el.placeholder) : 'Select an option';
  let body =
    multi || el.initial_option
      ? ''
      : `<option value="" disabled selected>${escapeHtml(placeholder)}</option>`;
  if (el.option_groups) {
    for (const g of el.option_groups)
      body += `<optgroup label="${escapeHtml(plain(g.label))}">${g.options.map((o) => optionHtml(o, selected)).join('')}</optgroup>`;
  } else {
    body += (el.options ?? []).map((o) => optionHtml(o, selected)).join('');
  }
  return `<select class="bk-select" data-path="${path}" data-type="${escapeHtml(el.type)}"${multi ? ' multiple' : ''}${attrs}>${body}</select>`;
}

function buttonHtml(el, path, opts) {
  const style = el.style === 'primary' || el.style === 'danger' ? ` bk-btn-${el.style}` : '';
  const text = textObject(el.text, opts);
  if (el.url && !el.action_id)
    return `<a class="bk-btn${style}" href="${escapeHtml(el.url)}" target="_blank" rel="noopener noreferrer">${text}</a>`;
  return `<button type="button" class="bk-btn${style}" data-path="${path}" data-type="button">${text}</button>`;
}

function overflowHtml(el, path) {
  const body = (el.options ?? [])
    .map((o) => `<option value="${escapeHtml(o.value ?? '')}">${escapeHtml(plain(o.text))}</option>`)
    .join('');
  return `<select class="bk-select bk-overflow" data-path="${path}" data-type="overflow" aria-label="More actions"><option value="" disabled selected>⋯</option>${body}</select>`;
}

/** An interactive element in a message (actions block or section accessory). */
export function elementHtml(el, path, opts = {}) {
  switch (el.type) {
    case 'button':
      return buttonHtml(el, path, opts);
    case 'static_select':
    case 'multi_static_select':
      return selectHtml(el, path);
    case 'overflow':
      return overflowHtml(el, path);
    case 'image':
      return `<img class="bk-image-el" src="${escapeHtml(el.image_url)}" alt="${escapeHtml(el.alt_text)}">`;
    case 'checkboxes':
    case 'radio_buttons':
      return choiceHtml(el, path, opts);
    default:
      return `<span class="bk-unsupported">[${escapeHtml(el.type)}]</span>`;
  }
}

function choiceHtml(el, path, opts, name = path) {
  const type = el.type === 'checkboxes' ? 'checkbox' : 'radio';
  const initial = new Set(
    (el.initial_options ?? (el.initial_option ? [el.initial_option] : [])).map((o) => o.value),
  );
  return `<div class="bk-choices" data-path="${path}" data-type="${el.type}">${(el.options ?? [])
    .map((o) => {
      const checked = initial.has(o.value) ? ' checked' : '';
      const desc = o.description
        ? `<div class="bk-choice-desc">${textObject(o.description, opts)}</div>`
        : '';
      return `<label class="bk-choice"><input type="${type}" name="${escapeHtml(name)}" value="${escapeHtml(o.value ?? '')}"${checked}><span>${textObject(o.text, opts)}${desc}</span></label>`;
    })
    .join('')}</div>`;
}

/** An input block's element, inside a modal form. */
function inputElementHtml(el, path, opts) {
  const id = `in-${path}`;
  switch (el.type) {
    case 'plain_text_input': {
      const common = `id="${id}" class="bk-input" data-path="${path}" data-type="plain_text_input"${el.placeholder ? ` placeholder="${escapeHtml(plain(el.placeholder))}"` : ''}${el.max_length ? ` maxlength="${Number(el.max_length)}"` : ''}`;
      return el.multiline
        ? `<textarea ${common} rows="3">${escapeHtml(el.initial_value ?? '')}</textarea>`
        : `<input type="text" ${common} value="${escapeHtml(el.initial_value ?? '')}">`;
    }
    case 'number_input':
      return `<input type="text" inputmode="${el.is_decimal_allowed ? 'decimal' : 'numeric'}" id="${id}" class="bk-input" data-path="${path}" data-type="number_input" value="${escapeHtml(el.initial_value ?? '')}"${el.placeholder ? ` placeholder="${escapeHtml(plain(el.placeholder))}"` : ''}>`;
    case 'static_select':
    case 'multi_static_select':
      return selectHtml(el, path, ` id="${id}"`);
    case 'checkboxes':
    case 'radio_buttons':
      return choiceHtml(el, path, opts);
    default:
      return `<span class="bk-unsupported">[${escapeHtml(el.type)}]</span>`;
  }
}

// ---- blocks -------------------------------------------------------------------------------------------

/**
 * Renders a block list. `opts.prefix` namespaces data-path values; `opts.errors` maps block_id → message
 * for modal submission errors; `opts.users` maps user ids to names for mentions; `opts.timeZone`/`opts.now`
 * pin dates for tests.
 */
export function renderBlocks(blocks, opts = {}) {
  return (blocks ?? []).map((b, i) => renderBlock(b, i, opts)).join('');
}

function renderBlock(b, i, opts) {
  const path = `${opts.prefix ?? ''}${i}`;
  switch (b.type) {
    case 'header':
      return `<div class="bk-header">${textObject(b.text, opts)}</div>`;
    case 'divider':
      return '<hr class="bk-divider">';
    case 'section': {
      const text = b.text ? `<div class="bk-text">${textObject(b.text, opts)}</div>` : '';
      const fields = b.fields?.length
        ? `<div class="bk-fields">${b.fields.map((f) => `<div class="bk-field">${textObject(f, opts)}</div>`).join('')}</div>`
        : '';
      const acc = b.accessory
        ? `<div class="bk-accessory">${elementHtml(b.accessory, `${path}.a`, opts)}</div>`
        : '';
      return `<div class="bk-section"><div class="bk-section-main">${text}${fields}</div>${acc}</div>`;
    }
    case 'context':
      return `<div class="bk-context">${(b.elements ?? [])
        .map((e) =>
          e.type === 'image'
            ? `<img class="bk-context-img" src="${escapeHtml(e.image_url)}" alt="${escapeHtml(e.alt_text)}">`
            : `<span>${textObject(e, opts)}</span>`,
        )
        .join('')}</div>`;
    case 'actions':
      return `<div class="bk-actions">${(b.elements ?? []).map((e, j) => elementHtml(e, `${path}.${j}`, opts)).join('')}</div>`;
    case 'image':
      return `<figure class="bk-image">${b.title ? `<figcaption>${textObject(b.title, opts)}</figcaption>` : ''}<img src="${escapeHtml(b.image_url)}" alt="${escapeHtml(b.alt_text)}"></figure>`;
    case 'input': {
      const err = b.block_id && opts.errors?.[b.block_id];
      const optional = b.optional ? ' <span class="bk-optional">(optional)</span>' : '';
      const hint = b.hint ? `<div class="bk-hint">${textObject(b.hint, opts)}</div>` : '';
      const error = err ? `<div class="bk-error" role="alert">${escapeHtml(err)}</div>` : '';
      return `<div class="bk-input-block${err ? ' has-error' : ''}" data-block-id="${escapeHtml(b.block_id ?? '')}"><label class="bk-label" for="in-${path}.e">${textObject(b.label, opts)}${optional}</label>${inputElementHtml(b.element, `${path}.e`, opts)}${hint}${error}</div>`;
    }
    case 'rich_text':
      return `<div class="bk-text">${escapeHtml(richTextPlain(b))}</div>`;
    case 'data_visualization':
      return chartHtml(b);
    default:
      return `<div class="bk-unsupported">[${escapeHtml(b.type)} block]</div>`;
  }
}

const SERIES_COLOURS = ['#1264a3', '#e01e5a', '#2eb67d', '#ecb22e', '#36c5f0', '#4a154b'];

/** A readable number for an axis: 0, 12, 1.5, 12k. */
function axisNumber(v) {
  if (Math.abs(v) >= 10_000) return `${Math.round(v / 1000)}k`;
  return Number.isInteger(v) ? String(v) : v.toFixed(1);
}

/** The axis's top: a round number at or above the largest value (at least 1). */
function niceMax(max) {
  if (!(max > 0)) return 1;
  const step = 10 ** Math.floor(Math.log10(max));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * step >= max) return m * step;
  return 10 * step;
}

/**
 * A `data_visualization` block (bar or line chart) as an inline SVG with a legend: well enough to read,
 * not Slack's own drawing. Values and labels come from the block; every one is escaped. A pie chart, or a
 * chart whose shape is unexpected, is listed as text.
 */
function chartHtml(b) {
  const title = `<div class="bk-chart-title">${escapeHtml(b.title)}</div>`;
  const chart = b.chart ?? {};
  const categories = chart.axis_config?.categories ?? [];
  const series = Array.isArray(chart.series) ? chart.series : [];
  if ((chart.type !== 'bar' && chart.type !== 'line') || categories.length === 0 || series.length === 0) {
    const items = (chart.segments ?? []).map(
      (sg) => `<li>${escapeHtml(sg.label)}: ${escapeHtml(sg.value)}</li>`,
    );
    return `<figure class="bk-chart">${title}<ul>${items.join('')}</ul></figure>`;
  }
  const W = 480;
  const H = 200;
  const left = 40;
  const bottom = 44;
  const top = 22;
  const plotW = W - left - 10;
  const plotH = H - top - bottom;
  const pointOf = (s, label) => Number(s.data?.find((d) => d.label === label)?.value ?? 0);
  const max = niceMax(Math.max(0, ...series.flatMap((s) => categories.map((c) => pointOf(s, c)))));
  const y = (v) => top + plotH - (Math.max(0, v) / max) * plotH;
  const slot = plotW / categories.length;
  const parts = [];
  for (const t of [0, 0.5, 1]) {
    const v = max * t;
    parts.push(
      `<line x1="${left}" x2="${W - 10}" y1="${y(v)}" y2="${y(v)}" class="bk-chart-grid"/>`,
      `<text x="${left - 4}" y="${y(v) + 4}" text-anchor="end" class="bk-chart-axis">${escapeHtml(axisNumber(v))}</text>`,
    );
  }
  categories.forEach((c, i) => {
    const x = left + slot * i + slot / 2;
    parts.push(
      `<text x="${x}" y="${H - bottom + 14}" text-anchor="middle" class="bk-chart-axis">${escapeHtml(c)}</text>`,
    );
  });
  if (chart.type === 'bar') {
    const barW = Math.max(2, (slot * 0.8) / series.length);
    series.forEach((s, k) => {
      const colour = SERIES_COLOURS[k % SERIES_COLOURS.length];
      categories.forEach((c, i) => {
        const v = pointOf(s, c);
        const x = left + slot * i + slot * 0.1 + barW * k;
        parts.push(
          `<rect x="${x}" y="${y(v)}" width="${barW - 1}" height="${top + plotH - y(v)}" fill="${colour}"><title>${escapeHtml(`${s.name} · ${c}: ${v}`)}</title></rect>`,
        );
      });
    });
  } else {
    series.forEach((s, k) => {
      const colour = SERIES_COLOURS[k % SERIES_COLOURS.length];
      const points = categories.map((c, i) => `${left + slot * i + slot / 2},${y(pointOf(s, c))}`);
      parts.push(`<polyline points="${points.join(' ')}" fill="none" stroke="${colour}" stroke-width="2"/>`);
      categories.forEach((c, i) => {
        parts.push(
          `<circle cx="${left + slot * i + slot / 2}" cy="${y(pointOf(s, c))}" r="3" fill="${colour}"><title>${escapeHtml(`${s.name} · ${c}: ${pointOf(s, c)}`)}</title></circle>`,
        );
      });
    });
  }
  const yLabel = chart.axis_config?.y_label
    ? `<text x="4" y="12" class="bk-chart-axis">${escapeHtml(chart.axis_config.y_label)}</text>`
    : '';
  const legend = series
    .map(
      (s, k) =>
        `<span class="bk-chart-key"><span class="bk-chart-swatch" style="background:${SERIES_COLOURS[k % SERIES_COLOURS.length]}"></span>${escapeHtml(s.name)}</span>`,
    )
    .join('');
  const label = `${chart.type} chart: ${b.title}`;
  return `<figure class="bk-chart" data-chart="${escapeHtml(chart.type)}">${title}<svg viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="img" aria-label="${escapeHtml(label)}">${yLabel}${parts.join('')}</svg><div class="bk-chart-legend">${legend}</div></figure>`;
}

function richTextPlain(node) {
  if (typeof node.text === 'string') return node.text;
  return (node.elements ?? []).map(richTextPlain).join('');
}

/** Finds the element JSON a data-path points to ("3.1" = block 3 element 1; "2.a" = accessory; "4.e" = input element). */
export function elementAt(blocks, path) {
  const [bi, ei] = String(path).split('.');
  const block = blocks?.[Number(bi)];
  if (!block) return undefined;
  if (ei === 'a') return { block, element: block.accessory };
  if (ei === 'e') return { block, element: block.element };
  const element = block.elements?.[Number(ei)];
  return element ? { block, element } : undefined;
}

/** Canvas markdown inline: **bold**, [text](https://…); everything else escaped. */
function canvasInline(text) {
  return escapeHtml(text)
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
    .replace(
      /\[([^\]]+)\]\((https?:\/\/[^\s)]+)\)/g,
      '<a href="$2" target="_blank" rel="noopener noreferrer">$1</a>',
    );
}

/**
 * A canvas's markdown (what the app writes with canvases.create/edit) as HTML, well enough to read:
 * headings, paragraphs, bulleted lists and tables. Every piece of text is escaped.
 * @param {string} md
 */
export function canvasHtml(md) {
  const out = [];
  const lines = String(md ?? '').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const h = /^(#{1,3}) (.*)$/.exec(line);
    if (h) {
      out.push(`<h${h[1].length + 1}>${canvasInline(h[2])}</h${h[1].length + 1}>`);
      continue;
    }
    if (line.startsWith('|')) {
      const rows = [];
      while (i < lines.length && lines[i].startsWith('|')) rows.push(lines[i++]);
      i--;
      const cells = (r) =>
        r
          .replace(/^\||\|$/g, '')
          .split('|')
          .map((c) => c.trim());
      const body = rows.filter((r) => !/^\|\s*-{3}/.test(r));
      const [head, ...rest] = body;
      out.push(
        `<table class="canvas-table"><thead><tr>${cells(head)
          .map((c) => `<th>${canvasInline(c)}</th>`)
          .join('')}</tr></thead><tbody>${rest
          .map(
            (r) =>
              `<tr>${cells(r)
                .map((c) => `<td>${canvasInline(c)}</td>`)
                .join('')}</tr>`,
          )
          .join('')}</tbody></table>`,
      );
      continue;
    }
    if (line.startsWith('- ')) {
      const items = [];
      while (i < lines.length && lines[i].startsWith('- ')) items.push(lines[i++].slice(2));
      i--;
      out.push(`<ul>${items.map((t) => `<li>${canvasInline(t)}</li>`).join('')}</ul>`);
      continue;
    }
    if (line.trim()) out.push(`<p>${canvasInline(line)}</p>`);
  }
  return out.join('');
}
