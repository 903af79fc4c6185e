/* SPDX-License-Identifier: MIT */
/*
 * history-dom.js - what t0765 reads off a drawn history page in Chromium (through
 * cdp.py): a function of {hover: [[series, index], ...]} that returns the page's
 * facts as JSON: its state, the summary table's rows, and per chart the number of
 * points, the points its line passes through (the path's M and L commands), its
 * noisy dots and its change point marks; then, for each [series, index] of
 * args.hover, the tooltip that a mouse moved over that point of that chart shows
 * (a mousemove at the point's place on the screen, as a person's). The test
 * appends "(ARGS)" and evaluates it.
 */
(function (args) {
  function q(sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); }
  var f = {
    state: document.body.getAttribute('data-gp-state'),
    kind: document.body.getAttribute('data-gp-kind'),
    error: document.getElementById('gp-error').textContent,
    title: document.getElementById('gp-title').textContent,
    generated: (document.querySelector('[data-env="generated"]') || {}).textContent || null,
    scripts: document.scripts.length,
    series: Number(document.body.getAttribute('data-gp-series')),
    sections: {}, rows: [], charts: [], hover: []
  };
  q('section.gp-sec').forEach(function (s) {
    f.sections[s.id] = { has: s.getAttribute('data-gp-has'), note: (s.querySelector('p.gp-note') || {}).textContent || null };
  });
  q('table[data-gp-table="history-series"] tbody tr').forEach(function (tr) {
    var row = {};
    q('td[data-col]', tr).forEach(function (td) { row[td.getAttribute('data-col')] = td.textContent; });
    f.rows.push(row);
  });
  q('.gp-hseries').forEach(function (box) {
    var svg = box.querySelector('svg[data-gp-chart="history"]'), path = svg && svg.querySelector('path.gp-line');
    var d = path ? path.getAttribute('d') : '';
    var b = svg ? svg.getBoundingClientRect() : null;
    f.charts.push({
      series: Number(box.getAttribute('data-gp-series')),
      metric: box.getAttribute('data-metric'), testbed: box.getAttribute('data-testbed'),
      heading: (box.querySelector('h3') || {}).textContent || null,
      status: (box.querySelector('[data-gp-status]') || { getAttribute: function () { return null; } }).getAttribute('data-gp-status'),
      nochart: (box.querySelector('[data-gp-nochart]') || {}).textContent || null,
      svg: !!svg, n: svg ? Number(svg.getAttribute('data-n')) : 0, clean: svg ? Number(svg.getAttribute('data-clean')) : 0,
      drawn: b ? b.width > 100 && b.height > 50 : false,
      pathPoints: (d.match(/[ML]/g) || []).length, pathMoves: (d.match(/M/g) || []).length,
      noisy: svg ? q('circle.gp-noisy', svg).map(function (c) { return Number(c.getAttribute('data-index')); }) : [],
      marks: svg ? q('g.gp-cp', svg).map(function (g) {
        return {
          index: Number(g.getAttribute('data-index')), kind: g.getAttribute('data-kind'),
          regression: g.getAttribute('data-regression') === '1',
          lines: q('line', g).map(function (l) { return l.getAttribute('class'); }),
          title: (g.querySelector('title') || {}).textContent || null
        };
      }) : []
    });
  });
  (args.hover || []).forEach(function (hv) {
    var box = document.getElementById('gp-series-' + hv[0]), svg = box && box.querySelector('svg[data-gp-chart="history"]');
    var hit = svg && svg.querySelector('rect.gp-hhit'), tip = box && box.querySelector('[data-gp-tip]'), b, vb, n, x0, x1, vx;
    if (!hit || !tip) { f.hover.push(null); return; }
    box.scrollIntoView();
    b = svg.getBoundingClientRect();
    vb = svg.viewBox.baseVal;
    n = Number(svg.getAttribute('data-n'));
    x0 = Number(svg.getAttribute('data-x0'));
    x1 = Number(svg.getAttribute('data-x1'));
    vx = n > 1 ? x0 + hv[1] / (n - 1) * (x1 - x0) : (x0 + x1) / 2;
    hit.dispatchEvent(new MouseEvent('mousemove', { bubbles: true, clientX: b.left + vx * b.width / vb.width, clientY: b.top + b.height / 2 }));
    f.hover.push({ shown: !tip.hidden, index: Number(tip.getAttribute('data-index')), text: tip.textContent });
    hit.dispatchEvent(new MouseEvent('mouseleave', { bubbles: false }));
    f.hover[f.hover.length - 1].hiddenAfter = tip.hidden;
  });
  return f;
})
