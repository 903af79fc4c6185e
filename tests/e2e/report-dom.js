/* SPDX-License-Identifier: MIT */
/*
 * report-dom.js - what t0501-t0503 read off a drawn report page in Chromium (through
 * cdp.py): a function of {table, col, filter} that returns the page's facts
 * as JSON: sections, cards, environment, tables, charts, the metric charts'
 * numbers, what the layout does to the text (CSS text-transform, cells that
 * cut their text, table boxes and their scrolling), and the result of
 * sorting, filtering and showing all rows of one table by clicking and typing
 * as a person would. The test appends "(ARGS)" and evaluates it.
 */
(function (args) {
  function q(sel, root) { return Array.prototype.slice.call((root || document).querySelectorAll(sel)); }
  function rowsOf(t) { return q('tbody tr', t); }
  function colValues(t, col) {
    return rowsOf(t).map(function (r) {
      var td = r.querySelector('td[data-col="' + col + '"]');
      return td ? JSON.parse(td.getAttribute('data-value')) : null;
    });
  }
  var f = {
    state: document.body.getAttribute('data-gp-state'),
    kind: document.body.getAttribute('data-gp-kind'),
    title: document.getElementById('gp-title').textContent,
    doctitle: document.title,
    error: document.getElementById('gp-error').textContent,
    scripts: document.scripts.length,
    imgs: q('img').length, iframes: q('iframe').length, svgsOnload: q('svg[onload]').length,
    sections: {}, nav: q('#gp-nav a').map(function (a) { return a.getAttribute('href'); }),
    cards: {}, env: {}, tables: {}, charts: {}, legend: {}
  };
  q('section.gp-sec').forEach(function (s) { f.sections[s.id] = s.getAttribute('data-gp-has'); });
  q('[data-gp-card]').forEach(function (c) {
    var v = c.querySelector('.gp-v');
    var sub = c.querySelector('.gp-s');
    f.cards[c.getAttribute('data-gp-card')] = { value: v.getAttribute('data-value'), text: v.textContent, sub: sub ? sub.textContent : null };
  });
  q('[data-env]').forEach(function (e) { f.env[e.getAttribute('data-env')] = e.textContent; });
  q('table[data-gp-table]').forEach(function (t) {
    var name = t.getAttribute('data-gp-table'), rows = rowsOf(t), count = document.querySelector('[data-gp-count="' + name + '"]');
    var first = {};
    if (rows.length) q('td[data-col]', rows[0]).forEach(function (td) { first[td.getAttribute('data-col')] = { value: td.getAttribute('data-value'), text: td.textContent }; });
    f.tables[name] = {
      rows: rows.length, count: count ? count.textContent : null, first: first,
      names: rows.map(function (r) { var td = r.querySelector('td'); return td ? td.textContent : null; }),
      metrics: rows.map(function (r) { return r.getAttribute('data-metric'); })
    };
  });
  q('svg[data-gp-chart]').forEach(function (s) { var k = s.getAttribute('data-gp-chart'); f.charts[k] = (f.charts[k] || 0) + 1; });
  f.histCounts = q('svg[data-gp-chart="histogram"]').map(function (s) {
    return q('rect[data-count]', s).reduce(function (a, r) { return a + Number(r.getAttribute('data-count')); }, 0);
  });
  f.histQuantiles = q('svg[data-gp-chart="histogram"] line[data-q]').map(function (l) { return l.getAttribute('data-q'); });
  f.stepBars = q('svg[data-gp-chart="steps"] g[data-step]').map(function (g) {
    return { step: g.getAttribute('data-step'), sum: q('rect[data-value]', g).reduce(function (a, r) { return a + Number(r.getAttribute('data-value')); }, 0) };
  });
  f.timelineRows = q('svg[data-gp-chart="timeline"] g[data-stream]').map(function (g) {
    return { key: g.getAttribute('data-stream'), total: Number(g.getAttribute('data-total')) };
  });
  f.timelineMarks = q('svg[data-gp-chart="timeline"] line[data-mark]').length;
  f.metricSeries = q('svg[data-gp-chart="metric"]').map(function (s) { return s.getAttribute('data-series'); });
  f.metricMarks = q('svg[data-gp-chart="metric"] line[data-mark]').length;
  q('.gp-legend [data-cat]').forEach(function (e) { f.legend[e.getAttribute('data-cat')] = e.getAttribute('data-value'); });
  f.findings = q('[data-gp-finding]').map(function (e) { return { id: e.getAttribute('data-gp-finding'), severity: e.getAttribute('data-severity'), title: e.querySelector('.gp-title').textContent }; });
  /* each metric chart's heading, its "min · mean · p95 · max" line and its y axis labels (top, bottom) */
  f.metricStats = q('.gp-metric[data-series]').map(function (m) {
    var ax = q('svg > text[data-axis]', m);
    if (!ax.length) ax = q('svg > text', m).slice(0, 2);
    return { series: m.getAttribute('data-series'), title: (m.querySelector('h3') || {}).textContent || null,
      stats: (m.querySelector('.gp-s') || {}).textContent || null, axis: ax.map(function (t) { return t.textContent; }) };
  });
  /* the page as it is laid out: what CSS changes or hides of the text */
  f.layout = { viewportHeight: window.innerHeight, pageWidth: document.documentElement.clientWidth, print: matchMedia('print').matches, transformed: [], cutCells: [], folded: [], tableBoxes: [], emptyTables: [], labels: {} };
  q('body *').forEach(function (e) {
    var own = Array.prototype.some.call(e.childNodes, function (n) { return n.nodeType === 3 && n.textContent.trim(); });
    if (own && getComputedStyle(e).textTransform !== 'none') f.layout.transformed.push({ tag: e.tagName.toLowerCase() + '.' + e.className, text: e.textContent, shown: e.innerText });
  });
  /* what runs past the window's right edge outside a box that scrolls or clips it */
  f.layout.pastRight = q('body *').filter(function (e) {
    var p;
    if (e.getBoundingClientRect().right <= document.documentElement.clientWidth + 1) return false;
    for (p = e.parentElement; p; p = p.parentElement) if (/auto|scroll|hidden/.test(getComputedStyle(p).overflowX)) return false;
    return true;
  }).map(function (e) { return e.tagName.toLowerCase() + ': ' + (e.textContent || '').slice(0, 60); });
  /* boxes whose content is wider than they are (they scroll on a screen; on paper they cut) */
  f.layout.overflowing = q('#gp-main *').filter(function (e) {
    return /auto|scroll|hidden/.test(getComputedStyle(e).overflowX) && e.scrollWidth > e.clientWidth + 1;
  }).map(function (e) { return e.tagName.toLowerCase() + '.' + e.className + ': ' + (e.textContent || '').slice(0, 60); });
  q('table[data-gp-table]').forEach(function (t) {
    var box = t.parentElement, cs = getComputedStyle(box), r = box.getBoundingClientRect();
    f.layout.tableBoxes.push({ name: t.getAttribute('data-gp-table'), tableWidth: t.scrollWidth, boxWidth: box.clientWidth,
      overflowX: cs.overflowX, boxHeight: Math.round(r.height), boxScrollsX: box.scrollWidth > box.clientWidth,
      right: Math.round(t.getBoundingClientRect().right) });
    if (!rowsOf(t).length) f.layout.emptyTables.push(t.getAttribute('data-gp-table'));
    /* a long name folded to three lines opens whole on a click, and folds again on another */
    q('td.gp-name', t).forEach(function (td) {
      var sp = td.querySelector('.gp-clip'), open;
      if (!sp || sp.scrollHeight <= sp.clientHeight + 1) return;
      td.click();
      open = sp.scrollHeight <= sp.clientHeight + 1;
      td.click();
      f.layout.folded.push({ table: t.getAttribute('data-gp-table'), opens: open, folds: sp.scrollHeight > sp.clientHeight + 1, text: td.textContent });
    });
    q('td', t).forEach(function (td) {
      var c = getComputedStyle(td);
      if (td.scrollWidth > td.clientWidth + 1 || (c.textOverflow === 'ellipsis' && c.overflowX !== 'visible')) f.layout.cutCells.push({ table: t.getAttribute('data-gp-table'), text: td.textContent });
    });
  });
  q('[data-gp-card]').forEach(function (c) {
    var k = c.querySelector('.gp-k');
    f.layout.labels[c.getAttribute('data-gp-card')] = k ? k.innerText : null;
    var v = c.querySelector('.gp-v');
    if (v && v.getBoundingClientRect().right > c.getBoundingClientRect().right) f.layout.cutCells.push({ card: c.getAttribute('data-gp-card'), text: v.textContent });
  });
  f.notes = q('#gp-main .gp-note').map(function (e) { return e.textContent; });
  /* compare's metric rows: each cell's text by its column */
  f.compareRows = q('table[data-gp-table="compare-metrics"] tr[data-metric]').map(function (tr) {
    var o = { metric: tr.getAttribute('data-metric'), title: tr.querySelector('td').textContent };
    q('td[data-col]', tr).forEach(function (td) { o[td.getAttribute('data-col')] = td.textContent; });
    return o;
  });
  /* a section scrolled to (a click in the navigation) shows its heading below the sticky navigation */
  f.layout.headingsUnderNav = [];
  q('section.gp-sec').forEach(function (sec) {
    var h2 = sec.querySelector('h2'), navb, top;
    sec.scrollIntoView();
    navb = document.getElementById('gp-nav').getBoundingClientRect().bottom;
    top = h2 ? h2.getBoundingClientRect().top : navb;
    if (top < navb - 1) f.layout.headingsUnderNav.push(sec.id + ': heading at ' + Math.round(top) + ' px, navigation to ' + Math.round(navb) + ' px');
  });
  window.scrollTo(0, 0);
  /* where the rank selector sits: after the links (its left edge past their right edges) */
  var rsel = document.getElementById('gp-rank');
  f.navSelectAfterLinks = rsel ? q('#gp-nav a').every(function (a) { return a.getBoundingClientRect().right <= rsel.getBoundingClientRect().left; }) : null;
  /* each evidence item: its key, the words before the value, the value */
  f.evidence = q('.gp-evidence span[data-key]').map(function (e) {
    var b = e.querySelector('b');
    return { key: e.getAttribute('data-key'), label: e.firstChild.textContent, value: b ? b.textContent : null };
  });
  f.axisTexts = q('svg[data-gp-chart] text').map(function (t) { return t.textContent; });
  f.perfetto = { command: (document.querySelector('[data-gp-command]') || {}).textContent || null, files: (document.querySelector('[data-gp-files]') || {}).textContent || null };

  /* a person sorts, filters and shows all rows of one table */
  if (args && args.table) {
    var t = document.querySelector('table[data-gp-table="' + args.table + '"]'), th, inp, more, r = {};
    if (t) {
      th = t.querySelector('th[data-col="' + args.col + '"]');
      th.click();
      r.first = colValues(t, args.col);
      r.firstSort = th.getAttribute('aria-sort');
      th.click();
      r.second = colValues(t, args.col);
      r.secondSort = th.getAttribute('aria-sort');
      inp = document.querySelector('[data-gp-filter="' + args.table + '"]');
      inp.value = args.filter;
      inp.dispatchEvent(new Event('input'));
      r.filtered = rowsOf(t).map(function (x) { return x.querySelector('td').textContent; });
      r.filteredCount = document.querySelector('[data-gp-count="' + args.table + '"]').textContent;
      inp.value = '';
      inp.dispatchEvent(new Event('input'));
      more = document.querySelector('[data-gp-more="' + args.table + '"]');
      r.moreHidden = more.hidden;
      r.before = rowsOf(t).length;
      if (!more.hidden) more.click();
      r.after = rowsOf(t).length;
      r.afterCount = document.querySelector('[data-gp-count="' + args.table + '"]').textContent;
    }
    f.interaction = r;
  }
  /* the rank selector redraws the page for another rank */
  if (args && args.rank !== undefined) {
    var sel = document.getElementById('gp-rank');
    f.rankOptions = sel ? q('option', sel).map(function (o) { return o.textContent; }) : null;
    if (sel) {
      sel.value = String(args.rank);
      sel.dispatchEvent(new Event('change'));
      f.afterRank = { p50: document.querySelector('[data-gp-card="step_p50"] .gp-v').getAttribute('data-value'), state: document.body.getAttribute('data-gp-state') };
    }
  }
  return f;
})
