/* SPDX-License-Identifier: MIT */
/*
 * history.js - the history page (`gpuprof history report`, kind "history";
 * docs/cli/gpuprof-history.md): the series of a performance database as
 * gp_history_changes() gives them with their points. First a table of the
 * series (runs, last value, change points, the latest change and whether it
 * is a regression), then per series a header (metric, testbed, counts,
 * noise, the unstable badge, the last value) and an SVG chart by point
 * index: the clean points as one line (every point: nothing is decimated),
 * the noisy ones apart as hollow grey dots, each change point marked where
 * its index says (a step as a vertical rule with the levels each side, a
 * trend as its fitted line from there to the newest point; regressions in the alarm colour, improvements
 * in the good one), and on hover over a point its commit, time, value, run
 * and, for a noisy one, why. html.c puts it before report.js in the page's
 * one script on history pages only; report.js calls gpHistory(api) with its
 * DOM, format and table helpers. Strings go into the page through
 * textContent and setAttribute only.
 */
var gpHistory = function (api) {
  'use strict';
  var h = api.h, s = api.s, num = api.num, objs = api.objs, get = api.get;
  var section = api.section, table = api.table, ticks = api.ticks;
  var fmtNs = api.fmtNs, fmtBytes = api.fmtBytes, fmtInt = api.fmtInt, fmtPct = api.fmtPct;
  var fmtRate = api.fmtRate, fmtPval = api.fmtPval;

  /* the chart's box in viewBox units: plot from L to W - R, T to H - B */
  var W = 960, H = 190, L = 76, R = 14, T = 10, B = 24;
  var DOTS_UP_TO = 120; /* clean points drawn as dots too, up to this many (the line has them all) */
  /* durations in other units, as nanoseconds */
  var NS_PER = { ns: 1, us: 1e3, '\u00b5s': 1e3, ms: 1e6, s: 1e9 };

  /* a value in its series' unit: durations and bytes as the terminal prints them, else a number */
  function fmtVal(unit, v) {
    if (!num(v)) return '-';
    if (Object.prototype.hasOwnProperty.call(NS_PER, unit)) return fmtNs(v * NS_PER[unit]);
    if (unit === 'bytes') return fmtBytes(v);
    if (unit === '%') return fmtPct(v);
    return (Math.abs(v) >= 1e4 ? fmtInt(v) : fmtRate(v)) + (unit && unit !== 'count' ? ' ' + unit : '');
  }

  /*
   * The value axis's labels of tick values @p tk: as fmtVal, or where that makes two alike
   * (4.7 GiB twice) in one unit with the decimals the ticks' step needs.
   */
  function axisLabels(unit, tk) {
    var out = tk.map(function (v) { return fmtVal(unit, v); }), div = 1, name = unit || '', max = 0, dec, i;
    var same = out.some(function (x, k) { return k > 0 && x === out[k - 1]; });
    if (!same || tk.length < 2) return out;
    tk.forEach(function (v) { max = Math.max(max, Math.abs(v)); });
    if (Object.prototype.hasOwnProperty.call(NS_PER, unit)) {
      max *= NS_PER[unit];
      [[1, 'ns'], [1e3, '\u00b5s'], [1e6, 'ms'], [1e9, 's']].forEach(function (u) { if (max >= u[0]) { div = u[0] / NS_PER[unit]; name = u[1]; } });
    } else if (unit === 'bytes') {
      ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'].forEach(function (u, k) { if (max >= Math.pow(1024, k)) { div = Math.pow(1024, k); name = u; } });
    }
    dec = Math.max(0, Math.min(9, Math.ceil(-Math.log((tk[1] - tk[0]) / div) / Math.LN10 - 1e-9)));
    for (i = 0; i < tk.length; i++) out[i] = (tk[i] / div).toFixed(dec) + (name && name !== 'count' ? ' ' + name : '');
    return out;
  }

  /* a relative change (0.03) as a signed percentage ("+3.0%") */
  function fmtRel(v) {
    return num(v) ? fmtPct(v * 100, true) : '-';
  }

  /* a commit as `history changes` prints it: a hash's first 8 digits, a name as it is */
  function shortCommit(c) {
    if (typeof c !== 'string' || !c) return null;
    return /^[0-9a-f]{9,}$/i.test(c) ? c.slice(0, 8) : c;
  }

  /* Unix ns as "2026-11-27 14:12 UTC" (a date alone at midnight) */
  function fmtTime(ns) {
    var d, iso;
    if (!num(ns)) return '-';
    d = new Date(ns / 1e6);
    if (isNaN(d.getTime())) return '-';
    iso = d.toISOString();
    if (/T00:00:00\.000Z$/.test(iso)) return iso.slice(0, 10);
    return iso.slice(0, 10) + ' ' + iso.slice(11, 16) + ' UTC';
  }

  /* where a point or change came from: "abc1234 (run 9)", "run 9" without a commit */
  function where(o) {
    var c = shortCommit(o.commit), run = 'run ' + (num(o.run_id) ? o.run_id : '?');
    return c ? c + ' (' + run + ')' : run;
  }

  function changesOf(sr) {
    return objs(sr.changes).filter(function (c) { return num(c.index); });
  }

  function latest(sr) {
    var ch = changesOf(sr);
    return ch.length ? ch[ch.length - 1] : null;
  }

  /* the series' state in one word: its latest change's direction, or unstable */
  function status(sr) {
    var c = latest(sr);
    if (sr.unstable === true) return 'unstable';
    if (!c) return null;
    return c.regression === true ? 'regression' : 'improvement';
  }

  /* a change point's numbers; a trend's before and after are its fitted line's ends */
  function changeWords(sr, c) {
    var u = sr.unit, b = c.before || {}, a = c.after || {}, trend = c.kind === 'trend';
    return [
      (c.regression === true ? 'Regression' : 'Improvement') + ': ' + (trend ? 'trend ' : 'step ') + fmtRel(c.rel_change) +
        (trend ? ' from ' : ' at ') + where(c) + ', ' + fmtTime(c.time_ns),
      trend ? 'a line fitted from ' + fmtVal(u, b.mean) + ' to ' + fmtVal(u, a.mean) + ' over the ' + fmtInt(a.n) + ' points since'
        : 'before ' + fmtVal(u, b.mean) + ' \u00b1 ' + fmtVal(u, b.sd) + ' (' + fmtInt(b.n) + ' points)',
      trend ? null : 'after ' + fmtVal(u, a.mean) + ' \u00b1 ' + fmtVal(u, a.sd) + ' (' + fmtInt(a.n) + ' points)',
      'p ' + fmtPval(c.pvalue) + (num(c.steppiness) ? ', steppiness ' + c.steppiness.toFixed(2) : '')
    ].filter(function (x) { return x !== null; }).join('\n');
  }

  function pointWords(sr, p) {
    /* bytes to the byte: a 1 % change of 4.7 GiB is below fmtBytes's one decimal */
    var lines = [fmtVal(sr.unit, p.value) + (sr.unit === 'bytes' && Math.abs(p.value) >= 1024 ? ' (' + fmtInt(p.value) + ' B)' : ''), 'commit ' + (shortCommit(p.commit) || 'unknown') + (typeof p.branch === 'string' ? ' on ' + p.branch : ''),
      fmtTime(p.time_ns), 'run ' + (num(p.run_id) ? p.run_id : '?')];
    if (p.noisy === true) lines.push('noisy: ' + (typeof p.noise_reason === 'string' ? p.noise_reason : 'no reason given') + ' (left out of the change detection)');
    return lines.join('\n');
  }

  /* ---- the table of every series ---- */

  function summary(list) {
    var sec = section('gp-hseries', 'Series', list.length > 0, 'No series in this history: gpuprof history add or import puts runs in.');
    if (!list.length) return;
    sec.appendChild(table('history-series', [
      { key: 'metric', label: 'Metric', fmt: 'str' }, { key: 'testbed', label: 'Testbed', fmt: 'str' },
      { key: 'count', label: 'Runs', fmt: 'int' }, { key: 'noisy', label: 'Noisy', fmt: 'int' },
      { key: 'last', label: 'Last value', fmt: function (v, r) { return fmtVal(r.unit, v); } },
      { key: 'changes', label: 'Change points', fmt: 'int' },
      { key: 'latest', label: 'Latest change', title: 'the relative change of the latest change point, its kind and where', fmt: function (v, r) {
        return r.latestChange ? fmtRel(v) + ' ' + (r.latestChange.kind === 'trend' ? 'trend' : 'step') + ' at ' + where(r.latestChange) : '-';
      } },
      { key: 'status', label: 'Regression', fmt: 'str', badge: true, title: 'the latest change point is a regression or an improvement; unstable: too noisy to tell' }
    ], list.map(function (sr, i) {
      var c = latest(sr);
      return {
        metric: sr.metric, testbed: sr.testbed, unit: sr.unit, count: sr.count, noisy: sr.noisy, last: get(sr, 'last.value'),
        changes: changesOf(sr).length, latest: c ? c.rel_change : null, latestChange: c, status: status(sr), series: i
      };
    }), { title: (list.length === 1 ? 'One series' : list.length + ' series') + ', by metric and testbed', what: 'metrics', filterKey: 'metric' }));
  }

  /* ---- one chart per series ---- */

  function legend() {
    var sw = function (kid) { return s('svg', { width: 22, height: 10, viewBox: '0 0 22 10', cls: 'gp-hswatch' }, kid); };
    return h('div', { cls: 'gp-legend gp-hlegend' }, [
      h('span', null, [sw(s('line', { cls: 'gp-line', x1: 1, y1: 5, x2: 21, y2: 5 })), 'clean points']),
      h('span', null, [sw(s('circle', { cls: 'gp-noisy', cx: 11, cy: 5, r: 3.5 })), 'noisy (left out)']),
      h('span', null, [sw(s('line', { cls: 'gp-cp-rule gp-cp-bad', x1: 11, y1: 0, x2: 11, y2: 10 })), 'regression']),
      h('span', null, [sw(s('line', { cls: 'gp-cp-rule gp-cp-good', x1: 11, y1: 0, x2: 11, y2: 10 })), 'improvement']),
      h('span', null, [sw(s('line', { cls: 'gp-cp-trend gp-cp-bad', x1: 1, y1: 9, x2: 21, y2: 1 })), 'trend'])
    ]);
  }

  function header(sr, i) {
    var st = status(sr), last = sr.last || {}, bits = [], nch = changesOf(sr).length;
    bits.push(fmtInt(sr.count) + (sr.count === 1 ? ' run' : ' runs'));
    if (num(sr.clean)) bits.push(fmtInt(sr.clean) + ' clean');
    if (num(sr.noisy)) bits.push(fmtInt(sr.noisy) + ' noisy');
    bits.push('noise ' + (num(sr.noise) ? fmtPct(sr.noise * 100) : 'unknown') + (num(sr.threshold) ? ', threshold ' + fmtPct(sr.threshold * 100) : ''));
    bits.push(nch + (nch === 1 ? ' change point' : ' change points'));
    return [
      h('h3', { cls: 'gp-sub gp-htitle' }, [
        h('span', { cls: 'gp-mono', text: String(sr.metric) }),
        st ? h('span', { cls: 'gp-badge ' + st, 'data-gp-status': st, text: st }) : null
      ]),
      h('div', { cls: 'gp-htestbed gp-mono', title: 'testbed', text: String(sr.testbed) }),
      h('div', { cls: 'gp-note', 'data-gp-counts': i, text: bits.join(' \u00b7 ') }),
      num(last.value) ? h('div', { cls: 'gp-hlast', 'data-value': String(last.value) }, ['last ', h('b', { text: fmtVal(sr.unit, last.value) }), ' at ' + where(last) + ', ' + fmtTime(last.time_ns)]) : null,
      sr.unstable === true ? h('p', { cls: 'gp-warn', text: 'Unstable: the run-to-run noise of its clean points (' + (num(sr.noise) ? fmtPct(sr.noise * 100) : 'unknown') + ') is more than half the threshold (' + fmtPct(sr.threshold * 100) + '): a change of the threshold\'s size would be within two noise deviations of one run, so no change point is listed and it never alarms.' }) : null
    ];
  }

  function chart(sr, i) {
    var pts = objs(sr.points), n = pts.length, pw = W - L - R, ph = H - T - B;
    var lo = Infinity, hi = -Infinity, nclean = 0, d = '', svg, box, tip, guide, mark, k, p, tk, pad, labels;
    if (!n) return h('p', { cls: 'gp-note', 'data-gp-nochart': i, text: 'No points: the data was made without them.' });
    /* the value axis spans the clean points (a throttled run would flatten them), else all */
    [false, true].forEach(function (all) {
      if (hi >= lo) return;
      pts.forEach(function (q) {
        if (!num(q.value) || (q.noisy === true && !all)) return;
        lo = Math.min(lo, q.value);
        hi = Math.max(hi, q.value);
      });
    });
    if (!(hi >= lo)) return h('p', { cls: 'gp-note', 'data-gp-nochart': i, text: 'No point has a value.' });
    pad = (hi - lo) * 0.08 || Math.abs(hi) * 0.02 || 1;
    lo -= pad;
    hi += pad;
    var xs = function (x) { return L + (n > 1 ? x / (n - 1) * pw : pw / 2); };
    /* a noisy point off the scale sits on its edge (its value is in its tooltip) */
    var ys = function (v) { return T + Math.max(0, Math.min(1, (hi - v) / (hi - lo))) * ph; };
    var clampX = function (x) { return Math.max(0, Math.min(n - 1, x)); };
    var lastClean = n - 1;
    while (lastClean > 0 && (pts[lastClean].noisy === true || !num(pts[lastClean].value))) lastClean--;
    svg = s('svg', {
      cls: 'gp-chart gp-hchart', viewBox: '0 0 ' + W + ' ' + H, 'data-gp-chart': 'history', 'data-series': i,
      'data-n': n, 'data-x0': L, 'data-x1': W - R, role: 'img', 'aria-label': String(sr.metric) + ' on ' + String(sr.testbed)
    });
    /* axes, value labels and gridlines, dates under the points */
    /* bytes: round values in the binary unit the labels use (3.75 GiB, not 4e9 B) */
    k = sr.unit === 'bytes' ? Math.max(0, Math.min(5, Math.floor(Math.log(Math.max(Math.abs(lo), Math.abs(hi), 1)) / Math.log(1024)))) : 0;
    tk = ticks(lo / Math.pow(1024, k), hi / Math.pow(1024, k), 4).map(function (v) { return v * Math.pow(1024, k); })
      .filter(function (v) { return v >= lo && v <= hi; });
    labels = axisLabels(sr.unit, tk);
    tk.forEach(function (v, j) {
      svg.appendChild(s('line', { cls: 'gp-hgrid', x1: L, x2: W - R, y1: ys(v).toFixed(1), y2: ys(v).toFixed(1) }));
      svg.appendChild(s('text', { x: L - 6, y: (ys(v) + 4).toFixed(1), 'text-anchor': 'end', 'data-axis': 'value', text: labels[j] }));
    });
    svg.appendChild(s('line', { cls: 'gp-axis', x1: L, y1: H - B, x2: W - R, y2: H - B }));
    svg.appendChild(s('line', { cls: 'gp-axis', x1: L, y1: T, x2: L, y2: H - B }));
    (n > 1 ? ticks(0, n - 1, 6) : [0]).forEach(function (x) {
      if (x !== Math.round(x) || x < 0 || x > n - 1) return;
      svg.appendChild(s('text', { x: xs(x).toFixed(1), y: H - 6, 'text-anchor': 'middle', 'data-x': x, text: num(pts[x].time_ns) ? fmtTime(pts[x].time_ns).slice(0, 10) : '#' + x }));
    });
    /* the change points, under the line */
    changesOf(sr).forEach(function (c) {
      var x = clampX(Math.round(c.index)), b = c.before || {}, a = c.after || {}, bad = c.regression === true;
      var col = bad ? 'gp-cp-bad' : 'gp-cp-good', g, nb = num(b.n) ? b.n : 0, na = num(a.n) ? a.n : 0;
      var x0 = clampX(x - nb), x1 = clampX(x + na - 1);
      g = s('g', { cls: 'gp-cp', 'data-index': x, 'data-kind': c.kind === 'trend' ? 'trend' : 'step', 'data-regression': bad ? '1' : '0' }, s('title', { text: changeWords(sr, c) }));
      if (c.kind === 'trend') {
        /* the fitted line, from its first point (the index) to the newest clean point */
        if (num(b.mean) && num(a.mean)) {
          g.appendChild(s('line', {
            cls: 'gp-cp-trend ' + col, x1: xs(x).toFixed(1), y1: ys(b.mean).toFixed(1),
            x2: xs(Math.max(x, lastClean)).toFixed(1), y2: ys(a.mean).toFixed(1)
          }));
        }
        g.appendChild(s('line', { cls: 'gp-cp-tick ' + col, x1: xs(x).toFixed(1), x2: xs(x).toFixed(1), y1: H - B - 6, y2: H - B }));
      } else {
        g.appendChild(s('line', { cls: 'gp-cp-rule ' + col, x1: xs(x).toFixed(1), x2: xs(x).toFixed(1), y1: T, y2: H - B }));
        if (num(b.mean)) g.appendChild(s('line', { cls: 'gp-cp-level ' + col, x1: xs(x0).toFixed(1), x2: xs(x).toFixed(1), y1: ys(b.mean).toFixed(1), y2: ys(b.mean).toFixed(1) }));
        if (num(a.mean)) g.appendChild(s('line', { cls: 'gp-cp-level ' + col, x1: xs(x).toFixed(1), x2: xs(x1).toFixed(1), y1: ys(a.mean).toFixed(1), y2: ys(a.mean).toFixed(1) }));
      }
      svg.appendChild(g);
    });
    /* the clean points: one path through all of them */
    for (k = 0; k < n; k++) {
      p = pts[k];
      if (p.noisy === true || !num(p.value)) continue;
      d += (nclean ? 'L' : 'M') + xs(k).toFixed(1) + ' ' + ys(p.value).toFixed(1);
      nclean++;
    }
    svg.setAttribute('data-clean', String(nclean));
    if (nclean) svg.appendChild(s('path', { cls: 'gp-line', d: d, 'data-points': nclean }));
    for (k = 0; k < n; k++) {
      p = pts[k];
      if (!num(p.value)) continue;
      if (p.noisy === true) svg.appendChild(s('circle', { cls: 'gp-noisy', cx: xs(k).toFixed(1), cy: ys(p.value).toFixed(1), r: 3.5, 'data-index': k }));
      else if (nclean <= DOTS_UP_TO) svg.appendChild(s('circle', { cls: 'gp-hpt', cx: xs(k).toFixed(1), cy: ys(p.value).toFixed(1), r: 2.5, 'data-index': k }));
    }
    /* hover: the nearest point by index, one tooltip and one mark per chart */
    guide = s('line', { cls: 'gp-hguide', y1: T, y2: H - B, visibility: 'hidden' });
    mark = s('circle', { cls: 'gp-hmark', r: 4.5, visibility: 'hidden' });
    svg.appendChild(guide);
    svg.appendChild(mark);
    var hit = s('rect', { cls: 'gp-hhit', x: L - 4, y: T, width: pw + 8, height: H - T - B });
    svg.appendChild(hit);
    tip = h('div', { cls: 'gp-tip', 'data-gp-tip': i, hidden: true });
    box = h('div', { cls: 'gp-hbox' }, [svg, tip]);
    function show(kk) {
      var q = pts[kk], bb = svg.getBoundingClientRect(), scale = bb.width / W, px = xs(kk) * scale;
      if (!num(q.value)) return;
      guide.setAttribute('x1', xs(kk).toFixed(1));
      guide.setAttribute('x2', xs(kk).toFixed(1));
      guide.setAttribute('visibility', 'visible');
      mark.setAttribute('cx', xs(kk).toFixed(1));
      mark.setAttribute('cy', ys(q.value).toFixed(1));
      mark.setAttribute('visibility', 'visible');
      /* a change point there: its numbers too */
      tip.textContent = [pointWords(sr, q)].concat(changesOf(sr).filter(function (c) { return Math.round(c.index) === kk; }).map(function (c) {
        return changeWords(sr, c);
      })).join('\n\n');
      tip.setAttribute('data-index', String(kk));
      tip.hidden = false;
      /* beside the point, on the side with room */
      tip.style.left = (px > bb.width * 0.6 ? px - tip.offsetWidth - 12 : px + 12) + 'px';
      tip.style.top = Math.max(0, ys(q.value) * scale - tip.offsetHeight / 2) + 'px';
    }
    function hide() {
      tip.hidden = true;
      guide.setAttribute('visibility', 'hidden');
      mark.setAttribute('visibility', 'hidden');
    }
    hit.addEventListener('mousemove', function (ev) {
      var bb = svg.getBoundingClientRect(), x = (ev.clientX - bb.left) * W / bb.width;
      show(n > 1 ? clampX(Math.round((x - L) / pw * (n - 1))) : 0);
    });
    hit.addEventListener('mouseleave', hide);
    return box;
  }

  function render(doc) {
    var list = objs(doc && doc.series), sec, i, sr;
    document.body.setAttribute('data-gp-series', String(list.length));
    summary(list);
    sec = section('gp-hcharts', 'Charts', list.length > 0, 'No series to draw.');
    if (!list.length) return;
    sec.appendChild(h('p', { cls: 'gp-note', text: 'Each point is a run, in time order, spaced evenly; hover over a chart for a point\u2019s commit, time and value, and at a change point for its numbers.' }));
    sec.appendChild(legend());
    for (i = 0; i < list.length; i++) {
      sr = list[i];
      sec.appendChild(h('div', { cls: 'gp-hseries', id: 'gp-series-' + i, 'data-gp-series': i, 'data-metric': String(sr.metric), 'data-testbed': String(sr.testbed) },
        header(sr, i).concat([chart(sr, i)])));
    }
  }

  return { render: render };
};
