import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  canvasHtml,
  elementAt,
  formatSlackDate,
  mrkdwn,
  renderBlocks,
} from '../../../dev/sandbox/public/blockkit.js';

// 2026-11-22T14:05:09Z
const T = Date.UTC(2026, 10, 22, 14, 5, 9) / 1000;

describe('mrkdwn', () => {
  it('renders bold, italic, strike, code, links and mentions', () => {
    const html = mrkdwn(
      '*Paused* by <@U1> _for now_ ~maybe~ `a < b` see <https://x.io/q?a=1&amp;b=2|the run>',
      {
        users: { U1: 'Maya Chen' },
      },
    );
    expect(html).toBe(
      '<strong>Paused</strong> by <span class="mention">@Maya Chen</span> <em>for now</em> <del>maybe</del> <code>a &lt; b</code> see <a href="https://x.io/q?a=1&amp;b=2" target="_blank" rel="noopener noreferrer">the run</a>',
    );
  });

  it('keeps markers inside words and code literal', () => {
    expect(mrkdwn('snake_case_name and 2*3*4 and `*not bold*`')).toBe(
      'snake_case_name and 2*3*4 and <code>*not bold*</code>',
    );
  });

  it('renders bullet and numbered lists, quotes and code blocks', () => {
    const html = mrkdwn(
      'Blocked:\n• base branch differs\n• *not mergeable*\n1. first\n2. second\n> quoted\n```x *y*\n<z>```',
    );
    expect(html).toBe(
      'Blocked:<br><ul><li>base branch differs</li><li><strong>not mergeable</strong></li></ul><ol><li>first</li><li>second</li></ol><blockquote>quoted</blockquote><pre>x *y*\n&lt;z&gt;</pre>',
    );
  });

  it('escapes everything that is not markup, and links only http(s)/mailto', () => {
    const html = mrkdwn('<img src=x onerror=alert(1)> <javascript:alert(1)|click> "q" &amp; \'s\'');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('href="javascript');
    expect(html).toContain('img src=x onerror=alert(1)');
    expect(html).toContain('&quot;q&quot; &amp; &#39;s&#39;');
  });

  it('turns emoji shortcodes into characters and leaves unknown ones', () => {
    expect(mrkdwn(':white_check_mark: done :no_such_emoji:')).toBe('✅ done :no_such_emoji:');
  });

  it('knows every emoji shortcode the app writes', () => {
    const dir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'src', 'slack');
    const names = new Set<string>();
    for (const file of readdirSync(dir, { recursive: true, encoding: 'utf8' }))
      if (file.endsWith('.ts'))
        for (const m of readFileSync(join(dir, file), 'utf8').matchAll(/:([a-z][a-z_]{2,}):/g))
          names.add(m[1]!);
    expect(names.size).toBeGreaterThan(10);
    const unknown = [...names].filter((n) => mrkdwn(`:${n}:`) === `:${n}:`);
    expect(unknown).toEqual([]);
  });
});

describe('dates', () => {
  it('formats every Slack token in the viewer time zone', () => {
    const now = (T + 3600) * 1000;
    expect(formatSlackDate(T, '{date_num} {time} {time_secs}', { timeZone: 'Asia/Tokyo', now })).toBe(
      '2026-11-22 11:05 PM 11:05:09 PM',
    );
    expect(formatSlackDate(T, '{date} | {date_short} | {date_long}', { timeZone: 'UTC', now })).toBe(
      'November 22nd, 2026 | Nov 22, 2026 | Sunday, November 22nd, 2026',
    );
    expect(formatSlackDate(T, '{date_short_pretty} at {time} ({ago})', { timeZone: 'UTC', now })).toBe(
      'Today at 2:05 PM (1 hour ago)',
    );
    // The same instant is "Yesterday" where it is already the next day.
    expect(
      formatSlackDate(T, '{date_pretty}', { timeZone: 'Pacific/Kiritimati', now: (T + 86_400) * 1000 }),
    ).toBe('Yesterday');
  });

  it('renders <!date^…> with the fallback as a title', () => {
    const html = mrkdwn(`Next run <!date^${T}^{date_short} {time}|Nov 22 at 14:05 UTC>`, {
      timeZone: 'America/New_York',
    });
    expect(html).toContain('>Nov 22, 2026 9:05 AM</time>');
    expect(html).toContain('title="Nov 22 at 14:05 UTC"');
  });
});

describe('blocks', () => {
  const blocks = [
    { type: 'header', text: { type: 'plain_text', text: 'acme/web:main <running>' } },
    {
      type: 'section',
      text: { type: 'mrkdwn', text: '*State:* running' },
      fields: [
        { type: 'mrkdwn', text: '*Concurrency*\n4' },
        { type: 'plain_text', text: '*not bold*' },
      ],
      accessory: { type: 'button', action_id: 'open', text: { type: 'plain_text', text: 'Open' } },
    },
    { type: 'divider' },
    { type: 'context', elements: [{ type: 'mrkdwn', text: 'Updated by <@U1>' }] },
    {
      type: 'actions',
      block_id: 'controls',
      elements: [
        {
          type: 'button',
          action_id: 'pause',
          style: 'danger',
          text: { type: 'plain_text', text: 'Pause' },
          confirm: { title: { type: 'plain_text', text: 'Pause?' } },
        },
        {
          type: 'static_select',
          action_id: 'pick',
          placeholder: { type: 'plain_text', text: 'Concurrency' },
          options: [
            { text: { type: 'plain_text', text: 'One' }, value: '1' },
            { text: { type: 'plain_text', text: '<Two>' }, value: '2' },
          ],
          initial_option: { text: { type: 'plain_text', text: '<Two>' }, value: '2' },
        },
      ],
    },
  ];

  it('renders header, section with fields and accessory, divider, context and actions', () => {
    const html = renderBlocks(blocks, { users: { U1: 'Maya' } });
    expect(html).toContain('<div class="bk-header">acme/web:main &lt;running&gt;</div>');
    expect(html).toContain('<div class="bk-field"><strong>Concurrency</strong><br>4</div>');
    expect(html).toContain('<div class="bk-field">*not bold*</div>');
    expect(html).toContain('data-path="1.a"');
    expect(html).toContain('<hr class="bk-divider">');
    expect(html).toContain('@Maya');
    expect(html).toContain('class="bk-btn bk-btn-danger" data-path="4.0"');
    expect(html).toContain('<option value="2" selected>&lt;Two&gt;</option>');
  });

  it('finds the element behind a data-path', () => {
    expect(elementAt(blocks, '4.0')?.element['action_id']).toBe('pause');
    expect(elementAt(blocks, '1.a')?.element['action_id']).toBe('open');
    expect(elementAt(blocks, '4.0')?.block['block_id']).toBe('controls');
    expect(elementAt(blocks, '9.0')).toBeUndefined();
  });

  it('renders modal inputs with hints, optional marks and submission errors', () => {
    const html = renderBlocks(
      [
        {
          type: 'input',
          block_id: 'concurrency',
          label: { type: 'plain_text', text: 'Concurrency' },
          element: { type: 'number_input', action_id: 'v', is_decimal_allowed: false, initial_value: '4' },
          hint: { type: 'plain_text', text: '1 or more' },
        },
        {
          type: 'input',
          block_id: 'reason',
          optional: true,
          label: { type: 'plain_text', text: 'Reason' },
          element: {
            type: 'plain_text_input',
            action_id: 'v',
            multiline: true,
            initial_value: '</textarea><b>',
          },
        },
        {
          type: 'input',
          block_id: 'flags',
          label: { type: 'plain_text', text: 'Flags' },
          element: {
            type: 'checkboxes',
            action_id: 'v',
            options: [{ text: { type: 'plain_text', text: 'Batch' }, value: 'batch' }],
            initial_options: [{ text: { type: 'plain_text', text: 'Batch' }, value: 'batch' }],
          },
        },
      ],
      { errors: { concurrency: 'Must be at least 1 <sic>' } },
    );
    expect(html).toContain('data-type="number_input" value="4"');
    expect(html).toContain('<div class="bk-error" role="alert">Must be at least 1 &lt;sic&gt;</div>');
    expect(html).toContain('(optional)');
    expect(html).toContain('&lt;/textarea&gt;&lt;b&gt;</textarea>');
    expect(html).toContain('type="checkbox" name="2.e" value="batch" checked');
    expect(html).toContain('<div class="bk-hint">1 or more</div>');
  });
});

describe('charts', () => {
  const categories = ['Mon 23 Nov', 'Tue 24 Nov', 'Wed 25 Nov'];
  const series = (name: string, values: number[]) => ({
    name,
    data: values.map((value, i) => ({ label: categories[i]!, value })),
  });

  it('draws a bar chart: one bar per series and day, its legend and its axis labels', () => {
    const html = renderBlocks([
      {
        type: 'data_visualization',
        title: 'Merged and kicked per day',
        chart: {
          type: 'bar',
          series: [series('Merged', [12, 30, 7]), series('Kicked', [1, 0, 4])],
          axis_config: { categories, y_label: 'PRs' },
        },
      },
    ]);
    expect(html).toContain('data-chart="bar"');
    expect(html).toContain('Merged and kicked per day');
    expect(html.match(/<rect /g)).toHaveLength(6);
    expect(html).toContain('<title>Merged · Tue 24 Nov: 30</title>');
    expect(html).toContain('>Mon 23 Nov</text>');
    expect(html).toContain('Kicked</span>');
    expect(html).not.toContain('bk-unsupported');
  });

  it('draws a line chart: one line per series, a point per day', () => {
    const html = renderBlocks([
      {
        type: 'data_visualization',
        title: 'Time in queue per day (minutes)',
        chart: {
          type: 'line',
          series: [series('p50', [20, 25, 90]), series('p90', [45, 60, 180])],
          axis_config: { categories, y_label: 'minutes' },
        },
      },
    ]);
    expect(html).toContain('data-chart="line"');
    expect(html.match(/<polyline /g)).toHaveLength(2);
    expect(html.match(/<circle /g)).toHaveLength(6);
    expect(html).toContain('<title>p90 · Wed 25 Nov: 180</title>');
  });

  it('escapes every label and title', () => {
    const html = renderBlocks([
      {
        type: 'data_visualization',
        title: '<script>x</script>',
        chart: {
          type: 'bar',
          series: [{ name: '<b>', data: [{ label: '<i>', value: 1 }] }],
          axis_config: { categories: ['<i>'] },
        },
      },
    ]);
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<b>');
    expect(html).toContain('&lt;script&gt;');
  });
});

describe('canvases', () => {
  it('draws a canvas’s headings, lists and tables, escaping the text', () => {
    const html = canvasHtml(
      '# Merge queue acme/web:main\n**State:** running\n\n## PRs in order\n| # | PR |\n| --- | --- |\n| 1 | #11 <b>x</b> |\n\n- Merged: 3\n[Open in Trunk](https://app.trunk.io/acme)',
    );
    expect(html).toContain('<h2>Merge queue acme/web:main</h2>');
    expect(html).toContain('<p><strong>State:</strong> running</p>');
    expect(html).toContain(
      '<thead><tr><th>#</th><th>PR</th></tr></thead><tbody><tr><td>1</td><td>#11 &lt;b&gt;x&lt;/b&gt;</td></tr></tbody>',
    );
    expect(html).toContain('<ul><li>Merged: 3</li></ul>');
    expect(html).toContain('<a href="https://app.trunk.io/acme"');
  });
});
