/* SPDX-License-Identifier: MIT */
/*
 * aggpage-dom.js - what t0504 reads off a drawn aggregate page in Chromium
 * (through cdp.py): sections, cards, the desynchronisation alert, the per-rank
 * table (rows, the min/max/mean/median rows under it, the highlighted outliers,
 * sorting and "show all" clicked as a person would), the wait heatmap (the
 * canvas's rows and bins, and the colour of each rank's row at its largest bin
 * and at an empty one, read back from the canvas's pixels, before and after
 * ordering the rows by total wait), the blame bars, the stragglers and
 * collectives tables, the findings and their evidence, the offset bounds of the
 * per-rank table and the page's text. The test appends "(ARGS)" and evaluates it:
 * ARGS.maxBin[k], ARGS.emptyBin[k]: the bins to read in row k (-1: none), in rank
 * order, and maxBinByWait, emptyBinByWait the same in the order of most wait first.
 */
(function (args) {
  function q(sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); }
  function table(name) { return document.querySelector('table[data-gp-table="' + name + '"]'); }
  function rows(name) { var t = table(name); return t ? q('tbody tr', t) : []; }
  function cell(tr, col) { var td = tr.querySelector('td[data-col="' + col + '"]'); return td ? { value: td.getAttribute('data-value'), text: td.textContent, cls: td.className } : null; }
  var f = {
    state: document.body.getAttribute('data-gp-state'), kind: document.body.getAttribute('data-gp-kind'), view: document.body.getAttribute('data-gp-view'),
    error: document.getElementById('gp-error').textContent, sections: {}, cards: {}, env: {}, tables: {}
  };
  q('section.gp-sec').forEach(function (s) { f.sections[s.id] = s.getAttribute('data-gp-has'); });
  q('[data-gp-card]').forEach(function (c) {
    var v = c.querySelector('.gp-v'), sub = c.querySelector('.gp-s');
    f.cards[c.getAttribute('data-gp-card')] = { value: v.getAttribute('data-value'), text: v.textContent, sub: sub ? sub.textContent : null };
  });
  q('[data-env]').forEach(function (e) { f.env[e.getAttribute('data-env')] = e.textContent; });
  var ds = document.querySelector('[data-gp-desync]');
  f.desync = ds ? { kind: ds.getAttribute('data-gp-desync'), text: ds.textContent, first: ds === document.querySelector('#gp-summary').children[1] } : null;
  f.clock = (document.querySelector('[data-gp-clock]') || {}).textContent || null;
  f.findings = q('[data-gp-finding]').map(function (e) { return { id: e.getAttribute('data-gp-finding'), severity: e.getAttribute('data-severity'), title: e.querySelector('.gp-title').textContent }; });
  q('table[data-gp-table]').forEach(function (t) {
    var name = t.getAttribute('data-gp-table'), count = document.querySelector('[data-gp-count="' + name + '"]');
    f.tables[name] = { rows: q('tbody tr', t).length, count: count ? count.textContent : null,
      cols: q('thead th', t).map(function (th) { return th.getAttribute('data-col'); }) };
  });

  /* the per-rank table: its rows, the rows under them, the outliers */
  var rt = table('agg-ranks');
  if (rt) {
    f.ranks = {
      ranks: rows('agg-ranks').map(function (tr) { return Number(cell(tr, 'rank').value); }),
      foot: q('tfoot tr', rt).map(function (tr) {
        return { label: tr.getAttribute('data-gp-foot'), step_mean: cell(tr, 'step_mean_ns'), wait: cell(tr, 'wait_ns') };
      }),
      outliers: q('tbody td.gp-outlier', rt).map(function (td) { return [Number(cell(td.parentElement, 'rank').value), td.getAttribute('data-col')]; }),
      firstStep: cell(rows('agg-ranks')[0], 'step_mean_ns')
    };
    f.bounds = rows('agg-ranks').map(function (tr) { var c = cell(tr, 'clock_bound_ns'); return c ? c.text : null; });
    var th = rt.querySelector('th[data-col="wait_ns"]');
    th.click();
    f.ranks.byWait = rows('agg-ranks').slice(0, 3).map(function (tr) { return Number(cell(tr, 'wait_ns').value); });
    f.ranks.byWaitSort = th.getAttribute('aria-sort');
    var more = document.querySelector('[data-gp-more="agg-ranks"]');
    f.ranks.moreHidden = more.hidden;
    if (!more.hidden) more.click();
    f.ranks.afterAll = rows('agg-ranks').length;
  }

  /* the heatmap: the canvas's pixels at each row's largest bin and at its first empty bin */
  var cv = document.querySelector('canvas[data-gp-heatmap]');
  function sample() {
    var ctx = cv.getContext('2d'), n = Number(cv.getAttribute('data-rows')), bins = Number(cv.getAttribute('data-bins'));
    var rh = Number(cv.getAttribute('data-row-height')), L = Number(cv.getAttribute('data-left')), T = Number(cv.getAttribute('data-top'));
    var cw = (cv.width - L - 8) / bins, out = [], k, img = ctx.getImageData(0, 0, cv.width, cv.height).data;
    function px(bin, row) {
      var x = Math.floor(L + (bin + 0.5) * cw), y = Math.floor(T + row * rh + rh / 2), i = (y * cv.width + x) * 4;
      return [img[i], img[i + 1], img[i + 2]];
    }
    for (k = 0; k < n; k++) out.push({ max: px(Number(args.maxBin[k]), k), empty: args.emptyBin[k] >= 0 ? px(args.emptyBin[k], k) : null });
    return out;
  }
  if (cv) {
    f.heatmap = { rows: Number(cv.getAttribute('data-rows')), bins: Number(cv.getAttribute('data-bins')), max: Number(cv.getAttribute('data-max')),
      rowHeight: Number(cv.getAttribute('data-row-height')), height: cv.height, boxScrolls: cv.parentElement.scrollHeight > cv.parentElement.clientHeight + 1,
      legendMax: (document.querySelector('svg[data-gp-chart="heatmap-legend"] text[data-axis="max"]') || {}).textContent || null,
      axis: q('svg[data-gp-chart="heatmap-axis"] text').length };
    f.heatmap.byRank = args.maxBin ? sample() : null;
    var sel = document.querySelector('select[data-gp-order]');
    sel.value = 'wait';
    sel.dispatchEvent(new Event('change'));
    f.heatmap.order = cv.getAttribute('data-order');
    f.heatmap.firstByWait = args.maxBinByWait ? (function () { var a = args.maxBin, e = args.emptyBin; args.maxBin = args.maxBinByWait; args.emptyBin = args.emptyBinByWait; var r = sample(); args.maxBin = a; args.emptyBin = e; return r; })() : null;
  }
  f.blame = q('svg[data-gp-chart="blame"] g[data-rank]').map(function (g) { return [Number(g.getAttribute('data-rank')), Number(g.getAttribute('data-blame')), Number(g.querySelector('rect').getAttribute('width'))]; });
  f.stragglers = rows('agg-stragglers').map(function (tr) { return [Number(cell(tr, 'rank').value), Number(cell(tr, 'blame_ns').value), cell(tr, 'p_value').text]; });
  f.collectives = rows('agg-collectives').map(function (tr) { return [cell(tr, 'pg').value, cell(tr, 'name').value, Number(cell(tr, 'busbw_gbps').value), cell(tr, 'busbw_gbps').text]; });
  /* the findings' evidence as shown: [finding id, key, text] */
  f.evidence = [];
  q('[data-gp-finding]').forEach(function (e) {
    q('.gp-evidence span[data-key]', e).forEach(function (sp) { f.evidence.push([e.getAttribute('data-gp-finding'), sp.getAttribute('data-key'), sp.querySelector('b').textContent]); });
  });
  f.text = document.body.innerText;
  f.compareRanks = rows('compare-ranks').map(function (tr) { return [Number(cell(tr, 'rank').value), cell(tr, 'step_mean').value, cell(tr, 'gpu_idle_pct').text]; });
  f.compareMetrics = q('table[data-gp-table="compare-metrics"] tr[data-metric]').map(function (tr) { return tr.getAttribute('data-metric'); });
  return f;
})
