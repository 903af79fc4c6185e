/* SPDX-License-Identifier: MIT */
/*
 * memory.js - the report page's memory view of an analyze report (docs/analyses/
 * overview-memory.md): per device, cards (peak allocated and reserved, at the end, never
 * freed), the allocated curve (memory.devices[].curve.allocated, already at most 1,000
 * points with the peak among them) drawn as the step function it is with the steps' starts marked and
 * the peak as a dot whose tooltip lists what was live then, the steps' own peaks and ends,
 * what was live at the peak by op, what was never freed by op (weights made before the
 * first step apart) and the leak test's verdict. html.c puts it before report.js in the
 * page's one script; report.js calls gpMemory(api) with its DOM and format helpers. Strings
 * go into the page through textContent and setAttribute only.
 */
var gpMemory = function (api) {
  'use strict';
  var h = api.h, s = api.s, num = api.num, objs = api.objs, arr = api.arr, get = api.get;
  var fmtBytes = api.fmtBytes, fmtInt = api.fmtInt, section = api.section, card = api.card;
  var table = api.table, lineChart = api.lineChart;

  function devName(d) {
    return typeof d.device === 'string' ? 'Host' : 'GPU ' + d.device;
  }

  /* the curve's [t, bytes] points as a step function: a value holds until the next event */
  function stepPoints(pts) {
    var out = [], i;
    for (i = 0; i < pts.length; i++) {
      if (i) out.push([pts[i][0], pts[i - 1][1]]);
      out.push(pts[i]);
    }
    return out;
  }

  function liveTitle(d) {
    var rows = objs(get(d, 'peak_live.rows')).slice(0, 8), o = get(d, 'peak_live.other_bytes');
    var lines = ['peak ' + fmtBytes(d.peak_allocated_bytes) + (d.peak_step ? ' in ' + d.peak_step : '') + (d.peak_op ? ' (' + d.peak_op + ')' : '')];
    rows.forEach(function (r) { lines.push(fmtBytes(r.bytes) + '  ' + (r.op === null ? '(outside any op)' : r.op)); });
    if (num(o) && o > 0) lines.push(fmtBytes(o) + '  allocated before the trace, or without an address');
    return lines.join('\n');
  }

  function opCols(steps) {
    var c = [
      { key: 'op', label: 'Op', fmt: 'str' },
      { key: 'bytes', label: 'Bytes', fmt: 'bytes' },
      { key: 'allocations', label: 'Allocations', fmt: 'int' }
    ];
    if (steps) {
      c.push({ key: 'first_step', label: 'First step', fmt: 'str' });
      c.push({ key: 'last_step', label: 'Last step', fmt: 'str' });
      c.push({ key: 'steps', label: 'Steps', fmt: 'int' });
    }
    return c;
  }

  /* rows with a null op named, so the table's filter and sort see a string */
  function named(rows) {
    return objs(rows).map(function (r) {
      var o = {}, k;
      for (k in r) if (Object.prototype.hasOwnProperty.call(r, k)) o[k] = r[k];
      if (o.op === null) o.op = '(outside any op)';
      return o;
    });
  }

  function device(sec, r, d, k) {
    var c = d.curve || {}, raw = arr(c.allocated).filter(function (p) { return Array.isArray(p) && p.length === 2 && num(p[0]); });
    var pts = stepPoints(raw), steps = objs(r.steps), marks = [];
    var x0 = raw.length ? raw[0][0] : 0, x1 = raw.length ? raw[raw.length - 1][0] : 0, chart, box, u = d.unfreed, lk = d.leak;
    var id = 'mem' + k, sg = objs(d.step_growth);
    box = h('div', { cls: 'gp-memdev', 'data-gp-memdev': typeof d.device === 'string' ? d.device : String(d.device) });
    sec.appendChild(box);
    box.appendChild(h('h3', { cls: 'gp-sub', text: devName(d) + ' memory' }));
    box.appendChild(h('div', { cls: 'gp-cards' }, [
      card(id + '_peak', 'Peak allocated', d.peak_allocated_bytes, fmtBytes(d.peak_allocated_bytes), d.peak_step || null),
      card(id + '_reserved', 'Peak reserved', d.peak_reserved_bytes, fmtBytes(d.peak_reserved_bytes), num(d.peak_reserved_bytes) ? null : 'not in the trace'),
      card(id + '_end', 'At the end', d.final_allocated_bytes, fmtBytes(d.final_allocated_bytes), d.allocated_source === 'bytes_sum' ? 'relative to the start' : null),
      u ? card(id + '_unfreed', 'Never freed', u.bytes, fmtBytes(u.bytes), fmtInt(u.allocations) + ' allocations in steps') : null
    ]));
    steps.forEach(function (st) {
      if (num(st.start_ns)) marks.push(st.start_ns);
      if (num(st.start_ns)) {
        x0 = Math.min(x0, st.start_ns);
        if (num(st.dur_ns)) x1 = Math.max(x1, st.start_ns + st.dur_ns);
      }
    });
    chart = pts.length ? lineChart('memory.' + (typeof d.device === 'string' ? 'cpu' : 'gpu' + d.device), pts, x0, x1, fmtBytes,
      { marks: marks, dot: [get(d, 'peak_ts_ns'), d.peak_allocated_bytes, liveTitle(d)] }) : null;
    if (chart) {
      chart.setAttribute('data-gp-memcurve', String(raw.length));
      box.appendChild(chart);
      box.appendChild(h('p', { cls: 'gp-note', text: 'Allocated bytes over time' + (d.allocated_source === 'bytes_sum' ? ' (the trace has no Total Allocated: relative to the start)' : '') + '; lines: the steps\u2019 starts; the dot: the peak (hover: what was live then)' + (c.downsampled ? '; ' + fmtInt(c.events) + ' events shown as ' + fmtInt(raw.length) + ' points, the lowest and highest of each run' : '') + '.' }));
    }
    if (lk && lk.suspect) {
      box.appendChild(h('p', { cls: 'gp-warn', 'data-gp-leak': '' }, 'Leak: grows by ' + fmtBytes(lk.growth_per_step_bytes) + ' a step over ' + fmtInt(lk.steps_tested) + ' steps' + (lk.holder ? '; ' + (lk.holder.op === null ? 'code outside any op' : lk.holder.op) + ' keeps ' + fmtBytes(lk.holder.retained_bytes) + ' made in ' + fmtInt(lk.holder.steps) + ' of them' : '') + '.'));
    }
    if (sg.length) {
      box.appendChild(table(id + '-steps', [
        { key: 'step', label: 'Step', fmt: 'str' },
        { key: 'peak_allocated_bytes', label: 'Peak', fmt: 'bytes' },
        { key: 'allocated_at_end_bytes', label: 'At end', fmt: 'bytes' }
      ], sg, { title: 'Per step', what: 'steps', filterKey: 'step' }));
    }
    box.appendChild(table(id + '-live', opCols(false), named(get(d, 'peak_live.rows')), { title: 'Live at the peak, by op', what: 'ops', sort: 'bytes', filterKey: 'op' }));
    if (u) {
      box.appendChild(table(id + '-unfreed', opCols(true), named(u.rows), { title: 'Never freed, by op', what: 'ops', sort: 'bytes', filterKey: 'op' }));
      if (objs(get(u, 'before_steps.rows')).length) {
        box.appendChild(table(id + '-before', opCols(false), named(get(u, 'before_steps.rows')), { title: 'Made before the first step, never freed (weights, optimizer state)', what: 'ops', sort: 'bytes', filterKey: 'op' }));
      }
    } else {
      box.appendChild(h('p', { cls: 'gp-note', text: 'The trace\u2019s memory events have no addresses (PyTorch before 1.10): allocations cannot be paired with their frees.' }));
    }
  }

  return {
    analyze: function (r) {
      var devs = objs(get(r, 'memory.devices')), sec;
      if (!devs.length) return; /* no memory events (profile_memory=True not set): no section, as for other absent data */
      sec = section('gp-memory', 'Memory', true);
      devs.forEach(function (d, k) { device(sec, r, d, k); });
    }
  };
};
