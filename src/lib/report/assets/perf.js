/* SPDX-License-Identifier: MIT */
/*
 * perf.js - the report page's views of issue 23's sections (docs/report-schema.md):
 * per rank, the critical path on the step's timeline (segments coloured by
 * bound, the step's bound shares as a bar, a step selector), the roofline
 * chart (log-log SVG: arithmetic intensity against achieved TFLOP/s, the
 * device's memory and compute roofs, ops as points sized by GPU time, with a
 * tooltip and a table) and the module tree (collapsible <details>) with the
 * per-class table; in a compare result, each rank group's bound shift, module
 * classes and ops. html.c puts it before report.js in the page's one script;
 * report.js calls gpPerf(api) with its DOM and format helpers and draws what
 * it returns. Strings go into the page through textContent and setAttribute only.
 */
var gpPerf = function (api) {
  'use strict';
  var h = api.h, s = api.s, num = api.num, objs = api.objs, arr = api.arr, get = api.get;
  var fmtNs = api.fmtNs, fmtPct = api.fmtPct, fmtRate = api.fmtRate, fmtAxisNs = api.fmtAxisNs;

  var BOUNDS = ['cpu_bound', 'gpu_compute_bound', 'gpu_communication_bound', 'gpu_kernel_kernel_overhead', 'gpu_kernel_launch_overhead'];
  var BOUND_COLOR = {
    cpu_bound: '#b279a2', gpu_compute_bound: '#4c78a8', gpu_communication_bound: '#72b7b2',
    gpu_kernel_kernel_overhead: '#eeca3b', gpu_kernel_launch_overhead: '#f58518'
  };
  var BOUND_WORDS = {
    cpu_bound: 'CPU', gpu_compute_bound: 'GPU compute', gpu_communication_bound: 'GPU communication',
    gpu_kernel_kernel_overhead: 'kernel-kernel gaps', gpu_kernel_launch_overhead: 'launch overhead'
  };
  /* what roofline.missing's words mean for the user */
  var MISSING = {
    shapes: 'the trace has no input shapes: profile with record_shapes=True',
    deviceProperties: 'the trace does not say which GPU ran it',
    'gpu not in table': 'no peak figures for this GPU in gpuprof\u2019s table: --peak-tflops and --peak-tbps give them'
  };
  var MAX_TREE = 2000; /* module tree nodes drawn; the rest counted */

  function words(b) { return BOUND_WORDS[b] || String(b); }

  /* a stacked bar of the bound shares @p pct ({category: pct}) with its legend */
  function boundBar(name, pct) {
    var W = 960, H = 22, x = 0, svg = s('svg', { cls: 'gp-chart', viewBox: '0 0 ' + W + ' ' + H, 'data-gp-chart': name, role: 'img', 'aria-label': 'critical path by bound' });
    var leg = h('div', { cls: 'gp-legend' });
    BOUNDS.forEach(function (b) {
      var v = get(pct, b);
      leg.appendChild(h('span', { 'data-bound': b, 'data-value': num(v) ? String(v) : 'null' }, [h('i', { style: 'background:' + BOUND_COLOR[b] }), words(b) + ' ' + fmtPct(v)]));
      if (!num(v) || v <= 0) return;
      var w = v / 100 * W;
      svg.appendChild(s('rect', { x: x, y: 0, width: w, height: H, fill: BOUND_COLOR[b], 'data-bound': b, 'data-value': v }, s('title', { text: words(b) + ': ' + fmtPct(v) + ' of the path' })));
      x += w;
    });
    return h('div', null, [svg, leg]);
  }

  /* the path of one step on its timeline: a lane per kind (CPU, GPU, edges), segments by bound */
  function pathChart(st) {
    var segs = objs(st.segments), W = 960, L = 70, R = 10, T = 6, RH = 18, lanes = ['cpu', 'gpu', 'edge'];
    var laneWords = { cpu: 'CPU', gpu: 'GPU', edge: 'waits/gaps' }, t0 = st.start_ns, t1 = st.end_ns, H, svg, xs, tk, i;
    if (!num(t0) || !num(t1) || !(t1 > t0)) return h('p', { cls: 'gp-note', text: 'The step has no time span to draw.' });
    /* the path may run past the step's end (kernels the step launched finish later): the axis covers both */
    for (i = 0; i < segs.length; i++) {
      if (num(segs[i].start_ns)) t0 = Math.min(t0, segs[i].start_ns);
      if (num(segs[i].end_ns)) t1 = Math.max(t1, segs[i].end_ns);
    }
    H = T + lanes.length * (RH + 4) + 22;
    xs = function (t) { return L + (t - t0) / (t1 - t0) * (W - L - R); };
    svg = s('svg', { cls: 'gp-chart', viewBox: '0 0 ' + W + ' ' + H, 'data-gp-chart': 'critical-path', 'data-step': stepName(st), role: 'img', 'aria-label': 'critical path of ' + stepName(st) });
    lanes.forEach(function (k, li) {
      var y = T + li * (RH + 4);
      svg.appendChild(s('text', { x: L - 6, y: y + RH - 5, 'text-anchor': 'end', text: laneWords[k] }));
      svg.appendChild(s('rect', { x: L, y: y, width: W - L - R, height: RH, fill: '#eef1f5' }));
    });
    for (i = 0; i < segs.length; i++) {
      var g = segs[i], li = lanes.indexOf(g.kind), a, b;
      if (li < 0 || !num(g.start_ns) || !num(g.end_ns)) continue;
      a = xs(Math.max(t0, g.start_ns));
      b = xs(Math.min(t1, g.end_ns));
      svg.appendChild(s('rect', {
        x: a, y: T + li * (RH + 4), width: Math.max(0.6, b - a), height: RH, fill: BOUND_COLOR[g.bound] || '#bab0ac',
        'data-seg': i, 'data-bound': g.bound, 'data-kind': g.kind, 'data-dur': g.end_ns - g.start_ns
      }, s('title', { text: (g.name ? api.shownName(g.name) + '\n' : '') + words(g.bound) + ', ' + fmtNs(g.end_ns - g.start_ns) + (g.stream !== null && g.stream !== undefined ? ', stream ' + g.stream : '') + (g.tid !== null && g.tid !== undefined ? ', thread ' + g.tid : '') })));
    }
    [st.start_ns, st.end_ns].forEach(function (t) {
      if (t > t0 && t < t1) svg.appendChild(s('line', { cls: 'gp-marker', x1: xs(t), x2: xs(t), y1: T - 2, y2: H - 20, 'data-mark': '' }));
    });
    tk = api.ticks(0, t1 - t0, 8);
    for (i = 0; i < tk.length; i++) svg.appendChild(s('text', { x: xs(t0 + tk[i]), y: H - 6, 'text-anchor': 'middle', text: fmtAxisNs(tk[i]) }));
    return svg;
  }

  function stepName(st) { return typeof st.step === 'string' ? st.step : 'the whole trace'; }

  function critpathSection(r) {
    var cp = r.critical_path, steps, sec, box, sel, cur = 0, tot;
    /* no section for a path that is not there (no GPU activity, ...): the report's reason says why */
    if (!cp || typeof cp !== 'object' || cp.available !== true) return;
    steps = objs(cp.steps);
    if (!steps.length) return;
    sec = api.section('gp-critpath', 'Critical path', true);
    tot = cp.total || {};
    sec.appendChild(h('p', { cls: 'gp-note', 'data-gp-critpath-total': '' }, (cp.whole_trace ? 'No complete ProfilerStep: one path over the whole trace. ' : 'Over ' + steps.length + (steps.length === 1 ? ' step' : ' steps') + ': ') +
      'path ' + fmtNs(tot.path_ns) + ', ' + BOUNDS.filter(function (b) { return num(get(tot, 'bound_by_pct.' + b)); }).map(function (b) { return words(b) + ' ' + fmtPct(tot.bound_by_pct[b]); }).join(', ') +
      '. The path is the chain of CPU work, launches, kernels and waits that sets the step\u2019s length: only what is on it shortens the step.' + (cp.compat === 'hta' ? ' (--compat hta: HTA\u2019s definitions.)' : '')));
    sec.appendChild(boundBar('critical-path-total', tot.bound_by_pct));
    box = h('div', { 'data-gp-critpath-step': '' });
    if (steps.length > 1) {
      sel = h('select', { 'data-gp-critpath-select': '', 'aria-label': 'step' });
      steps.forEach(function (st, i) { sel.appendChild(h('option', { value: String(i), text: stepName(st) + ' \u2014 ' + fmtNs(st.path_ns) })); });
      sel.addEventListener('change', function () { cur = Number(sel.value); draw(); });
      sec.appendChild(h('p', null, ['Step: ', sel]));
    }
    sec.appendChild(box);
    function draw() {
      var st = steps[cur] || {};
      api.clear(box);
      box.appendChild(h('h3', { cls: 'gp-sub', text: stepName(st) + ': path ' + fmtNs(st.path_ns) + ' of ' + fmtNs(st.end_ns - st.start_ns) + (objs(st.segments).some(function (g) { return g.end_ns > st.end_ns || g.start_ns < st.start_ns; }) ? ' (the path runs past the step’s bounds, dashed)' : '') }));
      box.appendChild(boundBar('critical-path-step', st.bound_by_pct));
      box.appendChild(pathChart(st));
      var sg = objs(st.segments), cover = sg.reduce(function (a, g) { return a + (num(g.end_ns) && num(g.start_ns) ? g.end_ns - g.start_ns : 0); }, 0);
      /* the report keeps at most 4096 segments a step: then the drawing is a part of the path */
      var part = num(st.segments_omitted) ? st.segments_omitted > 0 : sg.length >= 4096 && num(st.path_ns) && cover < st.path_ns * 0.999;
      box.appendChild(h('p', { cls: 'gp-note', 'data-gp-segments-partial': part ? '' : null, text: sg.length + ' segments on the path, coloured by what bounds them; hover for the op or kernel.' +
        (part ? ' The report keeps ' + sg.length + ' segments of a step: they cover ' + fmtNs(cover) + ' of the path\u2019s ' + fmtNs(st.path_ns) + '; the shares above are the whole path\u2019s.' : '') }));
      box.appendChild(api.table('cp-cpu-ops', [
        { key: 'name', label: 'CPU op', fmt: 'str' }, { key: 'path_ns', label: 'On the path', fmt: 'ns' }, { key: 'count', label: 'Segments', fmt: 'int' }
      ], objs(st.top_cpu_ops), { title: 'CPU ops on the path', what: 'CPU ops', sort: 'path_ns' }));
      box.appendChild(api.table('cp-kernels', [
        { key: 'name', label: 'Kernel', fmt: 'str' }, { key: 'path_ns', label: 'On the path', fmt: 'ns' }, { key: 'count', label: 'Segments', fmt: 'int' }
      ], objs(st.top_kernels), { title: 'Kernels on the path', what: 'kernels', sort: 'path_ns' }));
    }
    draw();
  }

  /* ---- roofline ---- */

  function log10(v) { return Math.log(v) / Math.LN10; }

  /* a decade's label: 0.01, 0.1, 1, 10, 1,000 */
  function decade(v) { return v >= 1 ? api.fmtInt(v) : String(Number(v.toPrecision(1))); }

  function rooflineChart(rf, ops) {
    var W = 960, H = 420, L = 70, R = 20, T = 12, B = 40, dev = rf.device || {}, peaks = dev.peak_tflops || {}, bw = dev.peak_tbps;
    var pts = ops.filter(function (o) { return num(o.arithmetic_intensity) && o.arithmetic_intensity > 0 && num(o.achieved_tflops) && o.achieved_tflops > 0; });
    var used = {}, roofs = [], xlo, xhi, ylo, yhi, svg, xs, ys, maxT = 0, i, d;
    ops.forEach(function (o) { if (o.dtype) used[o.dtype] = true; });
    Object.keys(peaks).forEach(function (k) { if (num(peaks[k]) && peaks[k] > 0 && (used[k] || !Object.keys(used).length)) roofs.push([k, peaks[k]]); });
    if (!pts.length) return null;
    /* dtypes of one peak share a roof (bf16 and fp16) */
    roofs.sort(function (a, b) { return b[1] - a[1] || (a[0] < b[0] ? -1 : 1); });
    roofs = roofs.reduce(function (acc, p) {
      var last = acc[acc.length - 1];
      if (last && last[1] === p[1]) last[0] += '/' + p[0];
      else acc.push([p[0], p[1]]);
      return acc;
    }, []);
    xlo = Infinity; xhi = -Infinity; ylo = Infinity; yhi = -Infinity;
    pts.forEach(function (o) {
      xlo = Math.min(xlo, o.arithmetic_intensity); xhi = Math.max(xhi, o.arithmetic_intensity);
      ylo = Math.min(ylo, o.achieved_tflops); yhi = Math.max(yhi, o.achieved_tflops);
      maxT = Math.max(maxT, num(o.gpu_time_ns) ? o.gpu_time_ns : 0);
    });
    roofs.forEach(function (p) {
      yhi = Math.max(yhi, p[1]);
      if (num(bw) && bw > 0) { xlo = Math.min(xlo, p[1] / bw / 4); xhi = Math.max(xhi, p[1] / bw * 4); }
    });
    if (!isFinite(xlo)) { xlo = 0.1; xhi = 1000; }
    if (!isFinite(ylo)) ylo = yhi / 1000;
    xlo = Math.pow(10, Math.floor(log10(xlo))); xhi = Math.pow(10, Math.ceil(log10(xhi)));
    ylo = Math.pow(10, Math.floor(log10(ylo))); yhi = Math.pow(10, Math.ceil(log10(yhi * 1.01)));
    if (xhi <= xlo) xhi = xlo * 10;
    if (yhi <= ylo) yhi = ylo * 10;
    xs = function (v) { return L + (log10(v) - log10(xlo)) / (log10(xhi) - log10(xlo)) * (W - L - R); };
    ys = function (v) { return H - B - (log10(v) - log10(ylo)) / (log10(yhi) - log10(ylo)) * (H - T - B); };
    svg = s('svg', { cls: 'gp-chart', viewBox: '0 0 ' + W + ' ' + H, 'data-gp-chart': 'roofline', role: 'img', 'aria-label': 'roofline: achieved TFLOP/s against arithmetic intensity' });
    for (d = log10(xlo); d <= log10(xhi) + 1e-9; d++) {
      svg.appendChild(s('line', { cls: 'gp-axis', x1: xs(Math.pow(10, d)), x2: xs(Math.pow(10, d)), y1: T, y2: H - B }));
      svg.appendChild(s('text', { x: xs(Math.pow(10, d)), y: H - B + 14, 'text-anchor': 'middle', text: decade(Math.pow(10, d)) }));
    }
    for (d = log10(ylo); d <= log10(yhi) + 1e-9; d++) {
      svg.appendChild(s('line', { cls: 'gp-axis', x1: L, x2: W - R, y1: ys(Math.pow(10, d)), y2: ys(Math.pow(10, d)) }));
      svg.appendChild(s('text', { x: L - 6, y: ys(Math.pow(10, d)) + 4, 'text-anchor': 'end', text: decade(Math.pow(10, d)) }));
    }
    svg.appendChild(s('text', { x: (L + W - R) / 2, y: H - 6, 'text-anchor': 'middle', text: 'arithmetic intensity (FLOP/byte)' }));
    svg.appendChild(s('text', { x: 14, y: (T + H - B) / 2, 'text-anchor': 'middle', transform: 'rotate(-90 14 ' + (T + H - B) / 2 + ')', text: 'achieved TFLOP/s' }));
    /* the roofs: TFLOP/s = min(peak, intensity x TB/s) */
    roofs.forEach(function (p) {
      var ridge = num(bw) && bw > 0 ? p[1] / bw : xlo, x0 = xs(Math.max(xlo, ridge)), y = ys(p[1]);
      svg.appendChild(s('line', { cls: 'gp-roof', x1: x0, x2: W - R, y1: y, y2: y, 'data-roof': p[0], 'data-value': p[1] }, s('title', { text: p[0] + ' peak ' + fmtRate(p[1]) + ' TFLOP/s' })));
      svg.appendChild(s('text', { x: W - R - 4, y: y - 4, 'text-anchor': 'end', text: p[0] + ' ' + fmtRate(p[1]) + ' TFLOP/s' }));
      if (num(bw) && bw > 0 && ridge > xlo) {
        var xa = xlo, ya = xlo * bw;
        if (ya < ylo) { xa = ylo / bw; ya = ylo; }
        svg.appendChild(s('line', { cls: 'gp-roof gp-memroof', x1: xs(xa), y1: ys(ya), x2: x0, y2: y, 'data-roof': 'memory', 'data-value': bw }, s('title', { text: 'memory ' + fmtRate(bw) + ' TB/s' })));
      }
    });
    for (i = 0; i < pts.length; i++) {
      var o = pts[i], rr = 3 + 13 * Math.sqrt(maxT > 0 && num(o.gpu_time_ns) ? o.gpu_time_ns / maxT : 0);
      svg.appendChild(s('circle', {
        cls: 'gp-op', cx: xs(o.arithmetic_intensity), cy: ys(o.achieved_tflops), r: rr, 'data-op': ops.indexOf(o),
        fill: o.bound === 'memory' ? '#f58518' : '#4c78a8', 'data-gpu-ns': o.gpu_time_ns
      }, s('title', { text: api.shownName(o.name) + ' ' + (o.input_dims || '') + (o.dtype ? ' (' + o.dtype + ')' : '') + '\n' + fmtNs(o.gpu_time_ns) + ' in ' + o.count + ' calls, ' + fmtRate(o.achieved_tflops) + ' TFLOP/s, ' + fmtRate(o.achieved_tbps) + ' TB/s' + (num(o.roofline_pct) ? '\n' + fmtPct(o.roofline_pct) + ' of the roofline, headroom ' + fmtNs(o.headroom_ns) : '') })));
    }
    return svg;
  }

  function rooflineSection(r) {
    var rf = r.roofline, ops, sec, dev, miss, chart, cards;
    if (!rf || typeof rf !== 'object') return;
    ops = objs(rf.ops);
    dev = rf.device || {};
    miss = arr(rf.missing).filter(function (x) { return typeof x === 'string'; });
    sec = api.section('gp-roofline', 'Roofline', true);
    cards = [
      api.card('device', 'Device', dev.matched || dev.name || null, dev.matched || dev.name || 'unknown', dev.matched ? (dev.source === 'option' ? 'peaks given by option' : 'peaks from gpuprof\u2019s table') : 'no peak figures'),
      api.card('coverage', 'Modeled GPU time', rf.coverage_pct, fmtPct(rf.coverage_pct), fmtNs(rf.modeled_gpu_time_ns) + ' of ' + fmtNs(rf.gpu_time_ns)),
      num(rf.mfu_pct) ? api.card('mfu', 'MFU', rf.mfu_pct, fmtPct(rf.mfu_pct), 'model FLOPs over the peak') : null,
      num(dev.peak_tbps) ? api.card('peak_tbps', 'Memory roof', dev.peak_tbps, fmtRate(dev.peak_tbps) + ' TB/s', null) : null
    ];
    sec.appendChild(h('div', { cls: 'gp-cards' }, cards));
    if (miss.length) sec.appendChild(h('p', { cls: 'gp-note', 'data-gp-missing': miss.join(', '), text: 'Missing: ' + miss.map(function (x) { return MISSING[x] ? x + ' (' + MISSING[x] + ')' : x; }).join('; ') + '. ' + (num(dev.peak_tbps) ? '' : 'Without the device\u2019s peaks there are no roofs, no roofline percent and no headroom: nothing is guessed. ') }));
    chart = rooflineChart(rf, ops);
    if (chart) {
      var nz = ops.filter(function (o) { return !(num(o.achieved_tflops) && o.achieved_tflops > 0 && num(o.arithmetic_intensity) && o.arithmetic_intensity > 0); }).length;
      sec.appendChild(h('p', { cls: 'gp-note', text: 'Each point is an op and input shape, its area the op\u2019s GPU time (blue: compute-bound, orange: memory-bound); lines: the device\u2019s roofs for the dtypes of the ops. Log-log.' + (nz ? ' ' + nz + (nz === 1 ? ' op does' : ' ops do') + ' no FLOPs (copies, comparisons): in the table only.' : '') }));
      sec.appendChild(chart);
    }
    sec.appendChild(api.table('roofline-ops', [
      { key: 'name', label: 'Op', fmt: 'str' }, { key: 'input_dims', label: 'Input dims', fmt: 'str' }, { key: 'dtype', label: 'dtype', fmt: 'str' },
      { key: 'count', label: 'Calls', fmt: 'int' }, { key: 'gpu_time_ns', label: 'GPU time', fmt: 'ns' },
      { key: 'achieved_tflops', label: 'TFLOP/s', fmt: 'num' }, { key: 'achieved_tbps', label: 'TB/s', fmt: 'num' },
      { key: 'arithmetic_intensity', label: 'FLOP/byte', fmt: 'num' }, { key: 'bound', label: 'Bound', fmt: 'str' },
      { key: 'roofline_pct', label: 'Of roofline', fmt: 'pct' }, { key: 'headroom_ns', label: 'Headroom', fmt: 'ns', title: 'measured time minus the roofline\u2019s' },
      { key: 'model', label: 'Model', fmt: 'str' }
    ], ops, { title: 'Ops by headroom', what: 'ops', sort: null }));
  }

  /* ---- modules ---- */

  function moduleSection(r) {
    var m = r.modules, sec, classes, tree, n = { drawn: 0, left: 0 };
    if (!m || typeof m !== 'object') return;
    classes = objs(m.classes);
    sec = api.section('gp-modules', 'Modules', true);
    sec.appendChild(h('p', { cls: 'gp-note', text: 'From ' + (m.source === 'annotations' ? 'annotation and NVTX ranges' : 'the trace\u2019s nn.Module events') + (num(m.steps) && m.steps > 0 ? ', over ' + m.steps + ' complete steps' : ', over the whole trace') + '. GPU time: the union of the kernels launched inside each instance.' }));
    sec.appendChild(api.table('module-classes', [
      { key: 'name', label: 'Class', fmt: 'str' }, { key: 'count', label: 'Instances', fmt: 'int' },
      { key: 'gpu_time_ns', label: 'GPU time', fmt: 'ns' }, { key: 'mean_gpu_ns', label: 'Mean', fmt: 'ns' },
      { key: 'std_gpu_ns', label: '\u03c3', fmt: 'ns' }, { key: 'host_time_ns', label: 'Host time', fmt: 'ns' },
      { key: 'step_pct', label: 'Of the step', fmt: 'pct' }, { key: 'slowest_text', label: 'Slowest', fmt: 'str' }
    ], classes.map(function (c) {
      var x = {}, k;
      for (k in c) if (Object.prototype.hasOwnProperty.call(c, k)) x[k] = c[k];
      x.slowest_text = objs(c.slowest).slice(0, 3).map(function (i) { return i.instance + ' ' + fmtNs(i.gpu_time_ns); }).join(', ') || null;
      return x;
    }), { title: 'Module classes', what: 'classes', sort: 'gpu_time_ns' }));
    tree = h('div', { cls: 'gp-modtree', 'data-gp-module-tree': '' });
    function node(x, depth) {
      var kids = objs(x.children), d, i;
      if (n.drawn >= MAX_TREE) { n.left++; kids.forEach(function (k) { node(k, depth + 1); }); return null; }
      n.drawn++;
      var label = [h('span', { cls: 'gp-modname', text: x.name }), ' ', h('span', { cls: 'gp-count', text: (x.class ? x.class + ', ' : '') + (num(x.calls) && x.calls !== 1 ? x.calls + ' calls, ' : '') + 'GPU ' + fmtNs(x.gpu_time_ns) + ', host ' + fmtNs(x.host_time_ns) })];
      if (!kids.length) return h('div', { cls: 'gp-modleaf', 'data-gp-module': x.name, 'data-gpu-ns': x.gpu_time_ns }, label);
      d = h('details', { 'data-gp-module': x.name, 'data-gpu-ns': x.gpu_time_ns, open: depth < 1 }, h('summary', null, label));
      for (i = 0; i < kids.length; i++) append(d, node(kids[i], depth + 1));
      return d;
    }
    function append(p, c) { if (c) p.appendChild(c); }
    objs(m.tree).forEach(function (x) { append(tree, node(x, 0)); });
    sec.appendChild(h('h3', { cls: 'gp-sub', text: 'Module tree' }));
    /* truncated: {max_depth, max_nodes, calls_dropped, nodes_dropped} where the analysis bounded the tree */
    if (m.truncated && typeof m.truncated === 'object') sec.appendChild(h('p', { cls: 'gp-note', 'data-gp-truncated': '', text: 'The analysis bounded the tree (' + api.fmtInt(m.truncated.max_depth) + ' levels, ' + api.fmtInt(m.truncated.max_nodes) + ' nodes): ' + api.fmtInt(m.truncated.nodes_dropped) + ' nodes and ' + api.fmtInt(m.truncated.calls_dropped) + ' calls are not in it.' }));
    if (n.left) sec.appendChild(h('p', { cls: 'gp-note', text: 'The first ' + MAX_TREE + ' modules of the tree are drawn; ' + n.left + ' more are in the JSON.' }));
    sec.appendChild(tree);
  }

  /* ---- compare: a rank group's sections ---- */

  function compareGroup(sec, g, gi) {
    var cp = g.critical_path, sfx = gi ? '-' + gi : '';
    if (cp && typeof cp === 'object') {
      sec.appendChild(api.table('cmp-critpath' + sfx, [
        { key: 'category', label: 'Critical path bound', fmt: 'str' }, { key: 'base_pct', label: 'Base', fmt: 'pct' },
        { key: 'new_pct', label: 'New', fmt: 'pct' }, { key: 'delta_pp', label: '\u0394', fmt: 'spp', sign: true },
        { key: 'base_step_median_pct', label: 'Base median/step', fmt: 'pct' }, { key: 'new_step_median_pct', label: 'New median/step', fmt: 'pct' },
        { key: 'p', label: 'p (steps)', fmt: 'p', title: 'Mann-Whitney U over the steps\u2019 shares' }
      ], objs(cp.bounds), {
        title: 'Critical path: ' + fmtNs(get(cp, 'base.mean_path_ns')) + ' \u2192 ' + fmtNs(get(cp, 'new.mean_path_ns')) + ' per step (p ' + (num(cp.path_p) ? cp.path_p.toFixed(4) : '-') + ' over the steps), bound by ' + words(get(cp, 'base.bound')) + ' \u2192 ' + words(get(cp, 'new.bound')),
        what: 'bounds', filterKey: 'category', sort: null
      }));
    }
    [['modules', 'cmp-modules', 'Module classes', 'classes', 'mean_gpu_ns', 'delta_mean_pct', 'instance'],
      ['roofline', 'cmp-ops', 'Ops', 'ops', 'avg_ns', 'delta_avg_pct', 'call']].forEach(function (t) {
      var d = g[t[0]], cols;
      if (!d || typeof d !== 'object') return;
      cols = [{ key: 'name', label: t[0] === 'modules' ? 'Class' : 'Op', fmt: 'str' }];
      if (t[0] === 'roofline') cols.push({ key: 'input_dims', label: 'Input dims', fmt: 'str' });
      cols = cols.concat([
        { key: 'status', label: 'Status', fmt: 'str', badge: true },
        { key: 'base_count', label: 'Base n', fmt: 'int' }, { key: 'new_count', label: 'New n', fmt: 'int' },
        { key: 'base_' + t[4], label: 'Base per ' + t[6], fmt: 'ns' }, { key: 'new_' + t[4], label: 'New per ' + t[6], fmt: 'ns' },
        { key: t[5], label: '\u0394 per ' + t[6], fmt: 'spct', sign: true }, { key: 'delta_gpu_time_ns', label: '\u0394 GPU time', fmt: 'ns', sign: true }
      ]);
      if (t[0] === 'roofline') cols = cols.concat([
        { key: 'base_achieved_tflops', label: 'Base TFLOP/s', fmt: 'num' }, { key: 'new_achieved_tflops', label: 'New TFLOP/s', fmt: 'num' },
        { key: 'delta_tflops_pct', label: '\u0394 TFLOP/s', fmt: 'spct' }
      ]);
      sec.appendChild(api.table(t[1] + sfx, cols, objs(d.rows), {
        title: t[2] + ': ' + api.fmtInt(get(d, 'added.' + t[3])) + ' added, ' + api.fmtInt(get(d, 'removed.' + t[3])) + ' removed, ' + api.fmtInt(d.slower) + ' slower, ' + api.fmtInt(d.faster) + ' faster per ' + t[6] + ' (\u00b1' + api.fmtNum(d.threshold_pct, 2) + '%)' + (t[0] === 'roofline' ? '; device ' + (d.base_device || '?') + ' \u2192 ' + (d.new_device || '?') : ''),
        what: t[3], sort: null
      }));
    });
  }

  return {
    analyze: function (r) {
      critpathSection(r);
      rooflineSection(r);
      moduleSection(r);
    },
    compareGroup: compareGroup
  };
};
