/* SPDX-License-Identifier: MIT */
/*
 * memsnap.js - the report page's view of a PyTorch memory snapshot (a
 * gpuprof.memsnap/1 document, docs/memsnap-schema.md): a summary of cards,
 * then per device the allocated bytes over the trace (the document's curve,
 * at most 1,000 points with the peaks kept; the peak and the OOMs marked),
 * the allocations live at the peak by top frame, the fragmentation per
 * segment class and the out-of-memory events with what was live at each;
 * last the allocator settings. html.c puts it before report.js in the page's
 * one script; report.js calls gpMemsnap(api) with its DOM, format, table and
 * chart helpers and renders the document with it. Strings go into the page
 * through textContent and setAttribute only.
 */
var gpMemsnap = function (api) {
  'use strict';
  var h = api.h, num = api.num, objs = api.objs, arr = api.arr, get = api.get;
  var section = api.section, card = api.card, table = api.table, lineChart = api.lineChart;
  var fmtBytes = api.fmtBytes, fmtInt = api.fmtInt, fmtPct = api.fmtPct;

  var FRAME_COLS = [
    { key: 'frame', label: 'Top frame (file:line:function)', fmt: 'str' },
    { key: 'bytes', label: 'Bytes', fmt: 'bytes' },
    { key: 'blocks', label: 'Blocks', fmt: 'int' }
  ];

  function frameRows(o) {
    return objs(get(o, 'frames')).map(function (f) {
      return { name: f.frame, frame: f.frame, bytes: f.bytes, blocks: f.blocks };
    });
  }

  function summary(doc, devs) {
    var sec = section('gp-memsnap-summary', 'Memory snapshot', true), peak = 0, reserved = 0, ooms = 0, i, d;
    for (i = 0; i < devs.length; i++) {
      d = devs[i];
      if (num(get(d, 'peak.allocated_bytes'))) peak = Math.max(peak, get(d, 'peak.allocated_bytes'));
      if (num(d.reserved_bytes)) reserved += d.reserved_bytes;
      ooms += arr(d.ooms).length;
    }
    sec.appendChild(h('div', { cls: 'gp-cards' }, [
      card('devices', 'Devices', devs.length, fmtInt(devs.length), 'pickle protocol ' + String(doc.pickle_protocol)),
      card('peak_memory', 'Peak allocated', peak, fmtBytes(peak), 'the highest of the devices'),
      card('reserved', 'Reserved at the snapshot', reserved, fmtBytes(reserved), 'all devices'),
      card('ooms', 'Out-of-memory events', ooms, fmtInt(ooms), ooms ? 'below, per device' : 'none recorded')
    ]));
    if (!devs.length) sec.appendChild(h('p', { cls: 'gp-note', text: 'No device has a segment or a trace in this snapshot.' }));
  }

  /* the curve: x in time_us (drawn as time) or trace entries */
  function curve(d, box) {
    var c = get(d, 'curve'), pts = arr(get(c, 'points')), times = get(c, 'x') === 'time_us';
    var peak = get(d, 'peak'), marks = [], x0, x1, chart, scale = times ? 1000 : 1;
    if (!pts.length) {
      box.appendChild(h('p', { cls: 'gp-note', text: 'No trace: the allocator history was not recorded (torch.cuda.memory._record_memory_history), so the peak is the state at the snapshot.' }));
      return;
    }
    pts = pts.filter(function (p) { return Array.isArray(p) && num(p[0]) && num(p[1]); })
      .map(function (p) { return [p[0] * scale, p[1]]; });
    if (!pts.length) return;
    x0 = pts[0][0];
    x1 = pts[pts.length - 1][0];
    if (times && num(get(peak, 'time_us'))) marks.push(peak.time_us * scale);
    if (!times && num(get(peak, 'entry'))) marks.push(peak.entry);
    objs(d.ooms).forEach(function (o) { marks.push(times ? o.time_us * scale : o.entry); });
    chart = lineChart('allocated bytes, GPU ' + String(d.device), pts, x0, x1, fmtBytes,
      times ? { marks: marks } : { marks: marks, xfmt: function (k) { return '#' + fmtInt(k); } });
    if (chart) {
      chart.setAttribute('data-gp-chart', 'memsnap-curve');
      chart.setAttribute('data-points', String(pts.length));
      box.appendChild(h('h3', { cls: 'gp-sub', text: 'Allocated over the trace (' + fmtInt(get(d, 'trace_entries')) + ' entries; dashed: the peak and the OOMs)' }));
      box.appendChild(chart);
    }
  }

  function device(d) {
    var id = String(d.device), peak = get(d, 'peak') || {};
    var sec = section('gp-memsnap-gpu' + id, 'GPU ' + id, true);
    var traced = peak.source === 'trace';
    sec.setAttribute('data-gp-device', id);
    sec.appendChild(h('div', { cls: 'gp-cards' }, [
      card('peak_allocated', 'Peak allocated', peak.allocated_bytes, fmtBytes(peak.allocated_bytes),
        traced ? (num(peak.entry) ? 'at trace entry ' + fmtInt(peak.entry) : 'before the trace began') : 'no trace: at the snapshot'),
      card('reserved', 'Reserved', d.reserved_bytes, fmtBytes(d.reserved_bytes), fmtInt(d.segments) + ' segments at the snapshot'),
      card('allocated', 'Allocated at the snapshot', d.allocated_bytes, fmtBytes(d.allocated_bytes), fmtInt(d.blocks) + ' blocks'),
      traced ? card('initial', 'Before the trace', d.initial_bytes, fmtBytes(d.initial_bytes), 'allocated before its first entry') : null
    ]));
    curve(d, sec);
    sec.appendChild(table('memsnap-frames-' + id, FRAME_COLS, frameRows(peak), {
      title: 'Live at the peak by top frame (' + fmtInt(peak.live_blocks) + ' blocks)', what: 'frames', sort: 'bytes', filterKey: 'frame'
    }));
    sec.appendChild(table('memsnap-frag-' + id, [
      { key: 'class', label: 'Segment class', fmt: 'str' }, { key: 'segments', label: 'Segments', fmt: 'int' },
      { key: 'reserved_bytes', label: 'Reserved', fmt: 'bytes' }, { key: 'allocated_bytes', label: 'Allocated', fmt: 'bytes' },
      { key: 'free_bytes', label: 'Free (reserved - allocated)', fmt: 'bytes' }, { key: 'free_pct', label: 'Free %', fmt: 'pct' }
    ], objs(d.fragmentation).map(function (r) {
      return { name: r.class, class: r.class, segments: r.segments, reserved_bytes: r.reserved_bytes, allocated_bytes: r.allocated_bytes, free_bytes: r.free_bytes, free_pct: r.free_pct };
    }), { title: 'Fragmentation at the snapshot', what: 'classes', sort: 'reserved_bytes', filterKey: 'class' }));
    objs(d.ooms).forEach(function (o, k) {
      var box = h('div', { cls: 'gp-oom', 'data-gp-oom': String(k) }, [
        h('h3', { cls: 'gp-sub', text: 'Out of memory' + (num(o.time_us) ? ' at ' + String(o.time_us) + ' us' : '') + ' (trace entry ' + fmtInt(o.entry) + '): ' +
          fmtBytes(o.requested_bytes) + ' requested, ' + fmtBytes(o.device_free_bytes) + ' free on the device, ' + fmtBytes(o.allocated_bytes) + ' allocated' })
      ]);
      if (Array.isArray(o.frames)) {
        box.appendChild(table('memsnap-oom-' + id + '-' + k, FRAME_COLS, frameRows(o), {
          title: 'Live then by top frame', what: 'frames', sort: 'bytes', filterKey: 'frame'
        }));
      }
      sec.appendChild(box);
    });
  }

  function settings(doc) {
    var st = doc.allocator_settings, sec;
    if (!st || typeof st !== 'object') return;
    sec = section('gp-memsnap-settings', 'Allocator settings', true);
    sec.appendChild(h('dl', { cls: 'gp-settings' }, Object.keys(st).sort().map(function (k) {
      var v = st[k];
      return [h('dt', { text: k }), h('dd', { 'data-gp-setting': k, text: typeof v === 'string' ? v : JSON.stringify(v) })];
    }).reduce(function (a, b) { return a.concat(b); }, [])));
  }

  return {
    render: function (doc) {
      var devs = objs(doc.devices);
      summary(doc, devs);
      devs.forEach(device);
      settings(doc);
    },
    fmtPct: fmtPct
  };
};
