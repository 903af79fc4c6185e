/* SPDX-License-Identifier: MIT */
/*
 * report.js - draws the gpuprof report page from its data (the page model in
 * the #gp-data element, docs/cli/gpuprof-report.md): summary cards, findings,
 * the step breakdown, the binned GPU timeline, the metrics timeline, sortable
 * and filterable tables, a latency histogram, the compare view and an
 * aggregate of many ranks, with its own small SVG code (the aggregate's wait
 * heatmap on a canvas); a history page through assets/history.js. Every string of the data goes into the page through
 * textContent or setAttribute, never parsed as HTML. Embedded by html.c.
 * When done, <body data-gp-state> is "ok" (or "error", with the reason shown).
 */
(function () {
  'use strict';

  var SVGNS = 'http://www.w3.org/2000/svg';
  var ROWS_FIRST = 50; /* table rows drawn before "show all" */
  var CATS = ['kernel', 'memcpy', 'memset', 'communication', 'runtime', 'dataloader', 'cpu_exec', 'other'];
  var CAT_COLOR = {
    kernel: '#4c78a8', memcpy: '#f58518', memset: '#e45756', communication: '#72b7b2',
    runtime: '#54a24b', dataloader: '#eeca3b', cpu_exec: '#b279a2', other: '#bab0ac'
  };
  var page, main, nav;

  /* ---- DOM helpers ---- */

  function setAttrs(e, a) {
    var k, v;
    if (!a) return;
    for (k in a) {
      if (!Object.prototype.hasOwnProperty.call(a, k)) continue;
      v = a[k];
      /* unknown values (and NaN from a malformed document) leave the attribute out */
      if (v === null || v === undefined || v === false || (typeof v === 'number' && !isFinite(v))) continue;
      if (k === 'text') e.textContent = String(v);
      else if (k === 'cls') e.setAttribute('class', v);
      else if (k.slice(0, 2) === 'on') { if (typeof v === 'function') e.addEventListener(k.slice(2), v); }
      else e.setAttribute(k, v === true ? '' : String(v));
    }
  }

  function append(e, kids) {
    var i;
    if (kids === null || kids === undefined) return;
    if (!Array.isArray(kids)) kids = [kids];
    for (i = 0; i < kids.length; i++) {
      if (kids[i] === null || kids[i] === undefined) continue;
      if (Array.isArray(kids[i])) append(e, kids[i]);
      else if (typeof kids[i] === 'object') e.appendChild(kids[i]);
      else e.appendChild(document.createTextNode(String(kids[i])));
    }
  }

  function h(tag, attrs, kids) {
    var e = document.createElement(tag);
    setAttrs(e, attrs);
    append(e, kids);
    return e;
  }

  function s(tag, attrs, kids) {
    var e = document.createElementNS(SVGNS, tag);
    setAttrs(e, attrs);
    append(e, kids);
    return e;
  }

  function clear(e) {
    while (e.firstChild) e.removeChild(e.firstChild);
  }

  /* ---- values and formats (as the CLI's tables: util/fmt.c) ---- */

  function num(v) {
    return typeof v === 'number' && isFinite(v);
  }

  function get(o, path) {
    var parts = path.split('.'), i;
    for (i = 0; i < parts.length; i++) {
      if (o === null || typeof o !== 'object') return null;
      o = o[parts[i]];
    }
    return o === undefined ? null : o;
  }

  function arr(v) {
    return Array.isArray(v) ? v : [];
  }

  /* a list of rows (objects); anything else in it is left out */
  function objs(v) {
    return arr(v).filter(function (x) { return x !== null && typeof x === 'object' && !Array.isArray(x); });
  }

  /* durations, bytes and rates as the terminal prints them (src/lib/text/num.c): four
     significant digits, the unit chosen after rounding, so never "1000.0 µs" */
  /* the unit and decimals fmtNs gives @p ns: [divisor, name, decimals] (text/num.c's) */
  function nsUnit(ns) {
    var u = [[1e3, '\u00b5s'], [1e6, 'ms'], [1e9, 's']], a = Math.abs(Math.round(ns)), i = 0;
    if (a < 1e3) return [1, 'ns', 0];
    while (i < 2 && a >= u[i + 1][0]) i++;
    a /= u[i][0];
    if (a < 9.9995) return [u[i][0], u[i][1], 3];
    if (a < 99.995) return [u[i][0], u[i][1], 2];
    if (a < 999.95 || i === 2) return [u[i][0], u[i][1], 1];
    return [u[i + 1][0], u[i + 1][1], 3];
  }

  /* v with d decimals as C's printf("%.*f") and the terminal print it: toFixed rounds an exact
     tie away from zero (56.25 -> "56.3"), printf to even ("56.2"); a double's exact decimal
     expansion says whether it is a tie */
  function fixed(v, d) {
    var s = v.toFixed(d), x, m;
    if (!isFinite(v) || Math.abs(v) < 1e-6 || Math.abs(v) >= 1e21) return s;
    x = Math.abs(v).toFixed(Math.min(100, d + 60));
    m = /^(\d+)\.(\d*)$/.exec(x);
    if (!m || m[2].charAt(d) !== '5' || !/^0*$/.test(m[2].slice(d + 1))) return s;
    /* a tie: the digit kept is even when truncated, else toFixed's away-from-zero is the even one */
    if (((d ? m[2].charAt(d - 1) : m[1].charAt(m[1].length - 1)) - 0) % 2) return s;
    x = m[1] + (d ? '.' + m[2].slice(0, d) : '');
    return (v < 0 ? '-' : '') + x;
  }

  function fmtNs(ns) {
    return fmtNsLike(ns, ns);
  }

  /* @p ns in the unit and decimals of @p ref, as compare's text prints a new value beside its base */
  function fmtNsLike(ns, ref) {
    var d;
    if (!num(ns)) return '-';
    d = nsUnit(num(ref) ? ref : ns);
    return fixed((Math.round(ns) + 0) / d[0], d[2]) + ' ' + d[1];
  }

  /* an axis label: fmtNs without trailing zeros ("150 ms", "0.5 s") */
  function fmtAxisNs(ns) {
    if (ns === 0) return '0';
    return fmtNs(ns).replace(/(\.\d*?)0+ /, '$1 ').replace(/\. /, ' ');
  }

  function fmtBytes(b) {
    return fmtBytesLike(b, b);
  }

  /* @p b in the unit of @p ref (text/num.c's gp__fmt_bytes_like) */
  function fmtBytesLike(b, ref) {
    var u = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'], a, k = 0;
    if (!num(b)) return '-';
    a = Math.abs(num(ref) ? ref : b);
    while (k < 5 && a >= (k ? 1023.95 : 1023.5)) {
      a /= 1024;
      k++;
    }
    a = Math.abs(b) / Math.pow(1024, k);
    return (b < 0 ? '-' : '') + fixed(a, k ? 1 : 0) + ' ' + u[k];
  }

  function fmtInt(n) {
    if (!num(n)) return '-';
    return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  }

  function fmtPct(p, sign) {
    if (!num(p)) return '-';
    return (sign && p > 0 ? '+' : '') + fixed(p, 1) + '%';
  }

  function fmtNum(v, digits) {
    if (!num(v)) return '-';
    if (Math.abs(v) >= 1000) return fmtInt(v);
    return String(Number(v.toFixed(digits === undefined ? 3 : digits)));
  }

  /* text/num.c's gp__fmt_rate: four significant digits; under 1 as many decimals as they
     take, so a rate above 0 never reads "0.000" (1 byte in 1 ms: "0.000001000") */
  function fmtRate(v) {
    if (!num(v)) return '-';
    var a = Math.abs(v), dec = a < 9.9995 ? 3 : a < 99.995 ? 2 : a < 999.95 ? 1 : 0;
    if (a > 0 && a < 0.99995) for (dec = 3; dec < 15 && a * Math.pow(10, dec) < 999.95; dec++);
    return fixed(v, dec);
  }

  /* the formatter for a JSON key by its suffix (report-schema.md's conventions) */
  function fmtByKey(key, v) {
    if (typeof v === 'boolean') return v ? 'yes' : 'no';
    if (typeof v === 'string') return v;
    if (!num(v)) return v === null ? '-' : JSON.stringify(v);
    if (/_ns$/.test(key)) return fmtNs(v);
    if (/(^|_)bytes$/.test(key)) return fmtBytes(v);
    if (key === 'compute_capability') return v.toFixed(1);
    if (/_pct$/.test(key)) return fmtPct(v);
    if (/_ratio$/.test(key)) return fmtRatio(v); /* metrics.jsonl's shares of 1 */
    if (/_gbps$/.test(key)) return fmtRate(v) + ' GB/s';
    return fmtNum(v);
  }

  var FMT = {
    ns: fmtNs, bytes: fmtBytes, int: fmtInt, pct: function (v) { return fmtPct(v); },
    spct: function (v) { return fmtPct(v, true); }, num: function (v) { return fmtNum(v); },
    /* GB/s = 1e9 B/s, as the terminal prints them (four significant digits) */
    gbps: function (v) { return num(v) ? fmtRate(v) + ' GB/s' : '-'; },
    bool: function (v) { return v === true ? 'yes' : v === false ? 'no' : '-'; },
    /* a p-value as compare prints it */
    p: function (v) { return num(v) ? (v < 1e-4 ? '<0.0001' : v.toFixed(4)) : '-'; },
    mhz: function (v) { return num(v) ? fmtNum(v, 0) + ' MHz' : '-'; },
    /* a change in percentage points as compare's text prints it ("%+.1f pp": "+0.2 pp") */
    spp: function (v) { return num(v) ? (v >= 0 ? '+' : '') + v.toFixed(1) + ' pp' : '-'; },
    /* an aggregate's p-value (pOf's): four decimals, a small one as "< 1e-13" */
    pval: fmtPval,
    /* an offset's bound [lo, hi] (an aggregate rank's clock_bound_ns) */
    bound: function (v) { return Array.isArray(v) && v.length === 2 && num(v[0]) && num(v[1]) ? fmtNs(v[0]) + ' \u2026 ' + fmtNs(v[1]) : '-'; },
    /* a rank: a number as it is, no thousands separator */
    id: function (v) { return num(v) ? String(v) : '-'; },
    str: function (v) { return v === null || v === undefined ? '-' : String(v); }
  };

  /* an aggregate's p-value: "p_value" has six decimals (0 below 5e-7), "p_value_log10" the
     exponent of a small one (older documents lack it); null when neither is a number */
  function pOf(p, lg) {
    if (num(lg) && lg <= 0 && (!num(p) || p < 1e-4)) return Math.pow(10, lg);
    return num(p) ? p : null;
  }

  /* four decimals; below 1e-4 the decade it is under ("< 1e-13" for 5.5e-14); an exact 0 of
     six decimals "< 1e-6" */
  function fmtPval(v) {
    if (!num(v)) return '-';
    if (v >= 1e-4) return v.toFixed(4);
    if (v > 0) return '< 1e-' + Math.max(4, Math.ceil(-Math.log(v) / Math.LN10 - 1e-9) - 1);
    return '< 1e-6';
  }

  /* ticks: about n round values over [lo, hi] */
  function ticks(lo, hi, n) {
    var span = hi - lo, step, mag, err, out = [], t;
    if (!(span > 0)) return [lo];
    step = span / n;
    mag = Math.pow(10, Math.floor(Math.log(step) / Math.LN10));
    err = step / mag;
    step = (err >= 7.5 ? 10 : err >= 3.5 ? 5 : err >= 1.5 ? 2 : 1) * mag;
    /* by index, at most 50: t += step could stand still where step is below the doubles' spacing */
    for (var i = 0, t0 = Math.ceil(lo / step) * step; i < 50; i++) {
      t = t0 + i * step;
      if (t > hi + step * 1e-9) break;
      out.push(t);
    }
    return out;
  }

  /* ---- page structure ---- */

  function section(id, title, has, note) {
    var sec = h('section', { id: id, cls: 'gp-sec', 'data-gp-has': has ? '1' : '0' }, h('h2', { text: title }));
    main.appendChild(sec);
    nav.appendChild(h('a', { href: '#' + id, text: title }));
    if (!has && note) sec.appendChild(h('p', { cls: 'gp-note', text: note }));
    return sec;
  }

  function card(key, label, value, shown, sub) {
    return h('div', { cls: 'gp-card', 'data-gp-card': key }, [
      h('div', { cls: 'gp-k', text: label }),
      h('div', { cls: 'gp-v', 'data-value': num(value) || typeof value === 'string' ? String(value) : 'null', text: shown }),
      sub ? h('div', { cls: 'gp-s', text: sub }) : null
    ]);
  }

  /* an evidence key as words, without the unit suffix its value is shown in ("copy_ns" reads "copy 11.49 ms") */
  function evLabel(key) {
    return key.replace(/_(ns|pct|ratio|gbps)$/, '').replace(/_bytes$/, '').replace(/_/g, ' ');
  }

  /* an evidence value: numbers by their key's unit, lists of objects as "k v, k v; ..."; an
     object with a rank as "rank 5: ..."; an aggregate rank's outliers as the metrics' words */
  function fmtEvidence(key, v) {
    var txt, head = '';
    if (key === 'outliers' && Array.isArray(v)) {
      return 'outlier in ' + v.map(function (x) { return typeof x === 'string' ? evLabel(x) : fmtEvidence('', x); }).join(', ');
    }
    if (Array.isArray(v)) {
      return v.map(function (x) { return fmtEvidence(key, x); }).join('; ');
    }
    if (v && typeof v === 'object') {
      if (num(v.rank)) head = 'rank ' + v.rank + ': ';
      return head + Object.keys(v).filter(function (k) { return !(head && k === 'rank'); }).map(function (k) {
        txt = fmtEvidence(k, v[k]);
        return (k === 'name' || k === 'type' || k === 'component' || k === 'outliers' ? '' : evLabel(k) + ' ') + (txt.length > 90 ? txt.slice(0, 87) + '\u2026' : txt);
      }).join(', ');
    }
    if (key === 'p_value') return fmtPval(v);
    return fmtByKey(key, v);
  }

  function evidence(ev) {
    var box = h('div', { cls: 'gp-evidence' }), k, keys;
    if (!ev || typeof ev !== 'object') return null;
    /* an aggregate's p-value: one "p value" from p_value and its exponent p_value_log10 */
    keys = Object.keys(ev).filter(function (x) { return !(x === 'p_value_log10' && 'p_value' in ev); });
    for (k = 0; k < keys.length; k++) {
      box.appendChild(h('span', { 'data-key': keys[k] }, [evLabel(keys[k]) + ' ', h('b', {
        text: keys[k] === 'p_value' ? fmtPval(pOf(ev.p_value, ev.p_value_log10)) : fmtEvidence(keys[k], ev[keys[k]])
      })]));
    }
    return keys.length ? box : null;
  }

  /* ---- generic table: sort on a header click, filter by name, top rows first ---- */

  /* a click on a long name shows it all, another folds it again */
  function toggleName(ev) {
    var td = ev.currentTarget;
    td.classList.toggle('gp-open');
  }

  /* a name as people read it: page.names has the demangled form of the document's C++ names */
  function shownName(v) {
    var names = page && page.names;
    return typeof v === 'string' && names && Object.prototype.hasOwnProperty.call(names, v) ? names[v] : v;
  }

  function table(name, cols, rows, opt) {
    var box = h('div', { cls: 'gp-tablebox', 'data-gp-tablebox': name });
    var state = { key: opt.sort || null, desc: opt.desc !== false, filter: '', all: false };
    var input = h('input', { type: 'search', placeholder: 'filter ' + (opt.what || 'names'), 'data-gp-filter': name, 'aria-label': 'filter ' + name });
    var count = h('span', { cls: 'gp-count', 'data-gp-count': name });
    var more = h('button', { type: 'button', cls: 'gp-more', 'data-gp-more': name });
    var tbl = h('table', { cls: 'gp-table', 'data-gp-table': name });
    var thead = h('thead'), tbody = h('tbody'), tr = h('tr'), i;

    /* no rows: the title and one line, not an empty table with a filter */
    if (!rows.length) {
      box.setAttribute('data-gp-empty', '');
      append(box, [h('h3', { cls: 'gp-sub', text: opt.title }), h('p', { cls: 'gp-note', text: 'No ' + (opt.what || 'rows') + ' in this input.' })]);
      return box;
    }
    for (i = 0; i < cols.length; i++) {
      (function (c) {
        var th = h('th', { 'data-col': c.key, cls: c.fmt === 'str' ? 'gp-str' : null, title: c.title || null, text: c.label });
        th.addEventListener('click', function () {
          if (state.key === c.key) state.desc = !state.desc;
          else {
            state.key = c.key;
            state.desc = c.fmt !== 'str';
          }
          draw();
        });
        tr.appendChild(th);
      })(cols[i]);
    }
    thead.appendChild(tr);
    tbl.appendChild(thead);
    tbl.appendChild(tbody);
    /* opt.foot: [{label, values {key: v}, titles {key: text}}]: rows under the sorted ones (min, max, ...) */
    if (opt.foot && opt.foot.length) {
      var tfoot = h('tfoot');
      opt.foot.forEach(function (fr) {
        var ftr = h('tr', { 'data-gp-foot': fr.label });
        cols.forEach(function (c, k) {
          var v = k === 0 ? fr.label : get(fr.values, c.key);
          ftr.appendChild(h('td', {
            'data-col': c.key, cls: k === 0 || c.fmt === 'str' ? 'gp-str' : null, title: k ? get(fr.titles, c.key) : null,
            'data-value': k === 0 ? fr.label : v === null ? 'null' : String(v),
            text: k === 0 ? fr.label : v === null ? '' : (FMT[c.fmt] || FMT.str)(v)
          }));
        });
        tfoot.appendChild(ftr);
      });
      tbl.appendChild(tfoot);
    }
    input.addEventListener('input', function () {
      state.filter = input.value.toLowerCase();
      draw();
    });
    more.addEventListener('click', function () {
      state.all = !state.all;
      draw();
    });

    function cmp(a, b) {
      var x = a[state.key], y = b[state.key], r;
      /* a bound [lo, hi] sorts by its low end */
      if (Array.isArray(x)) x = x[0];
      if (Array.isArray(y)) y = y[0];
      var xn = x === null || x === undefined, yn = y === null || y === undefined;
      if (xn || yn) return xn === yn ? 0 : xn ? 1 : -1; /* unknown last either way */
      /* numbers written as strings (process group ids "2", "10") as numbers */
      if (typeof x === 'string' && typeof y === 'string' && /^\d+$/.test(x) && /^\d+$/.test(y)) r = Number(x) - Number(y);
      else if (typeof x === 'string' || typeof y === 'string') r = String(x).localeCompare(String(y));
      else r = x < y ? -1 : x > y ? 1 : 0;
      return state.desc ? -r : r;
    }

    function draw() {
      var shown = rows, n, j, k, row, trr, c, v, cls;
      if (state.filter) {
        shown = rows.filter(function (r) {
          var nm = r[opt.filterKey || 'name'];
          return (String(nm || '') + '\n' + String(shownName(nm) || '')).toLowerCase().indexOf(state.filter) >= 0;
        });
      }
      if (state.key) shown = shown.map(function (r, idx) { return [r, idx]; }).sort(function (a, b) {
        return cmp(a[0], b[0]) || a[1] - b[1];
      }).map(function (p) { return p[0]; });
      n = state.all ? shown.length : Math.min(shown.length, ROWS_FIRST);
      clear(tbody);
      for (j = 0; j < n; j++) {
        row = shown[j];
        trr = h('tr', { 'data-gp-row': '' });
        for (k = 0; k < cols.length; k++) {
          c = cols[k];
          v = row[c.key];
          cls = c.fmt === 'str' ? (c.key === (opt.filterKey || 'name') ? 'gp-str gp-name' : 'gp-str') : null;
          if (c.sign && num(v)) cls = v > 0 ? 'gp-pos' : v < 0 ? 'gp-neg' : null;
          /* opt.flag(row, key): a cell to highlight (an aggregate's robust outliers) */
          if (opt.flag && opt.flag(row, c.key)) cls = (cls ? cls + ' ' : '') + 'gp-outlier';
          if (c.badge && v) {
            trr.appendChild(h('td', { 'data-col': c.key, 'data-value': String(v), cls: 'gp-str' }, h('span', { cls: 'gp-badge ' + v, text: v })));
            continue;
          }
          if (cls === 'gp-str gp-name') {
            /* a name: whole, at most three lines until clicked (a template's arguments can fill twenty);
               a C++ name demangled as nsys shows it, the mangled one in the tooltip */
            trr.appendChild(h('td', { 'data-col': c.key, cls: cls, title: String(v), 'data-value': String(v), onclick: toggleName },
              h('span', { cls: 'gp-clip', text: FMT.str(shownName(v)) })));
            continue;
          }
          trr.appendChild(h('td', {
            'data-col': c.key, cls: cls,
            'data-value': v === null || v === undefined ? 'null' : typeof v === 'object' ? JSON.stringify(v) : String(v),
            /* a column's own formatter gets the row too (a value in its row's unit) */
            text: typeof c.fmt === 'function' ? c.fmt(v, row) : (FMT[c.fmt] || FMT.str)(v)
          }));
        }
        tbody.appendChild(trr);
      }
      for (j = 0; j < tr.children.length; j++) {
        c = tr.children[j];
        if (c.getAttribute('data-col') === state.key) c.setAttribute('aria-sort', state.desc ? 'descending' : 'ascending');
        else c.removeAttribute('aria-sort');
      }
      count.textContent = n + ' of ' + shown.length + (shown.length !== rows.length ? ' (' + rows.length + ' in all)' : '');
      more.textContent = state.all ? 'Show the first ' + ROWS_FIRST : 'Show all ' + shown.length;
      more.hidden = shown.length <= ROWS_FIRST;
    }

    box.appendChild(h('h3', { cls: 'gp-sub', text: opt.title }));
    if (opt.note) box.appendChild(h('p', { cls: 'gp-note', text: opt.note }));
    box.appendChild(h('div', { cls: 'gp-toolbar' }, [input, count, more]));
    box.appendChild(h('div', { cls: 'gp-scroll' }, tbl));
    draw();
    return box;
  }

  /* ---- charts ---- */

  /* dashed vertical lines at the values of @p at within [x0, x1], one per pixel column at most */
  function markers(svg, at, x0, x1, xs, y0, y1) {
    var seen = {}, i, x, n = 0;
    for (i = 0; i < at.length; i++) {
      if (!num(at[i]) || at[i] < x0 || at[i] > x1) continue;
      x = Math.round(xs(at[i]));
      if (seen[x]) continue;
      seen[x] = true;
      n++;
      svg.appendChild(s('line', { cls: 'gp-marker', x1: x, x2: x, y1: y0, y2: y1, 'data-mark': '' }));
    }
    return n;
  }

  /*
   * At most about @p max points of [x, y] @p points: consecutive bins, each
   * giving its lowest and highest point in order (min/max decimation, as the
   * metrics timeline of the report is decimated: no peak is averaged away).
   */
  function decimate(points, max) {
    var out = [], per, i, j, lo, hi;
    if (points.length <= max) return points;
    per = Math.ceil(points.length / (max / 2));
    for (i = 0; i < points.length; i += per) {
      lo = hi = i;
      for (j = i; j < Math.min(points.length, i + per); j++) {
        if (points[j][1] < points[lo][1]) lo = j;
        if (points[j][1] > points[hi][1]) hi = j;
      }
      out.push(points[Math.min(lo, hi)]);
      if (lo !== hi) out.push(points[Math.max(lo, hi)]);
    }
    return out;
  }

  /* a histogram of @p values (ns) with p50 and p95 markers */
  function histogram(name, values, p50, p95) {
    var W = 960, H = 236, L = 56, R = 12, T = 30, B = 34;
    var v = values.filter(num).slice().sort(function (a, b) { return a - b; });
    var n = v.length, lo, hi, k, width, counts = [], i, b, maxc = 0, svg, x, y, t, tk;
    if (n === 0) return null;
    lo = v[0];
    hi = v[n - 1];
    k = n < 5 ? n : Math.max(5, Math.min(40, Math.ceil(Math.sqrt(n))));
    if (hi === lo) k = 1;
    width = (hi - lo) / k || 1;
    for (i = 0; i < k; i++) counts.push(0);
    for (i = 0; i < n; i++) {
      b = Math.min(k - 1, Math.floor((v[i] - lo) / width));
      counts[b]++;
    }
    for (i = 0; i < k; i++) maxc = Math.max(maxc, counts[i]);
    svg = s('svg', { cls: 'gp-chart', viewBox: '0 0 ' + W + ' ' + H, 'data-gp-chart': 'histogram', 'data-series': name, role: 'img', 'aria-label': 'histogram of ' + name });
    x = function (val) { return L + (hi === lo ? (W - L - R) / 2 : (val - lo) / (hi - lo) * (W - L - R)); };
    y = function (c) { return H - B - c / maxc * (H - T - B); };
    svg.appendChild(s('line', { cls: 'gp-axis', x1: L, y1: H - B, x2: W - R, y2: H - B }));
    for (i = 0; i < k; i++) {
      var x0 = hi === lo ? L + (W - L - R) * 0.4 : x(lo + i * width), x1 = hi === lo ? L + (W - L - R) * 0.6 : x(lo + (i + 1) * width);
      svg.appendChild(s('rect', {
        cls: 'gp-bar', x: x0 + 0.5, y: y(counts[i]), width: Math.max(0.5, x1 - x0 - 1), height: H - B - y(counts[i]),
        'data-count': counts[i], 'data-lo': lo + i * width, 'data-hi': lo + (i + 1) * width
      }, s('title', { text: fmtNs(lo + i * width) + ' \u2013 ' + fmtNs(lo + (i + 1) * width) + ': ' + counts[i] })));
    }
    tk = ticks(lo, hi, 6);
    for (i = 0; i < tk.length; i++) {
      t = tk[i];
      if (t < lo || t > hi) continue;
      svg.appendChild(s('text', { x: x(t), y: H - B + 16, 'text-anchor': 'middle', text: fmtAxisNs(t) }));
    }
    svg.appendChild(s('text', { x: L - 6, y: T + 8, 'text-anchor': 'end', text: String(maxc) }));
    svg.appendChild(s('line', { cls: 'gp-axis', x1: L, y1: T, x2: L, y2: H - B }));
    svg.appendChild(s('text', { x: L - 6, y: H - B, 'text-anchor': 'end', text: '0' }));
    [['p50', p50, T - 18], ['p95', p95, T - 4]].forEach(function (m) {
      var xm;
      if (!num(m[1]) || m[1] < lo || m[1] > hi) return;
      xm = x(m[1]);
      svg.appendChild(s('line', { cls: 'gp-q', x1: xm, x2: xm, y1: m[2] + 3, y2: H - B, 'data-q': m[0] }));
      svg.appendChild(s('text', { x: xm > W * 0.75 ? xm - 4 : xm + 4, y: m[2] + 4, 'text-anchor': xm > W * 0.75 ? 'end' : 'start', text: m[0] + ' ' + fmtNs(m[1]) }));
    });
    return svg;
  }

  /* a line chart of [t, v] points (v null: a gap), with vertical markers at @p marks */
  /* o: {marks: [x], xfmt: x label (default: time from x0), width, dot: [x, y, title] (a point
     to mark, as the memory view's peak)}; fmt formats a value as the data holds it */
  function lineChart(name, points, x0, x1, fmt, o) {
    var W = o.width || 960, H = 120, L = 64, R = 10, T = 8, B = 22;
    var vals = [], i, lo, hi, svg, d = '', pen = false, tk, t, xs, ys, marks = o.marks, xfmt = o.xfmt;
    points = points.filter(function (p) { return Array.isArray(p) && p.length >= 2; });
    lo = 0;
    hi = -Infinity;
    for (i = 0; i < points.length; i++) {
      if (!num(points[i][1])) continue;
      vals.push(points[i][1]);
      lo = Math.min(lo, points[i][1]);
      hi = Math.max(hi, points[i][1]);
    }
    if (!vals.length) return null;
    if (hi === lo) hi = lo + 1;
    xs = function (tv) { return L + (x1 > x0 ? (tv - x0) / (x1 - x0) : 0.5) * (W - L - R); };
    ys = function (v) { return H - B - (v - lo) / (hi - lo) * (H - T - B); };
    svg = s('svg', { cls: 'gp-chart', viewBox: '0 0 ' + W + ' ' + H, 'data-gp-chart': 'metric', 'data-series': name, role: 'img', 'aria-label': name });
    svg.appendChild(s('line', { cls: 'gp-axis', x1: L, y1: H - B, x2: W - R, y2: H - B }));
    svg.appendChild(s('line', { cls: 'gp-axis', x1: L, y1: T, x2: L, y2: H - B }));
    svg.appendChild(s('text', { x: L - 6, y: T + 8, 'text-anchor': 'end', text: fmt(hi), 'data-axis': 'max' }));
    svg.appendChild(s('text', { x: L - 6, y: H - B, 'text-anchor': 'end', text: fmt(lo), 'data-axis': 'min' }));
    markers(svg, arr(marks), x0, x1, xs, T, H - B);
    for (i = 0; i < points.length; i++) {
      if (!num(points[i][1]) || !num(points[i][0])) {
        pen = false;
        continue;
      }
      d += (pen ? 'L' : 'M') + xs(points[i][0]).toFixed(1) + ' ' + ys(points[i][1]).toFixed(1);
      pen = true;
    }
    svg.appendChild(s('path', { cls: 'gp-line', d: d }));
    if (o.dot && num(o.dot[0]) && num(o.dot[1])) {
      svg.appendChild(s('circle', { cls: 'gp-dot', cx: xs(o.dot[0]).toFixed(1), cy: ys(o.dot[1]).toFixed(1), r: 4, 'data-dot': String(o.dot[1]) },
        s('title', { text: String(o.dot[2] || '') })));
    }
    if (xfmt) {
      /* x in its own units: iterations */
      tk = ticks(x0, x1, 8);
      for (i = 0; i < tk.length; i++) {
        if (tk[i] < x0 || tk[i] > x1 || tk[i] !== Math.round(tk[i])) continue;
        svg.appendChild(s('text', { x: xs(tk[i]), y: H - 6, 'text-anchor': 'middle', text: xfmt(tk[i]) }));
      }
      return svg;
    }
    tk = ticks(0, x1 - x0, W > 600 ? 8 : 5);
    for (i = 0; i < tk.length; i++) {
      t = x0 + tk[i];
      if (t > x1) continue;
      svg.appendChild(s('text', { x: xs(t), y: H - 6, 'text-anchor': 'middle', text: fmtAxisNs(tk[i]) }));
    }
    return svg;
  }

  /* ---- analyze: one rank ---- */

  function rankBusyPct(r) {
    var w = get(r, 'gpu.window_ns'), b = get(r, 'gpu.busy_ns');
    return num(w) && w > 0 && num(b) ? 100 * b / w : null;
  }

  function peakMemory(r, metrics) {
    var devs = objs(get(r, 'memory.devices')), best = null, i, ser;
    for (i = 0; i < devs.length; i++) {
      if (num(devs[i].peak_allocated_bytes) && (!best || devs[i].peak_allocated_bytes > best.v)) {
        best = { v: devs[i].peak_allocated_bytes, sub: 'allocated, device ' + devs[i].device + (devs[i].peak_step ? ', ' + devs[i].peak_step : '') };
      }
    }
    if (best) return best;
    ser = objs(get(metrics, 'series'));
    for (i = 0; i < ser.length; i++) {
      if (/^gpu\d+\.memory_used_bytes$/.test(ser[i].name) && num(ser[i].max) && (!best || ser[i].max > best.v)) {
        best = { v: ser[i].max, sub: 'used (NVML), ' + ser[i].name.split('.')[0].replace('gpu', 'GPU ') };
      }
    }
    return best;
  }

  /* a trace without ProfilerStep: its one "step" is the whole trace (named "trace", no number) */
  function wholeTrace(r) {
    var n = get(r, 'overview.steps'), steps = objs(r.steps);
    if (num(n)) return n === 0;
    return steps.length === 1 && !num(steps[0].number) && steps[0].name === 'trace';
  }

  function plural(n, one, many) {
    return fmtInt(n) + ' ' + (n === 1 ? one : many || one + 's');
  }

  function summaryAnalyze(r, doc) {
    var st = r.step_stats || {}, sec, mean = st.mean_ns, busy = rankBusyPct(r), mem = peakMemory(r, doc.metrics);
    var whole = wholeTrace(r), span = whole ? get(objs(r.steps)[0], 'dur_ns') : null;
    sec = section('gp-summary', 'Summary', true);
    sec.appendChild(h('div', { cls: 'gp-cards' }, [
      /* no ProfilerStep: no step time, no steps per second; the time the trace covers */
      whole ? card('trace_time', 'Traced time', span, fmtNs(span), 'no ProfilerStep: the whole trace') : null,
      whole ? null : card('step_p50', 'Step time p50', st.median_ns, fmtNs(st.median_ns), num(st.count) && st.count > 0 ? plural(st.count, 'complete step') + ', mean ' + fmtNs(mean) : 'no complete step'),
      whole ? null : card('step_p95', 'Step time p95', st.p95_ns, fmtNs(st.p95_ns), num(st.max_ns) ? 'max ' + fmtNs(st.max_ns) : null),
      whole ? null : card('throughput', 'Steps per second', num(mean) && mean > 0 ? 1e9 / mean : null, num(mean) && mean > 0 ? fmtRate(1e9 / mean) + ' steps/s' : '-', '1 / mean step time'),
      num(busy) ? card('gpu_busy', 'GPU busy', busy, fmtPct(busy), 'of the GPU window ' + fmtNs(get(r, 'gpu.window_ns'))) : null,
      mem ? card('peak_memory', 'Peak memory', mem.v, fmtBytes(mem.v), mem.sub) : null,
      Array.isArray(r.findings) ? card('findings', 'Findings', objs(r.findings).length, String(objs(r.findings).length), objs(r.findings).length ? 'ranked below' : 'nothing to flag') : null
    ]));
  }

  /* the mean and max over the GPUs' series named gpuN.SUFFIX: {mean, max, n} or null */
  function gpuSeriesStats(metrics, suffix) {
    var ser = objs(get(metrics, 'series')).filter(function (x) { return typeof x.name === 'string' && x.name.replace(/^gpu\d+\./, '') === suffix && /^gpu\d+\./.test(x.name); });
    var means = ser.map(function (x) { return x.mean; }).filter(num), maxs = ser.map(function (x) { return x.max; }).filter(num);
    if (!means.length) return null;
    return { mean: means.reduce(function (a, b) { return a + b; }, 0) / means.length, max: Math.max.apply(null, maxs), n: ser.length };
  }

  /* an analysis without a rank (metrics alone, a run without a capture): what was sampled */
  function summaryMetrics(doc) {
    var m = doc.metrics, mem = peakMemory({}, m), util = gpuSeriesStats(m, 'utilization_gpu_ratio');
    var cpu = objs(get(m, 'series')).filter(function (x) { return x.name === 'host.cpu_busy_ratio'; })[0];
    var sec = section('gp-summary', 'Summary', true), cards = [
      util ? card('gpu_util', 'GPU utilization', util.mean, fmtRatio(util.mean), 'mean' + (util.n > 1 ? ' of ' + util.n + ' GPUs' : '') + ', max ' + fmtRatio(util.max)) : null,
      mem ? card('peak_memory', 'Peak memory', mem.v, fmtBytes(mem.v), mem.sub) : null,
      cpu && num(cpu.mean) ? card('host_cpu', 'Host CPU busy', cpu.mean, fmtRatio(cpu.mean), 'mean, max ' + fmtRatio(cpu.max)) : null
    ].filter(function (c) { return c; });
    if (cards.length) sec.appendChild(h('div', { cls: 'gp-cards' }, cards));
    /* a run without a capture says why in the header ("No GPU timeline") */
    if (!objs(get(m, 'series')).length) sec.appendChild(h('p', { cls: 'gp-note', text: 'Nothing was captured or sampled: no trace, no capture, no metrics (gpuprof run samples them unless --sample-ms 0).' }));
    else if (!get(page, 'env.no_gpu_timeline')) sec.appendChild(h('p', { cls: 'gp-note', text: 'No trace or capture in this input: its metrics only.' }));
  }

  function findingsSection(list, title) {
    var sec = section('gp-findings', title || 'Findings', list.length > 0, 'Nothing to flag.'), ul, i, f;
    if (!list.length) return;
    ul = h('ol', { cls: 'gp-findings' });
    for (i = 0; i < list.length; i++) {
      f = list[i];
      ul.appendChild(h('li', { cls: 'gp-finding', 'data-gp-finding': f.id || '', 'data-severity': f.severity || 'info' }, [
        h('div', null, [h('span', { cls: 'gp-badge ' + (f.severity || ''), text: f.severity || 'note' }),
          h('span', { cls: 'gp-title', text: f.title || f.text || '' }),
          num(f.impact_pct) ? h('span', { cls: 'gp-count', text: '  up to ' + fmtPct(f.impact_pct) + ' of the time' }) : null]),
        f.suggestion ? h('p', { cls: 'gp-sugg', text: f.suggestion }) : null,
        evidence(f.evidence)
      ]));
    }
    sec.appendChild(ul);
  }

  function stepsSection(r) {
    var steps = objs(r.steps).filter(function (st) { return st && num(st.dur_ns); }), sec, W = 960, H = 260, L = 64, R = 10, T = 10, B = 30, svg, bars = [], i, j, g, maxd = 0;
    var per, group, x, bw, y, tk, leg, pct;
    var whole = wholeTrace(r);
    if (!steps.length) return;
    sec = section('gp-steps', whole ? 'Time breakdown' : 'Step breakdown', true);
    if (whole) sec.appendChild(h('p', { cls: 'gp-note', text: 'No ProfilerStep in this trace: one bar for the whole trace.' }));
    /* more steps than fit: consecutive groups, their mean */
    per = Math.max(1, Math.ceil(steps.length / 300));
    for (i = 0; i < steps.length; i += per) {
      group = steps.slice(i, i + per);
      var b = { name: group.length > 1 ? group[0].name + ' \u2026 ' + group[group.length - 1].name : group[0].name, number: group[0].number, dur: 0, incomplete: false, cats: {} };
      for (j = 0; j < group.length; j++) {
        b.dur += group[j].dur_ns / group.length;
        b.incomplete = b.incomplete || !!group[j].incomplete;
        CATS.forEach(function (c) { b.cats[c] = (b.cats[c] || 0) + (get(group[j], 'breakdown.' + c + '_ns') || 0) / group.length; });
      }
      bars.push(b);
      maxd = Math.max(maxd, b.dur);
    }
    if (!(maxd > 0)) maxd = 1;
    svg = s('svg', { cls: 'gp-chart', viewBox: '0 0 ' + W + ' ' + H, 'data-gp-chart': 'steps', role: 'img', 'aria-label': 'step time breakdown' });
    bw = (W - L - R) / bars.length;
    y = function (v) { return H - B - v / maxd * (H - T - B); };
    tk = ticks(0, maxd, 4);
    for (i = 0; i < tk.length; i++) {
      svg.appendChild(s('line', { cls: 'gp-axis', x1: L, x2: W - R, y1: y(tk[i]), y2: y(tk[i]) }));
      svg.appendChild(s('text', { x: L - 6, y: y(tk[i]) + 4, 'text-anchor': 'end', text: fmtAxisNs(tk[i]) }));
    }
    for (i = 0; i < bars.length; i++) {
      x = L + i * bw;
      g = s('g', { 'data-step': num(bars[i].number) ? bars[i].number : bars[i].name, opacity: bars[i].incomplete ? 0.45 : null });
      var acc = 0, tip = bars[i].name + (per > 1 ? ' (mean of ' + per + ')' : '') + ': ' + fmtNs(bars[i].dur) + (bars[i].incomplete ? ' (incomplete)' : '');
      CATS.forEach(function (c) {
        var v = bars[i].cats[c];
        if (!(v > 0)) return;
        g.appendChild(s('rect', { x: x + bw * 0.1, width: Math.max(0.5, bw * 0.8), y: y(acc + v), height: Math.max(0, y(acc) - y(acc + v)), fill: CAT_COLOR[c], 'data-cat': c, 'data-value': v }));
        acc += v;
        tip += '\n' + c + ' ' + fmtNs(v) + ' (' + fmtPct(100 * v / bars[i].dur) + ')';
      });
      g.appendChild(s('title', { text: tip }));
      svg.appendChild(g);
      if (bars.length <= 40 || i % Math.ceil(bars.length / 20) === 0) {
        svg.appendChild(s('text', { x: x + bw / 2, y: H - B + 14, 'text-anchor': 'middle', text: num(bars[i].number) ? '#' + bars[i].number : bars[i].name }));
      }
    }
    sec.appendChild(svg);
    leg = h('div', { cls: 'gp-legend' });
    pct = get(r, 'step_stats.breakdown_pct') || {};
    CATS.forEach(function (c) {
      leg.appendChild(h('span', { 'data-cat': c, 'data-value': num(pct[c + '_pct']) ? pct[c + '_pct'] : 'null' }, [h('i', { style: 'background:' + CAT_COLOR[c] }), c.replace('_', ' ') + ' ' + fmtPct(pct[c + '_pct'])]));
    });
    sec.appendChild(leg);
    if (whole) return;
    sec.appendChild(table('steps', [
      { key: 'name', label: 'Step', fmt: 'str' }, { key: 'dur_ns', label: 'Time', fmt: 'ns' },
      { key: 'gpu_busy_ns', label: 'GPU busy', fmt: 'ns' }, { key: 'kernel_count', label: 'Kernels', fmt: 'int' },
      { key: 'incomplete', label: 'Incomplete', fmt: 'bool' }
    ], steps, { title: 'Steps', what: 'steps', sort: null }));
  }

  function timelineSection(r) {
    var tl = r.timeline, sec, rows = [], W = 960, L = 130, R = 10, RH = 16, T = 6, i, j, svg, H, cw, row, y, f, tk, t;
    if (tl && !(num(tl.start_ns) && num(tl.end_ns) && tl.end_ns > tl.start_ns && tl.bin_ns > 0 && tl.bins > 0 && tl.bins <= 100000)) tl = null;
    /* no GPU activity: no section (a finding says so); a report from before timelines: how to get one */
    if (tl === null || (tl === undefined && !get(r, 'overview.has_gpu'))) return;
    sec = section('gp-timeline', 'GPU timeline', !!tl, 'This report has no timeline (written by an older gpuprof): run gpuprof report on the trace.');
    if (!tl) return;
    objs(tl.devices).forEach(function (d) {
      rows.push({ label: 'GPU ' + d.device + ' (all)', key: 'gpu' + d.device, busy: arr(d.busy_ns), total: d.total_busy_ns, dev: true });
      objs(tl.streams).forEach(function (st) {
        if (st.device === d.device) rows.push({ label: 'stream ' + st.stream, key: st.device + ':' + st.stream, busy: arr(st.busy_ns), total: st.total_busy_ns });
      });
    });
    H = T + rows.length * (RH + 3) + 24;
    cw = (W - L - R) / tl.bins;
    svg = s('svg', { cls: 'gp-chart', viewBox: '0 0 ' + W + ' ' + H, 'data-gp-chart': 'timeline', role: 'img', 'aria-label': 'GPU busy time per stream' });
    for (i = 0; i < rows.length; i++) {
      row = rows[i];
      y = T + i * (RH + 3);
      var g = s('g', { 'data-stream': row.key, 'data-total': row.total });
      g.appendChild(s('title', { text: row.label + ': busy ' + fmtNs(row.total) + ' (' + fmtPct(100 * row.total / (tl.end_ns - tl.start_ns)) + ' of the trace)' }));
      g.appendChild(s('text', { x: L - 6, y: y + RH - 4, 'text-anchor': 'end', 'font-weight': row.dev ? '600' : null, text: row.label }));
      g.appendChild(s('rect', { x: L, y: y, width: W - L - R, height: RH, fill: '#eef1f5' }));
      for (j = 0; j < row.busy.length && j < tl.bins; j++) {
        f = row.busy[j] / tl.bin_ns;
        if (!(f > 0)) continue;
        g.appendChild(s('rect', { x: L + j * cw, y: y, width: cw + 0.3, height: RH, fill: row.dev ? '#1d4ed8' : '#4c78a8', 'fill-opacity': (0.12 + 0.88 * Math.min(1, f)).toFixed(3) }));
      }
      svg.appendChild(g);
    }
    markers(svg, objs(r.steps).map(function (st) { return st.start_ns; }), tl.start_ns, tl.end_ns, function (v) {
      return L + (v - tl.start_ns) / (tl.bins * tl.bin_ns) * (W - L - R);
    }, T - 2, H - 22);
    tk = ticks(0, tl.end_ns - tl.start_ns, 8);
    for (i = 0; i < tk.length; i++) {
      t = tk[i];
      svg.appendChild(s('text', { x: L + t / (tl.bins * tl.bin_ns) * (W - L - R), y: H - 6, 'text-anchor': 'middle', text: fmtAxisNs(t) }));
    }
    sec.appendChild(h('p', { cls: 'gp-note', text: tl.bins + ' bins of ' + fmtNs(tl.bin_ns) + ' from the trace start; the darker a cell, the more of it the stream was busy (blank: idle). Dashed lines: step starts.' + (tl.streams_omitted ? ' ' + tl.streams_omitted + ' less busy streams are not shown.' : '') }));
    sec.appendChild(svg);
  }

  /* a share of 1 (the _ratio series of metrics.jsonl: 0.9 is 90%) as a percentage */
  function fmtRatio(v) {
    return num(v) ? fmtPct(100 * v) : '-';
  }

  function fmtMHz(v) {
    return num(v) ? (v / 1e6).toFixed(0) + ' MHz' : '-';
  }

  /* a metric series' values by its unit (metrics.jsonl's suffixes); unknown units as numbers */
  var UNIT_FMT = {
    ratio: fmtRatio, bytes: fmtBytes, hertz: fmtMHz,
    watts: function (v) { return num(v) ? v.toFixed(0) + ' W' : '-'; },
    celsius: function (v) { return num(v) ? v.toFixed(0) + ' \u00b0C' : '-'; },
    cores: function (v) { return num(v) ? v.toFixed(2) + ' cores' : '-'; },
    joules: function (v) { return num(v) ? fmtNum(v, 0) + ' J' : '-'; },
    bytes_per_second: function (v) { return num(v) ? fmtBytes(v) + '/s' : '-'; }
  };

  function seriesFmt(sr) {
    return UNIT_FMT[sr.unit] || UNIT_FMT[String(sr.name).replace(/^.*_/, '')] || function (v) { return fmtNum(v); };
  }

  var METRIC_ORDER = [
    ['utilization_gpu_ratio', 'utilization'],
    ['memory_used_bytes', 'memory used'],
    ['power_watts', 'power'],
    ['temperature_celsius', 'temperature'],
    ['clock_sm_hertz', 'SM clock'],
    ['clock_memory_hertz', 'memory clock'],
    ['utilization_memory_ratio', 'memory utilization (NVML)']
  ];
  var HOST_ORDER = [
    ['host.cpu_busy_ratio', 'Host CPU busy'],
    ['process_tree.cpu_cores', 'Process tree CPU'],
    ['process_tree.rss_bytes', 'Process tree RSS'],
    ['host.memory_available_bytes', 'Host memory available']
  ];

  function metricsSection(r, doc) {
    var m = doc.metrics, ser = objs(get(m, 'series')), byName = Object.create(null), x0 = Infinity, x1 = -Infinity, sec, grid, i, marks, gpus = Object.create(null);
    /* no metrics (a trace; a run sampled with --sample-ms 0): no section, unless reading them failed */
    if (!ser.length && !(m && m.error)) return;
    sec = section('gp-metrics', 'Metrics timeline', ser.length > 0, m && m.error ? 'The metrics could not be read: ' + m.error : null);
    if (!ser.length) return;
    for (i = 0; i < ser.length; i++) {
      byName[ser[i].name] = ser[i];
      arr(ser[i].points).forEach(function (p) {
        if (Array.isArray(p) && num(p[0])) {
          x0 = Math.min(x0, p[0]);
          x1 = Math.max(x1, p[0]);
        }
      });
      if (typeof ser[i].name === 'string' && /^gpu\d+\./.test(ser[i].name)) gpus[ser[i].name.split('.')[0]] = true;
    }
    marks = objs(r && r.steps).map(function (st) { return st.start_ns; }).filter(num);
    sec.appendChild(h('p', { cls: 'gp-note', text: 'Sampled every ' + (num(m.interval_ms) ? m.interval_ms + ' ms' : '?') + ', ' + fmtInt(m.samples) + ' samples' + (num(m.max_points) ? ' (at most ' + m.max_points + ' points a series: the lowest and highest of each bin)' : '') + '.' + (marks.length ? ' Dashed lines: step starts.' : '') }));
    grid = h('div', { cls: 'gp-metrics' });
    function add(name, title) {
      var sr = byName[name], chart, fmt;
      if (!sr) return;
      fmt = seriesFmt(sr);
      chart = lineChart(name, arr(sr.points), x0, x1, fmt, { marks: marks, width: 480 });
      if (!chart) return;
      grid.appendChild(h('div', { cls: 'gp-metric', 'data-series': name }, [
        h('h3', { text: title }),
        h('div', { cls: 'gp-s', text: 'min ' + fmt(sr.min) + ' \u00b7 mean ' + fmt(sr.mean) + ' \u00b7 p95 ' + fmt(sr.p95) + ' \u00b7 max ' + fmt(sr.max) }),
        chart
      ]));
    }
    Object.keys(gpus).sort().forEach(function (gname) {
      METRIC_ORDER.forEach(function (mo) { add(gname + '.' + mo[0], gname.replace('gpu', 'GPU ') + ' ' + mo[1]); });
    });
    HOST_ORDER.forEach(function (mo) { add(mo[0], mo[1]); });
    sec.appendChild(grid);
  }

  function tablesSection(r) {
    var sec = section('gp-tables', 'Kernels and operators', true), ranges = objs(r.ranges), ann = objs(r.annotations);
    sec.appendChild(table('kernels', [
      { key: 'name', label: 'Kernel', fmt: 'str' }, { key: 'type', label: 'Type', fmt: 'str' },
      { key: 'pct', label: 'Time %', fmt: 'pct' }, { key: 'total_ns', label: 'Total', fmt: 'ns' },
      { key: 'count', label: 'Instances', fmt: 'int' }, { key: 'avg_ns', label: 'Avg', fmt: 'ns' },
      { key: 'med_ns', label: 'Med', fmt: 'ns' }, { key: 'min_ns', label: 'Min', fmt: 'ns' },
      { key: 'max_ns', label: 'Max', fmt: 'ns' }, { key: 'std_ns', label: 'StdDev', fmt: 'ns' },
      { key: 'tensor_core', label: 'Tensor cores', fmt: 'bool' }
    ], objs(r.kernels), { title: 'GPU kernels', what: 'kernels', sort: 'total_ns' }));
    sec.appendChild(table('cpu_ops', [
      { key: 'name', label: 'Operator', fmt: 'str' }, { key: 'pct_self', label: 'Self %', fmt: 'pct' },
      { key: 'self_ns', label: 'Self', fmt: 'ns' }, { key: 'total_ns', label: 'Total', fmt: 'ns' },
      { key: 'count', label: 'Calls', fmt: 'int' }, { key: 'avg_ns', label: 'Avg', fmt: 'ns' },
      { key: 'gpu_ns', label: 'GPU', fmt: 'ns', title: 'GPU time of the kernels it launched' },
      { key: 'gpu_self_ns', label: 'GPU self', fmt: 'ns' }
    ], objs(r.cpu_ops), { title: 'CPU operators', what: 'operators', sort: 'self_ns' }));
    sec.appendChild(table('api_calls', [
      { key: 'name', label: 'API call', fmt: 'str' }, { key: 'api', label: 'API', fmt: 'str' },
      { key: 'pct', label: 'Time %', fmt: 'pct' }, { key: 'total_ns', label: 'Total', fmt: 'ns' },
      { key: 'count', label: 'Calls', fmt: 'int' }, { key: 'avg_ns', label: 'Avg', fmt: 'ns' },
      { key: 'med_ns', label: 'Med', fmt: 'ns' }, { key: 'max_ns', label: 'Max', fmt: 'ns' }
    ], objs(r.api_calls), { title: 'CUDA API calls', what: 'calls', sort: 'total_ns' }));
    sec.appendChild(table('memory_ops', [
      { key: 'name', label: 'Operation', fmt: 'str' }, { key: 'pct', label: 'Time %', fmt: 'pct' },
      { key: 'total_ns', label: 'Total', fmt: 'ns' }, { key: 'count', label: 'Count', fmt: 'int' },
      { key: 'total_bytes', label: 'Bytes', fmt: 'bytes' }, { key: 'bandwidth_gbps', label: 'Bandwidth', fmt: 'gbps' },
      { key: 'avg_ns', label: 'Avg', fmt: 'ns' }, { key: 'max_ns', label: 'Max', fmt: 'ns' }
    ], objs(r.memory_ops), { title: 'Memory operations', what: 'operations', sort: 'total_ns' }));
    if (ranges.length) {
      sec.appendChild(table('ranges', [
        { key: 'name', label: 'Range', fmt: 'str' }, { key: 'domain', label: 'Domain', fmt: 'str' },
        { key: 'total_ns', label: 'Total', fmt: 'ns' }, { key: 'count', label: 'Instances', fmt: 'int' },
        { key: 'avg_ns', label: 'Avg', fmt: 'ns' }, { key: 'gpu_projected_ns', label: 'GPU projected', fmt: 'ns' },
        { key: 'gpu_ops', label: 'GPU ops', fmt: 'int' }, { key: 'source', label: 'Source', fmt: 'str' }
      ], ranges, { title: 'NVTX and annotation ranges', what: 'ranges', sort: 'total_ns' }));
    }
    if (ann.length) {
      sec.appendChild(table('annotations', [
        { key: 'name', label: 'Annotation', fmt: 'str' }, { key: 'total_ns', label: 'CPU total', fmt: 'ns' },
        { key: 'count', label: 'Instances', fmt: 'int' }, { key: 'gpu_ns', label: 'GPU', fmt: 'ns' },
        { key: 'gpu_ops', label: 'GPU ops', fmt: 'int' }
      ], ann, { title: 'User annotations', what: 'annotations', sort: 'total_ns' }));
    }
  }

  function histogramAnalyze(r) {
    var steps = objs(r.steps).filter(function (st) { return !st.incomplete && num(st.dur_ns); }), sec;
    /* fewer than two complete steps (or none: no ProfilerStep) have no distribution */
    if (wholeTrace(r) || steps.length < 2) return;
    sec = section('gp-histogram', 'Step time distribution', true);
    sec.appendChild(h('p', { cls: 'gp-note', text: steps.length + ' complete steps; red lines: p50 and p95.' }));
    sec.appendChild(histogram('steps', steps.map(function (st) { return st.dur_ns; }), get(r, 'step_stats.median_ns'), get(r, 'step_stats.p95_ns')));
  }

  function perfettoSection() {
    var p = page.perfetto, files = arr(p && p.files), kineto, sec;
    /* no trace (a bench or compare result, metrics alone, a run without a capture): no section */
    if (!p || (!files.length && !p.command)) return;
    sec = section('gp-perfetto', 'Open the trace in Perfetto', true);
    kineto = files.filter(function (f) { return /\.json(\.gz)?$/.test(f); });
    var box = h('div', { cls: 'gp-hint' });
    box.appendChild(h('p', { text: 'Perfetto (ui.perfetto.dev) shows every kernel, copy, API call and range on a zoomable timeline, in the browser, without uploading the file: open the page, choose "Open trace file", and pick the file.' }));
    if (kineto.length && kineto.length === files.length) {
      box.appendChild(h('p', { text: 'A PyTorch profiler trace opens as it is:' }));
      box.appendChild(h('pre', null, h('code', { 'data-gp-files': '', text: kineto.join('\n') })));
      box.appendChild(h('p', { text: 'or, as gpuprof draws it (GPU rows per stream, flow arrows from each launch):' }));
    } else {
      box.appendChild(h('p', { text: 'Export the capture as Chrome trace JSON, which Perfetto opens:' }));
    }
    if (p.command) box.appendChild(h('pre', null, h('code', { 'data-gp-command': '', text: p.command })));
    sec.appendChild(box);
  }

  function ranksTable(doc) {
    var ranks = objs(doc.ranks), rows;
    if (ranks.length < 2) return null;
    /* the processes of a run without a launcher are named by pid (label), not by rank */
    var named = ranks.some(function (r) { return typeof r.label === 'string'; });
    rows = ranks.map(function (r) {
      return { rank: named ? (typeof r.label === 'string' ? r.label : 'rank ' + r.rank) : r.rank, file: r.file, step_p50: get(r, 'step_stats.median_ns'), step_p95: get(r, 'step_stats.p95_ns'), gpu_busy: rankBusyPct(r), findings: objs(r.findings).length };
    });
    return table('ranks', [
      { key: 'rank', label: named ? 'Process' : 'Rank', fmt: named ? 'str' : 'int' }, { key: 'file', label: 'File', fmt: 'str' },
      { key: 'step_p50', label: 'Step p50', fmt: 'ns' }, { key: 'step_p95', label: 'Step p95', fmt: 'ns' },
      { key: 'gpu_busy', label: 'GPU busy', fmt: 'pct' }, { key: 'findings', label: 'Findings', fmt: 'int' }
    ], rows, { title: 'Ranks', what: 'files', filterKey: 'file', sort: 'rank', desc: false });
  }

  /* the view's selector of a page of many ranks: each rank, and the job's aggregate (-1) when the page has it */
  function rankSelect(doc, ri) {
    var ranks = objs(doc.ranks), sel = h('select', { id: 'gp-rank', 'aria-label': 'rank' });
    if (page.aggregate && typeof page.aggregate === 'object') {
      sel.appendChild(h('option', { value: '-1', selected: ri === -1, text: 'all ranks: the job' }));
    }
    ranks.forEach(function (x, i) {
      sel.appendChild(h('option', { value: String(i), selected: i === ri, text: typeof x.label === 'string' ? x.label : 'rank ' + x.rank }));
    });
    sel.addEventListener('change', function () { render(Number(sel.value)); });
    nav.appendChild(sel);
  }

  /* a rank's page of many: where the job's view is (or why there is none) */
  function jobNote(doc) {
    var agg = page.aggregate, n = objs(doc.ranks).length, a;
    if (agg && typeof agg === 'object') {
      a = h('a', { href: '#', 'data-gp-job': '', text: 'all ' + n + ' ranks together' });
      a.addEventListener('click', function (ev) { ev.preventDefault(); render(-1); window.scrollTo(0, 0); });
      return h('p', { cls: 'gp-note', 'data-gp-job-note': '' }, ['The job: ', a, ' (stragglers, the wait heatmap, the collectives and the per-rank table, as gpuprof aggregate makes them; the selector above switches).']);
    }
    if (typeof page.aggregate_note === 'string') {
      return h('p', { cls: 'gp-note', 'data-gp-job-note': '', text: 'No view of the job\u2019s ' + n + ' ranks together: ' + page.aggregate_note });
    }
    return null;
  }

  /* the views of the critical path, roofline and modules: assets/perf.js, before this file */
  function perf() {
    if (typeof gpPerf !== 'function') return { analyze: function () {}, compareGroup: function () {} };
    return gpPerf({ h: h, s: s, num: num, objs: objs, arr: arr, get: get, clear: clear, section: section, card: card, table: table, ticks: ticks, shownName: shownName,
      fmtNs: fmtNs, fmtPct: fmtPct, fmtRate: fmtRate, fmtAxisNs: fmtAxisNs, fmtInt: fmtInt, fmtNum: fmtNum });
  }

  /* a memory snapshot (gpuprof.memsnap/1): assets/memsnap.js, before this file */
  function renderMemsnap(doc) {
    if (typeof gpMemsnap !== 'function') throw new Error('the memory snapshot view is missing');
    gpMemsnap({ h: h, s: s, num: num, objs: objs, arr: arr, get: get, section: section, card: card, table: table,
      lineChart: lineChart, fmtBytes: fmtBytes, fmtInt: fmtInt, fmtPct: fmtPct }).render(doc);
  }

  /* a history page (gpuprof history report): assets/history.js, before this file */
  function renderHistory(doc) {
    if (typeof gpHistory !== 'function') throw new Error('the history view is missing');
    gpHistory({ h: h, s: s, num: num, objs: objs, arr: arr, get: get, section: section, table: table, ticks: ticks,
      fmtNs: fmtNs, fmtBytes: fmtBytes, fmtInt: fmtInt, fmtPct: fmtPct, fmtRate: fmtRate, fmtPval: fmtPval }).render(doc);
  }

  /* the memory view: assets/memory.js, before this file */
  function memory() {
    if (typeof gpMemory !== 'function') return { analyze: function () {} };
    return gpMemory({ h: h, s: s, num: num, objs: objs, arr: arr, get: get, section: section, card: card, table: table,
      lineChart: lineChart, fmtBytes: fmtBytes, fmtInt: fmtInt });
  }

  function renderAnalyze(doc, ri) {
    var ranks = objs(doc.ranks), r = ranks[ri] || {}, rt;
    if (!ranks.length) {
      summaryMetrics(doc);
      metricsSection(null, doc);
      return;
    }
    if (ranks.length > 1) rankSelect(doc, ri);
    summaryAnalyze(r, doc);
    if (ranks.length > 1) append(main.querySelector('#gp-summary'), jobNote(doc));
    rt = ranksTable(doc);
    if (rt) main.querySelector('#gp-summary').appendChild(rt);
    /* the tracer's warnings (no CUPTI, a call that failed) first: they say why data is missing */
    findingsSection(objs(get(r, 'overview.capture.warning_messages')).map(function (w) {
      return { id: 'capture-warning', severity: 'warning', title: 'Capture: ' + w.text + (num(w.count) && w.count > 1 ? ' (' + w.count + '\u00d7)' : '') };
    }).concat(objs(r.findings)));
    stepsSection(r);
    timelineSection(r);
    perf().analyze(r);
    memory().analyze(r);
    metricsSection(r, doc);
    tablesSection(r);
    histogramAnalyze(r);
    perfettoSection();
  }

  /* ---- bench ---- */

  function renderBench(doc) {
    var series = objs(doc.series), first = series[0] || {}, st = first.stats || {}, sec, warns = [], i;
    sec = section('gp-summary', 'Summary', series.length > 0, 'No series.');
    sec.appendChild(h('div', { cls: 'gp-cards' }, [
      card('median', 'Median' + (series.length > 1 ? ' (' + first.name + ')' : ''), st.median_ns, fmtNs(st.median_ns), num(first.n) ? plural(first.n, 'iteration') + (first.warmup > 0 ? ', after ' + fmtInt(first.warmup) + ' warm-up' : '') : null),
      card('p95', 'p95', st.p95_ns, fmtNs(st.p95_ns), 'p99 ' + fmtNs(st.p99_ns)),
      card('throughput', 'Throughput', get(first, 'throughput.items_per_s'), fmtRate(get(first, 'throughput.items_per_s')) + ' ' + (first.rate_name || '/s'), 'batch size ' + (first.batch_size || 1)),
      card('mean', 'Mean \u00b1 \u03c3', st.mean_ns, fmtNs(st.mean_ns), '\u03c3 ' + fmtNs(st.std_ns) + ', CV ' + (num(st.cv) ? (100 * st.cv).toFixed(1) + '%' : '-')),
      /* what was not measured (no GPU time, no memory per iteration) has no card */
      !num(first.gpu_share) ? null : card('gpu_share', 'GPU share', first.gpu_share, num(first.gpu_share) ? (100 * first.gpu_share).toFixed(1) + '%' : '-', num(first.gpu_share) ? (first.gpu_share >= 0.9 ? 'GPU-bound' : first.gpu_share < 0.5 ? 'host-bound: the GPU waits' : 'mixed') : 'no GPU time per iteration'),
      !num(get(first, 'memory_stats.max_bytes')) ? null : card('peak_memory', 'Peak memory', get(first, 'memory_stats.max_bytes'), fmtBytes(get(first, 'memory_stats.max_bytes')), 'largest per-iteration peak' + (num(get(first, 'memory_at_end_stats.mean_bytes')) ? '; ' + fmtBytes(get(first, 'memory_at_end_stats.mean_bytes')) + ' at the end (mean)' : ''))
    ]));
    /* a parameter scan's values, the series against the fastest and the targets: columns when the result has them */
    var params = arr(doc.parameters).filter(function (p) { return typeof p === 'string'; });
    var rel = !!(doc.fastest && typeof doc.fastest === 'object'), tgt = arr(doc.targets).length > 0;
    var cols = [{ key: 'name', label: 'Series', fmt: 'str' }].concat(params.map(function (p) {
      return { key: 'param:' + p, label: p, fmt: 'str' };
    }), [
      { key: 'n', label: 'n', fmt: 'int' },
      { key: 'mean_ns', label: 'Mean', fmt: 'ns' }, { key: 'median_ns', label: 'Median', fmt: 'ns' },
      { key: 'p95_ns', label: 'p95', fmt: 'ns' }, { key: 'p99_ns', label: 'p99', fmt: 'ns' },
      { key: 'std_ns', label: 'StdDev', fmt: 'ns' }, { key: 'mad_ns', label: 'MAD', fmt: 'ns' },
      { key: 'items_per_s', label: 'Rate', fmt: 'num' }, { key: 'rate_name', label: 'Unit', fmt: 'str' },
      { key: 'outliers', label: 'Outliers', fmt: 'int' }
    ]);
    /* the level of the intervals against the fastest: 99 % (1 - alpha); files before it have no "confidence" and 95 % */
    var relLevel = series.reduce(function (l, x) { return x.relative && num(x.relative.confidence) ? fmtNum(100 * x.relative.confidence, 2) : l; }, '95');
    if (rel) cols.push({ key: 'ratio', label: '\u00d7 fastest', fmt: 'num', title: 'median / the fastest series\u2019 median' }, { key: 'ratio_ci', label: relLevel + '% CI', fmt: 'str', title: 'the interval of the ratio at ' + relLevel + ' %' + (relLevel === '99' ? ', the level of \u03b1 0.01 that decides significance' : '') });
    if (tgt) cols.push({ key: 'targets', label: 'Targets', fmt: 'str' });
    sec.appendChild(table('series', cols, series.map(function (x) {
      var t = x.stats || {}, r = x.relative || {}, ts = objs(x.targets), met = ts.filter(function (y) { return y.status === 'met'; }).length, row;
      row = { name: x.name, n: x.n, mean_ns: t.mean_ns, median_ns: t.median_ns, p95_ns: t.p95_ns, p99_ns: t.p99_ns, std_ns: t.std_ns, mad_ns: t.mad_ns, items_per_s: get(x, 'throughput.items_per_s'), rate_name: x.rate_name, outliers: x.outliers };
      params.forEach(function (p) { row['param:' + p] = x.parameters && typeof x.parameters[p] === 'string' ? x.parameters[p] : null; });
      if (rel) {
        row.ratio = num(r.ratio) ? r.ratio : null;
        /* the interval at the deciding level, and the test's word when it is not "significant" */
        row.ratio_ci = r.fastest === true ? 'fastest'
          : typeof r.significant !== 'boolean' ? 'too few runs: no test'
          : (num(r.ratio_lo) ? '[' + fmtNum(r.ratio_lo) + ' \u2013 ' + fmtNum(r.ratio_hi) + ']' : '') + (r.significant ? '' : (num(r.ratio_lo) ? ' ' : '') + 'not significant (p ' + fmtNum(r.p, 3) + ')');
      }
      if (tgt) row.targets = (met === ts.length ? '\u2713 ' : '\u2717 ') + met + '/' + ts.length + ' met';
      return row;
    }), { title: 'Series', what: 'series', sort: null }));
    if (tgt) {
      var trows = [];
      series.forEach(function (x) {
        objs(x.targets).forEach(function (y) {
          var ns = y.unit === 'ns';
          trows.push({ name: x.name, metric: y.metric, value: ns ? fmtNs(y.value) : fmtRate(y.value), target: (y.op || '') + ' ' + (ns ? fmtNs(y.threshold) : fmtNum(y.threshold)), status: (y.status === 'met' ? '\u2713 ' : y.status === 'missed' ? '\u2717 ' : '? ') + y.status });
        });
      });
      sec.appendChild(table('targets', [
        { key: 'name', label: 'Series', fmt: 'str' }, { key: 'metric', label: 'Metric', fmt: 'str' },
        { key: 'value', label: 'Value', fmt: 'str' }, { key: 'target', label: 'Target', fmt: 'str' },
        { key: 'status', label: 'Status', fmt: 'str' }
      ], trows, { title: 'Targets' + (doc.targets_met === false ? ': missed (gpuprof bench exits 3)' : ': all met'), what: 'series', sort: null }));
    }
    objs(doc.sweeps).forEach(function (sw, k) {
      var rate = get(series[get(objs(sw.points)[0] || {}, 'series') || 0] || {}, 'throughput.rate_name') || 'items/s', kn = sw.knee;
      sec.appendChild(table('sweep' + k, [
        { key: 'value', label: sw.parameter, fmt: 'str' }, { key: 'batch_size', label: 'Batch', fmt: 'num' },
        { key: 'median_ns', label: 'Median', fmt: 'ns' }, { key: 'p99_ns', label: 'p99', fmt: 'ns' },
        { key: 'items_per_s', label: 'Throughput (' + rate + ')', fmt: 'num' }
      ], objs(sw.points), {
        title: 'Sweep over ' + sw.parameter + (sw.template ? ' (' + sw.template + ')' : ''), what: 'values', sort: null, filterKey: 'value',
        note: kn && typeof kn === 'object' ? 'Knee: ' + sw.parameter + ' = ' + kn.value + ', ' + fmtPct(100 * kn.share_of_best) + ' of the best throughput (' + fmtRate(kn.best_items_per_s) + ' ' + rate + ' at ' + kn.best_value + ') at a median latency of ' + fmtNs(kn.median_ns) + '.' : sw.batch_sweep && sw.knee_note ? 'Knee: ' + sw.knee_note + '.' : null
      }));
    });
    for (i = 0; i < series.length; i++) {
      objs(series[i].warnings).forEach(function (w) {
        warns.push({ id: w.id, severity: 'warning', title: (series.length > 1 ? series[i].name + ': ' : '') + w.text });
      });
    }
    findingsSection(warns, 'Warnings');
    sec = section('gp-histogram', 'Latency distribution', series.length > 0, 'No iterations.');
    series.forEach(function (x) {
      var times = arr(x.times_ns), pts = decimate(times.map(function (t, k) { return [k, t]; }).filter(function (p) { return num(p[1]); }), 1000), lc;
      sec.appendChild(h('h3', { cls: 'gp-sub', text: x.name }));
      var hg = histogram(x.name, times, get(x, 'stats.p50_ns'), get(x, 'stats.p95_ns'));
      if (hg) sec.appendChild(hg);
      if (times.length > 1) {
        sec.appendChild(h('p', { cls: 'gp-note', text: 'Iterations in order (warm-up excluded):' }));
        lc = lineChart(x.name + ' (in order)', pts, 0, times.length - 1, fmtAxisNs, { xfmt: function (k) { return '#' + fmtInt(k + 1); } });
        if (lc) {
          lc.setAttribute('data-gp-chart', 'sequence');
          sec.appendChild(lc);
        }
      }
    });
    perfettoSection();
  }

  /* ---- compare ---- */

  /* @p ref: the base value, whose unit a new value takes (as compare's text prints it) */
  function fmtUnit(unit, v, ref) {
    if (unit === 'ns') return fmtNsLike(v, ref);
    if (unit === 'bytes') return fmtBytesLike(v, ref);
    if (unit === '%') return fmtPct(v);
    /* anything else is a rate ("runs/s"): four significant digits, as compare's text prints it */
    return num(v) ? fmtRate(v) + (unit ? ' ' + unit : '') : '-';
  }

  /* the ratio and its interval on a log axis around 1 */
  function ciBar(m) {
    var W = 120, H = 14, lo = m.ratio_lo, hi = m.ratio_hi, r = m.ratio, svg, x;
    if (!num(r)) return null;
    x = function (v) { return W / 2 + Math.max(-1, Math.min(1, Math.log(v) / Math.log(2))) * (W / 2 - 4); };
    svg = s('svg', { cls: 'gp-ci', width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, 'data-gp-chart': 'ci' });
    svg.appendChild(s('line', { x1: W / 2, x2: W / 2, y1: 0, y2: H, stroke: '#94a3b8' }));
    if (num(lo) && num(hi) && lo > 0 && hi > 0) svg.appendChild(s('line', { x1: x(lo), x2: x(hi), y1: H / 2, y2: H / 2, stroke: '#334155', 'stroke-width': 2 }));
    if (r > 0) svg.appendChild(s('circle', { cx: x(r), cy: H / 2, r: 3.5, fill: m.direction === 'worse' ? '#b91c1c' : m.direction === 'better' ? '#15803d' : '#475569' }));
    svg.appendChild(s('title', { text: 'ratio ' + fmtNum(r, 4) + (num(lo) ? ' [' + fmtNum(lo, 4) + ', ' + fmtNum(hi, 4) + ']' : '') + ' (log scale, 0.5\u00d7 to 2\u00d7)' }));
    return svg;
  }

  /* the rank groups of two aggregates: a row per rank, the change of each metric (delta_pct, or points for a %) */
  var CMP_RANK = [['step_mean', 'Step mean \u0394'], ['step_p50', 'p50 \u0394'], ['step_p95', 'p95 \u0394'], ['wait', 'Wait \u0394'],
    ['exposed_comm', 'Exposed comm \u0394'], ['compute', 'Compute \u0394'], ['gpu_idle_pct', 'GPU idle \u0394 (pp)'], ['peak_memory', 'Peak memory \u0394']];
  function compareRanks(sec, gs) {
    var cols = [{ key: 'rank', label: 'Rank', fmt: 'id' }, { key: 'base', label: 'Step mean (base)', fmt: 'ns' }, { key: 'new', label: 'Step mean (new)', fmt: 'ns' }];
    CMP_RANK.forEach(function (m) { cols.push({ key: m[0], label: m[1], fmt: m[0] === 'gpu_idle_pct' ? 'spp' : 'spct', sign: true }); });
    cols.push({ key: 'changed', label: 'Past the threshold', fmt: 'str' });
    sec.appendChild(table('compare-ranks', cols, gs.map(function (g) {
      var row = { rank: g.base_rank, changed: [], find: 'rank ' + g.base_rank }, ms = objs(g.metrics);
      CMP_RANK.forEach(function (m) {
        var x = ms.filter(function (y) { return y.metric === m[0]; })[0];
        row[m[0]] = !x ? null : m[0] === 'gpu_idle_pct' ? (num(x.delta) ? x.delta : null) : (num(x.delta_pct) ? x.delta_pct : null);
        if (x && x.verdict && x.verdict !== 'same') row.changed.push(x.title || x.metric);
        if (x && m[0] === 'step_mean') {
          row.base = x.base;
          row.new = x.new;
        }
      });
      row.changed = row.changed.join(', ') || null;
      return row;
    }), { title: 'Ranks: ' + plural(gs.length, 'rank') + ' on both sides', what: 'ranks', filterKey: 'find', sort: 'step_mean', note: 'One value a rank and side: no test (the job\u2019s lines above test across the ranks). Sorted by the change of the mean step.' }));
  }

  function renderCompare(doc) {
    var groups = objs(doc.groups), sec, finds = [], nm = 0, nslow = 0, nfast = 0;
    groups.forEach(function (g) {
      objs(g.metrics).forEach(function (m) {
        nm++;
        if (m.direction === 'worse' && m.verdict !== 'same' && m.verdict !== 'inconclusive') nslow++;
        if (m.direction === 'better' && m.verdict !== 'same' && m.verdict !== 'inconclusive') nfast++;
      });
    });
    sec = section('gp-summary', 'Summary', true);
    sec.appendChild(h('div', { cls: 'gp-cards' }, [
      card('verdict', 'Verdict', doc.verdict || null, doc.verdict || '-', doc.regression ? 'a regression: gpuprof compare exits 3' : 'no regression'),
      card('regressions', 'Regressions', objs(doc.regressions).length, String(objs(doc.regressions).length), objs(doc.regressions).map(function (x) { return (x.group ? x.group + ': ' : '') + x.title; }).join(', ') || 'none'),
      card('worse', 'Changed for the worse', nslow, String(nslow), 'of ' + nm + ' metrics'),
      card('better', 'Changed for the better', nfast, String(nfast), 'of ' + nm + ' metrics')
    ]));
    if (doc.summary) sec.appendChild(h('p', { cls: 'gp-note', 'data-gp-summary': '', text: doc.summary }));
    sec.appendChild(h('p', { cls: 'gp-note', text: 'Base: ' + (get(doc, 'base.path') || '-') + ' (' + (get(doc, 'base.input') || '?') + ') \u00b7 New: ' + (get(doc, 'new.path') || '-') + ' (' + (get(doc, 'new.input') || '?') + ') \u00b7 \u03b1 = ' + fmtNum(get(doc, 'options.alpha'), 4) + ', threshold ' + fmtNum(get(doc, 'options.threshold_pct'), 2) + '%' }));
    groups.forEach(function (g) {
      objs(g.explanations).forEach(function (e) {
        /* the sentence carries the numbers of its evidence; the keys stay in the JSON */
        finds.push({ id: e.id, severity: 'info', title: (groups.length > 1 ? g.name + ': ' : '') + e.text });
      });
    });
    objs(doc.warnings).forEach(function (w) { finds.push({ id: w.id, severity: 'warning', title: w.text }); });
    objs(doc.tag_changes).forEach(function (t) {
      finds.push({ id: 'tag_change', severity: 'info', title: 'tag ' + t.key + ': ' + (t.base === null ? '-' : t.base) + ' \u2192 ' + (t.new === null ? '-' : t.new) });
    });
    findingsSection(finds, 'Why: explanations and warnings');
    sec = section('gp-compare', 'Comparison', groups.length > 0, 'Nothing was paired.');
    /* two aggregates: their ranks as one table (a thousand ranks are a thousand groups) */
    var rankGroups = doc.kind === 'aggregate' ? groups.filter(function (g) { return num(g.base_rank); }) : [];
    groups.forEach(function (g, gi) {
      if (rankGroups.indexOf(g) >= 0) return;
      var rows = objs(g.metrics).map(function (m) {
        return {
          metric: m.metric, title: m.title, base: fmtUnit(m.unit, m.base), new_: fmtUnit(m.unit, m.new, m.base), base_v: m.base, new_v: m.new,
          delta_pct: m.delta_pct, ratio: m.ratio, ci: num(m.ratio_lo) && num(m.ratio_hi) ? '[' + m.ratio_lo.toFixed(3) + ', ' + m.ratio_hi.toFixed(3) + ']' : '-',
          p: m.p, verdict: m.verdict, n: num(m.n_base) ? m.n_base + ' / ' + m.n_new : '-', reason: m.reason, m: m
        };
      });
      var tb = h('table', { cls: 'gp-table', 'data-gp-table': 'compare-metrics', 'data-group': gi });
      var head = h('tr');
      ['Metric', 'Base', 'New', '\u0394', 'Ratio', '95% interval', '', 'p', 'n', 'Verdict'].forEach(function (l, k) {
        head.appendChild(h('th', { cls: k === 0 ? 'gp-str' : null, text: l }));
      });
      tb.appendChild(h('thead', null, head));
      var body = h('tbody');
      rows.forEach(function (x) {
        body.appendChild(h('tr', { 'data-metric': x.metric }, [
          h('td', { cls: 'gp-str', text: x.title || x.metric }),
          h('td', { 'data-col': 'base', 'data-value': x.base_v === null ? 'null' : String(x.base_v), text: x.base }),
          h('td', { 'data-col': 'new', 'data-value': x.new_v === null ? 'null' : String(x.new_v), text: x.new_ }),
          /* a metric that is a percentage changes by points: 16.4% -> 3.7% is -12.7 pp, not -77.6% */
          x.m.unit === '%'
            ? h('td', { 'data-col': 'delta_pp', 'data-value': num(x.m.delta) ? String(x.m.delta) : 'null', cls: x.m.direction === 'worse' ? 'gp-pos' : x.m.direction === 'better' ? 'gp-neg' : null, text: num(x.m.delta) ? (x.m.delta > 0 ? '+' : '') + x.m.delta.toFixed(1) + ' pp' : '-' })
            : h('td', { 'data-col': 'delta_pct', 'data-value': num(x.delta_pct) ? String(x.delta_pct) : 'null', cls: x.m.direction === 'worse' ? 'gp-pos' : x.m.direction === 'better' ? 'gp-neg' : null, text: fmtPct(x.delta_pct, true) }),
          h('td', { 'data-col': 'ratio', 'data-value': num(x.ratio) ? String(x.ratio) : 'null', text: num(x.ratio) ? x.ratio.toFixed(3) : '-' }),
          h('td', { 'data-col': 'ci', text: x.ci }),
          h('td', null, ciBar(x.m)),
          h('td', { 'data-col': 'p', 'data-value': num(x.p) ? String(x.p) : 'null', text: num(x.p) ? (x.p < 1e-4 ? '<0.0001' : x.p.toFixed(4)) : '-' }),
          h('td', { 'data-col': 'n', text: x.n }),
          h('td', { 'data-col': 'verdict', 'data-value': x.verdict || 'null', cls: 'gp-str', title: x.reason || null }, h('span', { cls: 'gp-badge ' + (x.m.regression ? 'regression' : x.verdict || ''), text: (x.verdict || '-') + (x.m.regression ? ' (regression)' : '') }))
        ]));
      });
      tb.appendChild(body);
      sec.appendChild(h('h3', { cls: 'gp-sub', text: g.name || 'group ' + gi }));
      sec.appendChild(h('div', { cls: 'gp-scroll' }, tb));
      ['kernels', 'operators'].forEach(function (t) {
        var d = g[t];
        if (!d || !objs(d.rows).length) return;
        var cols = [
          { key: 'name', label: t === 'kernels' ? 'Kernel' : 'Operator', fmt: 'str' }, { key: 'status', label: 'Status', fmt: 'str', badge: true },
          { key: 'base_total_ns', label: 'Base total', fmt: 'ns' }, { key: 'new_total_ns', label: 'New total', fmt: 'ns' },
          { key: 'delta_total_ns', label: '\u0394 total', fmt: 'ns', sign: true }, { key: 'base_avg_ns', label: 'Base avg', fmt: 'ns' },
          { key: 'new_avg_ns', label: 'New avg', fmt: 'ns' }, { key: 'delta_avg_pct', label: '\u0394 avg', fmt: 'spct', sign: true },
          { key: 'base_count', label: 'Base n', fmt: 'int' }, { key: 'new_count', label: 'New n', fmt: 'int' },
          { key: 'p', label: 'p', fmt: 'num', title: "Welch's t over the calls: is the per-call change significant" }
        ];
        sec.appendChild(table('diff-' + t + (gi ? '-' + gi : ''), cols, objs(d.rows), {
          title: (t === 'kernels' ? 'Kernels' : 'Operators') + ': ' + fmtInt(get(d, 'added.names')) + ' added (' + fmtNs(get(d, 'added.total_ns')) + '), ' + fmtInt(get(d, 'removed.names')) + ' removed (' + fmtNs(get(d, 'removed.total_ns')) + '), ' + fmtInt(d.slower) + ' slower, ' + fmtInt(d.faster) + ' faster per call (\u00b1' + fmtNum(d.threshold_pct, 2) + '%; ' + fmtInt(d.slower_significant) + ' and ' + fmtInt(d.faster_significant) + ' significant over their calls); total ' + fmtNs(d.base_total_ns) + ' \u2192 ' + fmtNs(d.new_total_ns),
          what: t, sort: null
        }));
      });
    });
    groups.forEach(function (g, gi) { if (rankGroups.indexOf(g) < 0) perf().compareGroup(sec, g, gi); });
    if (rankGroups.length) compareRanks(sec, rankGroups);
    perfettoSection();
  }

  /* ---- aggregate: many ranks, one job ---- */

  /* the per-rank table's metrics (the aggregate's "ranks"), in column order */
  var AGG_COLS = [
    { key: 'rank', label: 'Rank', fmt: 'id' }, { key: 'host', label: 'Host', fmt: 'str' },
    { key: 'steps', label: 'Steps', fmt: 'int' },
    { key: 'step_mean_ns', label: 'Step mean', fmt: 'ns' }, { key: 'step_p50_ns', label: 'Step p50', fmt: 'ns' },
    { key: 'step_p95_ns', label: 'Step p95', fmt: 'ns' }, { key: 'gpu_busy_ns', label: 'GPU busy', fmt: 'ns' },
    { key: 'gpu_idle_ns', label: 'GPU idle', fmt: 'ns' }, { key: 'gpu_idle_pct', label: 'Idle %', fmt: 'pct' },
    { key: 'compute_ns', label: 'Compute', fmt: 'ns' },
    { key: 'communication_ns', label: 'Comm', fmt: 'ns', title: 'communication kernels\u2019 time' },
    { key: 'exposed_comm_ns', label: 'Exposed comm', fmt: 'ns', title: 'communication not overlapped by compute' },
    { key: 'wait_ns', label: 'Wait', fmt: 'ns', title: 'time this rank waited in collectives for the last rank to arrive' },
    { key: 'collectives', label: 'Collectives', fmt: 'int' },
    { key: 'peak_memory_bytes', label: 'Peak memory', fmt: 'bytes' },
    { key: 'gpu_model', label: 'GPU', fmt: 'str' }, { key: 'gpu_clock_mhz', label: 'SM clock', fmt: 'mhz' },
    { key: 'clock_offset_ns', label: 'Clock offset', fmt: 'ns', title: 'added to this rank\u2019s times to reach the reference clock' },
    { key: 'clock_uncertainty_ns', label: '\u00b1', fmt: 'ns', title: 'the uncertainty of the clock offset' }
  ];

  /* wait in a bin as a colour: white (none) through yellow and orange to dark red (the most) */
  var HEAT = [[255, 255, 204], [254, 217, 118], [253, 141, 60], [227, 26, 28], [128, 0, 38]];
  function heatColor(f) {
    var x, i, a, b;
    if (!(f > 0)) return 'rgb(248,250,252)';
    x = Math.min(1, f) * (HEAT.length - 1);
    i = Math.min(HEAT.length - 2, Math.floor(x));
    a = HEAT[i];
    b = HEAT[i + 1];
    x -= i;
    return 'rgb(' + [0, 1, 2].map(function (k) { return Math.round(a[k] + (b[k] - a[k]) * x); }).join(',') + ')';
  }

  /* a straggler's cause as words ("data_loading" reads "data loading"); '' when there is none */
  function causeWords(c) {
    return typeof c === 'string' ? c.replace(/_/g, ' ') : '';
  }

  function summaryAggregate(doc, ranks) {
    var tbl = doc.table || {}, st = objs(doc.stragglers), top = st[0], sm = get(tbl, 'step_mean_ns') || {}, clock = doc.clock || {};
    var wait = ranks.reduce(function (a, r) { return a + (num(r.wait_ns) ? r.wait_ns : 0); }, 0), hosts = {}, d = doc.desync, sec;
    ranks.forEach(function (r) { if (typeof r.host === 'string') hosts[r.host] = true; });
    sec = section('gp-summary', 'Summary', true);
    /* a desynchronisation first: the job's ranks did not run the same collectives */
    if (d && typeof d === 'object') {
      sec.appendChild(h('div', { cls: 'gp-desync', role: 'alert', 'data-gp-desync': d.kind || '' }, [
        h('div', { cls: 'gp-title', text: 'Desynchronised: rank ' + FMT.str(d.rank) + (d.kind === 'missing' ? ' lacks ' : ' differs at ') + FMT.str(d.collective) + ' seq ' + FMT.str(d.seq) + ' of process group ' + FMT.str(d.pg) }),
        d.detail ? h('p', { text: d.detail }) : null,
        evidence({ expected: d.expected, found: d.found })
      ]));
    }
    sec.appendChild(h('div', { cls: 'gp-cards' }, [
      card('ranks', 'Ranks', ranks.length, fmtInt(ranks.length), (num(doc.world_size) && doc.world_size !== ranks.length ? 'of world size ' + doc.world_size + ', ' : '') + plural(Object.keys(hosts).length, 'host') + (doc.backend ? ', ' + doc.backend : '')),
      card('slowest', 'Slowest rank\u2019s step', sm.max, fmtNs(sm.max), num(sm.max_rank) ? 'rank ' + sm.max_rank + '; median rank ' + fmtNs(sm.median) : null),
      card('straggler', 'Top straggler', top ? top.rank : null, top ? 'rank ' + top.rank : 'none', top ? 'blame ' + fmtNs(top.blame_ns) + ', last at ' + fmtPct(top.last_arrival_pct) + ' of its collectives' + (causeWords(top.cause) ? '; ' + causeWords(top.cause) : '') : 'no rank arrived last'),
      card('wait', 'Wait in collectives', wait, fmtNs(wait), 'summed over the ranks'),
      card('desync', 'Desynchronisation', d ? 'yes' : 'none', d ? 'yes' : 'none', d ? 'rank ' + FMT.str(d.rank) + ', seq ' + FMT.str(d.seq) : 'every rank ran the same collectives'),
      card('findings', 'Findings', objs(doc.findings).length, String(objs(doc.findings).length), objs(doc.findings).length ? 'ranked below' : 'nothing to flag')
    ]));
    sec.appendChild(h('p', { cls: 'gp-note', 'data-gp-clock': '', text: (clock.method === 'none'
      ? 'Clocks: not aligned (no collective the ranks share bounds their offsets' + (num(clock.p2p_excluded) && clock.p2p_excluded > 0 ? '; ' + plural(clock.p2p_excluded, 'point-to-point operation') + ' left out' : '') + '): waits across hosts assume the clocks agree.'
      : 'Clocks: aligned on rank ' + FMT.str(clock.reference_rank) + '\u2019s host' + (clock.method ? ' by ' + clock.method : '') + (num(clock.collectives_used) ? ' over ' + plural(clock.collectives_used, 'collective') : '') + (num(clock.p2p_excluded) && clock.p2p_excluded > 0 ? ' (' + plural(clock.p2p_excluded, 'point-to-point operation') + ' left out)' : '') + (num(clock.max_uncertainty_ns) ? '; largest uncertainty \u00b1' + fmtNs(clock.max_uncertainty_ns) : '') + '.') + (num(doc.unmatched) && doc.unmatched > 0 ? ' ' + plural(doc.unmatched, 'collective') + ' outside the window all ranks cover were not matched.' : '') }));
  }

  function ranksAggregate(doc, ranks) {
    var tbl = doc.table || {}, sec, foot, cols = AGG_COLS;
    sec = section('gp-ranks', 'Ranks', ranks.length > 0, 'No ranks.');
    if (!ranks.length) return;
    /* newer documents bound each rank's offset: [lo, hi] from the collectives */
    if (ranks.some(function (r) { return Array.isArray(r.clock_bound_ns); })) {
      cols = cols.concat([{ key: 'clock_bound_ns', label: 'Offset bound', fmt: 'bound', title: 'the interval the collectives bound this rank\u2019s clock offset to' }]);
    }
    foot = ['min', 'max', 'mean', 'median'].map(function (k) {
      var values = {}, titles = {};
      cols.forEach(function (c) {
        var t = get(tbl, c.key);
        if (c.key === 'rank' || !t || typeof t !== 'object') return;
        values[c.key] = num(t[k]) ? t[k] : null;
        if ((k === 'min' || k === 'max') && num(t[k + '_rank'])) titles[c.key] = 'rank ' + t[k + '_rank'];
      });
      return { label: k, values: values, titles: titles };
    });
    sec.appendChild(table('agg-ranks', cols, ranks.map(function (r) {
      var o = {};
      cols.forEach(function (c) { o[c.key] = r[c.key] === undefined ? null : r[c.key]; });
      o.outliers = arr(r.outliers).filter(function (x) { return typeof x === 'string'; });
      o.find = ['rank ' + r.rank, r.host, r.file, r.gpu_model].filter(function (x) { return typeof x === 'string'; }).join(' ');
      return o;
    }), {
      title: 'Per rank', what: 'ranks', filterKey: 'find', sort: 'rank', desc: false, foot: foot,
      note: 'Highlighted: a robust outlier among the ranks (more than 3 scaled MADs from the median). Under the ranks: min, max (hover: which rank), mean and median over the ranks.',
      flag: function (row, key) { return row.outliers.indexOf(key) >= 0; }
    }));
  }

  function heatmapAggregate(doc) {
    var hm = doc.heatmap, rows = [], bins = 0, max = 0, i, j, n, sec, order, sel;
    var W = 960, L = 64, R = 8, T = 2, rowH, canvas, box, axis, leg, tk, pw;
    if (hm && typeof hm === 'object' && num(hm.bin_ns) && hm.bin_ns > 0) {
      n = Math.min(arr(hm.ranks).length, arr(hm.wait_ns).length);
      for (i = 0; i < n; i++) {
        var w = arr(hm.wait_ns[i]).slice(0, 10000).map(function (v) { return num(v) && v > 0 ? v : 0; });
        rows.push({ rank: hm.ranks[i], wait: w, total: w.reduce(function (a, b) { return a + b; }, 0) });
        bins = Math.max(bins, w.length);
        for (j = 0; j < w.length; j++) max = Math.max(max, w[j]);
      }
    }
    sec = section('gp-heatmap', 'Wait heatmap', rows.length > 0 && bins > 0, 'No wait heatmap in this aggregate.');
    if (!rows.length || !bins) return;
    n = rows.length;
    rowH = n <= 16 ? 16 : n <= 64 ? 8 : n <= 128 ? 4 : n <= 256 ? 3 : n <= 512 ? 2 : 1;
    pw = W - L - R;
    sec.appendChild(h('p', { cls: 'gp-note', text: plural(n, 'rank') + ' \u00d7 ' + plural(bins, 'bin') + ' of ' + fmtNs(hm.bin_ns) + ' from the start of the aligned timeline (the reference clock): the darker a cell, the longer that rank waited in collectives for the last rank within the bin; blank: no wait. The rank that never waits while the others do is the one they wait for.' + (rowH < 4 ? ' One row per rank, ' + rowH + ' px each: scroll the box; hover for the rank.' : '') }));
    sel = h('select', { 'aria-label': 'row order', 'data-gp-order': '' }, [h('option', { value: 'rank', text: 'rows by rank' }), h('option', { value: 'wait', text: 'rows by total wait, most first' })]);
    sec.appendChild(h('div', { cls: 'gp-toolbar' }, sel));
    canvas = h('canvas', { cls: 'gp-heatmap', width: W, height: T + n * rowH, 'data-gp-heatmap': '', 'data-rows': n, 'data-bins': bins, 'data-max': max, 'data-row-height': rowH, 'data-left': L, 'data-top': T, role: 'img', 'aria-label': 'wait per rank over time' });
    box = h('div', { cls: 'gp-heatbox' }, canvas);
    sec.appendChild(box);
    function draw() {
      var ctx = canvas.getContext('2d'), cw = pw / bins, every = Math.max(1, Math.ceil(12 / rowH)), k, r, ly, last = -1e9;
      order = rows.map(function (x, idx) { return idx; });
      if (sel.value === 'wait') order.sort(function (a, b) { return rows[b].total - rows[a].total || a - b; });
      canvas.setAttribute('data-order', sel.value);
      ctx.fillStyle = '#ffffff';
      ctx.fillRect(0, 0, W, T + n * rowH);
      ctx.font = '10px sans-serif';
      ctx.textAlign = 'right';
      ctx.textBaseline = 'middle';
      for (k = 0; k < n; k++) {
        r = rows[order[k]];
        ctx.fillStyle = heatColor(0);
        ctx.fillRect(L, T + k * rowH, pw, rowH);
        for (j = 0; j < r.wait.length; j++) {
          if (!(r.wait[j] > 0)) continue;
          ctx.fillStyle = heatColor(max > 0 ? r.wait[j] / max : 0);
          ctx.fillRect(L + j * cw, T + k * rowH, Math.max(1, cw + 0.3), rowH);
        }
        /* a label every 12 px; the first one, moved down into view, keeps the next one from touching it */
        ly = Math.max(6, T + k * rowH + rowH / 2);
        if (k % every === 0 && ly - last >= 11) {
          ctx.fillStyle = '#5b6476';
          ctx.fillText('rank ' + r.rank, L - 4, ly);
          last = ly;
        }
      }
    }
    canvas.addEventListener('mousemove', function (ev) {
      var b = canvas.getBoundingClientRect(), x = (ev.clientX - b.left) * W / b.width, y = (ev.clientY - b.top) * canvas.height / b.height;
      var k = Math.floor((y - T) / rowH), bi = Math.floor((x - L) / (pw / bins)), r;
      if (k < 0 || k >= n || bi < 0 || bi >= bins) { canvas.removeAttribute('title'); return; }
      r = rows[order[k]];
      canvas.setAttribute('title', 'rank ' + r.rank + ', ' + fmtNs(bi * hm.bin_ns) + ' \u2013 ' + fmtNs((bi + 1) * hm.bin_ns) + ': wait ' + fmtNs(r.wait[bi] || 0) + ' (all bins: ' + fmtNs(r.total) + ')');
    });
    sel.addEventListener('change', draw);
    draw();
    /* the time axis, under the box so it stays in view */
    axis = s('svg', { cls: 'gp-chart', viewBox: '0 0 ' + W + ' 18', 'data-gp-chart': 'heatmap-axis' });
    tk = ticks(0, bins * hm.bin_ns, 8);
    for (i = 0; i < tk.length; i++) axis.appendChild(s('text', { x: L + tk[i] / (bins * hm.bin_ns) * pw, y: 13, 'text-anchor': 'middle', text: fmtAxisNs(tk[i]) }));
    sec.appendChild(axis);
    /* the legend: the colour scale, linear from no wait to the largest bin */
    leg = s('svg', { cls: 'gp-chart gp-heatlegend', viewBox: '0 0 ' + W + ' 30', 'data-gp-chart': 'heatmap-legend', 'data-max': max });
    leg.appendChild(s('text', { x: L - 4, y: 14, 'text-anchor': 'end', text: 'wait' }));
    for (i = 0; i < 40; i++) leg.appendChild(s('rect', { x: L + i * 6, y: 4, width: 6, height: 12, fill: heatColor(i === 0 ? 0 : i / 39) }));
    leg.appendChild(s('text', { x: L, y: 28, 'text-anchor': 'start', text: '0' }));
    leg.appendChild(s('text', { x: L + 120, y: 28, 'text-anchor': 'middle', text: fmtNs(max / 2) }));
    leg.appendChild(s('text', { x: L + 240, y: 28, 'text-anchor': 'end', text: fmtNs(max), 'data-axis': 'max' }));
    leg.appendChild(s('text', { x: L + 252, y: 14, 'text-anchor': 'start', text: 'per bin of ' + fmtNs(hm.bin_ns) + ', linear scale' }));
    sec.appendChild(leg);
  }

  function stragglersAggregate(doc, byRank) {
    var st = objs(doc.stragglers), sec, svg, W = 960, L = 70, R = 330, RH = 18, shown = st.slice(0, 32), max = 0, i;
    sec = section('gp-stragglers', 'Stragglers', st.length > 0, 'No rank arrived last at a collective: nobody waited.');
    if (!st.length) return;
    shown.forEach(function (x) { if (num(x.blame_ns)) max = Math.max(max, x.blame_ns); });
    sec.appendChild(h('p', { cls: 'gp-note', text: 'Blame: the time the others waited for a rank, summed over the collectives where it arrived last (the gap to the second-last). Significant: last more often than chance (one-sided binomial test, p < 0.01).' + (st.length > shown.length ? ' The ' + shown.length + ' with the most blame are drawn; the table has all ' + st.length + '.' : '') }));
    svg = s('svg', { cls: 'gp-chart', viewBox: '0 0 ' + W + ' ' + (shown.length * (RH + 4) + 4), 'data-gp-chart': 'blame', role: 'img', 'aria-label': 'blame per rank' });
    for (i = 0; i < shown.length; i++) {
      var x = shown[i], y = 2 + i * (RH + 4), bw = max > 0 && num(x.blame_ns) ? Math.max(1, x.blame_ns / max * (W - L - R)) : 0;
      svg.appendChild(s('g', { 'data-rank': x.rank, 'data-blame': num(x.blame_ns) ? x.blame_ns : null }, [
        s('title', { text: 'rank ' + x.rank + ': blame ' + fmtNs(x.blame_ns) + ', last at ' + fmt0(x.last_count) + ' of ' + fmt0(x.collectives) + ' collectives' + (x.cause_detail ? '; ' + x.cause_detail : '') }),
        s('text', { x: L - 6, y: y + RH - 5, 'text-anchor': 'end', text: 'rank ' + x.rank }),
        s('rect', { x: L, y: y, width: bw, height: RH, fill: x.significant === true ? '#b91c1c' : '#94a3b8' }),
        s('text', { x: L + bw + 6, y: y + RH - 5, text: fmtNs(x.blame_ns) + ' \u00b7 last ' + fmtPct(x.last_arrival_pct) + (x.significant === true ? '' : ' (not significant)') + (causeWords(x.cause) ? ' \u00b7 ' + causeWords(x.cause) : '') })
      ]));
    }
    sec.appendChild(svg);
    sec.appendChild(table('agg-stragglers', [
      { key: 'rank', label: 'Rank', fmt: 'id' }, { key: 'host', label: 'Host', fmt: 'str' },
      { key: 'blame_ns', label: 'Blame', fmt: 'ns' },
      { key: 'caused_wait_ns', label: 'Others\u2019 wait', fmt: 'ns', title: 'the other ranks\u2019 wait in the collectives where it arrived last' },
      { key: 'last_count', label: 'Last', fmt: 'int', title: 'collectives where it arrived last' },
      { key: 'collectives', label: 'Collectives', fmt: 'int' }, { key: 'last_arrival_pct', label: 'Last %', fmt: 'pct' },
      { key: 'p_value', label: 'p', fmt: 'pval', title: 'one-sided binomial test: last this often by chance' },
      { key: 'significant', label: 'Significant', fmt: 'bool' }, { key: 'cause', label: 'Cause', fmt: 'str' },
      { key: 'cause_detail', label: 'Evidence', fmt: 'str' }
    ], st.map(function (x) {
      var r = byRank[x.rank] || {};
      return { rank: x.rank, host: typeof r.host === 'string' ? r.host : null, blame_ns: x.blame_ns, caused_wait_ns: num(x.caused_wait_ns) ? x.caused_wait_ns : null, last_count: x.last_count, collectives: x.collectives, last_arrival_pct: x.last_arrival_pct, p_value: pOf(x.p_value, x.p_value_log10), significant: x.significant, cause: x.cause, cause_detail: x.cause_detail, find: 'rank ' + x.rank + ' ' + causeWords(x.cause) };
    }), { title: 'All stragglers', what: 'ranks', filterKey: 'find', sort: 'blame_ns' }));
  }

  function fmt0(v) {
    return num(v) ? fmtInt(v) : '?';
  }

  function collectivesAggregate(doc) {
    var cs = objs(doc.collectives), sec;
    sec = section('gp-collectives', 'Collectives', cs.length > 0, 'No collective was matched across the ranks.');
    if (!cs.length) return;
    sec.appendChild(table('agg-collectives', [
      { key: 'pg', label: 'Group', fmt: 'str' }, { key: 'pg_desc', label: 'Description', fmt: 'str' },
      { key: 'name', label: 'Collective', fmt: 'str' }, { key: 'count', label: 'Count', fmt: 'int' },
      { key: 'ranks', label: 'Ranks', fmt: 'int' }, { key: 'bytes', label: 'Bytes', fmt: 'bytes', title: 'one rank\u2019s message sizes, summed' },
      { key: 'transfer_ns', label: 'Transfer', fmt: 'ns', title: 'per collective the shortest duration over the ranks, summed' },
      { key: 'wait_ns', label: 'Wait', fmt: 'ns' }, { key: 'skew_mean', label: 'Skew mean', fmt: 'ns' },
      { key: 'skew_p95', label: 'Skew p95', fmt: 'ns' }, { key: 'skew_max', label: 'Skew max', fmt: 'ns' },
      { key: 'algbw_gbps', label: 'algbw', fmt: 'gbps' }, { key: 'busbw_gbps', label: 'busbw', fmt: 'gbps', title: 'algbw \u00d7 the nccl-tests factor' },
      { key: 'factor', label: 'Factor', fmt: 'num' }, { key: 'cross_host', label: 'Cross-host', fmt: 'bool' }
    ], cs.map(function (c) {
      return { pg: c.pg, pg_desc: c.pg_desc, name: c.name, count: c.count, ranks: c.ranks, bytes: c.bytes, transfer_ns: c.transfer_ns, wait_ns: c.wait_ns,
        skew_mean: get(c, 'skew_ns.mean'), skew_p95: get(c, 'skew_ns.p95'), skew_max: get(c, 'skew_ns.max'),
        algbw_gbps: c.algbw_gbps, busbw_gbps: c.busbw_gbps, factor: c.factor, cross_host: c.cross_host };
    }), { title: 'Per process group and collective', what: 'collectives', sort: 'wait_ns', note: 'GB/s = 10\u2079 bytes per second, as nccl-tests reports them.' }));
  }

  function renderAggregate(doc) {
    var ranks = objs(doc.ranks), byRank = {};
    ranks.forEach(function (r) { byRank[r.rank] = r; });
    summaryAggregate(doc, ranks);
    /* the aggregate's warnings (a missing rank, ...) first, then its findings */
    findingsSection(arr(doc.warnings).map(function (w) {
      return { id: 'aggregate-warning', severity: 'warning', title: typeof w === 'string' ? w : get(w, 'text') || JSON.stringify(w) };
    }).concat(objs(doc.findings)));
    ranksAggregate(doc, ranks);
    heatmapAggregate(doc);
    stragglersAggregate(doc, byRank);
    collectivesAggregate(doc);
  }

  /* ---- main ---- */

  function render(ri) {
    var doc = page.doc;
    clear(main);
    clear(nav);
    if (page.kind === 'bench') renderBench(doc);
    else if (page.kind === 'compare') renderCompare(doc);
    else if (page.kind === 'aggregate') renderAggregate(doc);
    else if (page.kind === 'memsnap') renderMemsnap(doc);
    else if (page.kind === 'history') renderHistory(doc);
    else if (ri === -1 && page.aggregate && typeof page.aggregate === 'object') {
      /* the job's view of a page of many ranks */
      rankSelect(doc, -1);
      renderAggregate(page.aggregate);
    } else renderAnalyze(doc, ri || 0);
    document.body.setAttribute('data-gp-view', page.kind === 'analyze' ? (ri === -1 ? 'job' : 'rank') : page.kind);
  }

  /* the sticky navigation's height (it wraps on a narrow window): a section scrolled to keeps its heading below it */
  function navHeight() {
    document.documentElement.style.setProperty('--gp-nav-h', nav.getBoundingClientRect().height + 'px');
  }

  function fail(e) {
    var box = document.getElementById('gp-error');
    document.body.setAttribute('data-gp-state', 'error');
    if (box) {
      box.hidden = false;
      box.textContent = 'The report could not be drawn: ' + (e && e.message ? e.message : String(e));
    }
  }

  try {
    main = document.getElementById('gp-main');
    nav = document.getElementById('gp-nav');
    page = JSON.parse(document.getElementById('gp-data').textContent);
    if (!page || page.schema !== 'gpuprof.page/1') throw new Error('the data is not a gpuprof.page/1 model');
    render(0);
    navHeight();
    window.addEventListener('resize', navHeight);
    document.body.setAttribute('data-gp-state', 'ok');
  } catch (e) {
    fail(e);
    throw e;
  }
})();
