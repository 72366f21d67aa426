// view.js — the page `tsched view` writes (docs/view.md): one column per
// version of the chosen capture, each with its input graph laid out by ELK
// (nodes coloured by the kernel they end up in; kernels collapse to one box),
// its kernels (AST, explain text) and its recorded rewrite steps. The data is
// the JSON in <script id="tsched-data">; nothing is fetched.
"use strict";
(function () {
  const DATA = JSON.parse(document.getElementById("tsched-data").textContent);
  const PALETTE = ["#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462",
                   "#b3de69", "#fccde5", "#bc80bd", "#ccebc5", "#ffed6f", "#a6cee3"];
  const EXPAND_ALL_BELOW = 400;   // graphs with fewer nodes start with every kernel open
  const ELK_MAX_BOXES = 250;      // more boxes than this: the overview is laid out by quickLayout, and an
                                  // open kernel is drawn with its neighbours only (ELK takes minutes there)
  const SVGNS = "http://www.w3.org/2000/svg";
  const elk = new ELK();
  const columns = [];
  let pending = 0;

  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") e.className = v; else if (k.startsWith("on")) e.addEventListener(k.slice(2), v); else e.setAttribute(k, v);
    }
    for (const k of kids) e.append(k);
    return e;
  }
  function svg(tag, attrs) {
    const e = document.createElementNS(SVGNS, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    return e;
  }
  const colour = (k) => (k < 0 ? "#eeeeee" : PALETTE[k % PALETTE.length]);
  const FLAG_REALIZED = 1, FLAG_SHARED = 2, FLAG_MOVEMENT = 4, FLAG_OUT = 8;

  // ---- one column: one capture of one version ----
  class Column {
    constructor(view, host) {
      this.v = view;
      this.n = view.nodes.length;
      this.open = new Set();        // expanded kernels
      this.selKernel = -1;
      this.hl = new Set();          // highlighted input nodes (the selected step's)
      this.found = new Set();
      for (const part of (view.explain || "").split(/\n(?=kernel \d+)/)) {   // explain's text, kernel by kernel
        const m = /^kernel (\d+)/.exec(part);
        if (m && view.kernels[+m[1]]) view.kernels[+m[1]].explain = part;
      }
      const nk = view.kernels.length;
      if (this.n < EXPAND_ALL_BELOW) for (let k = 0; k < nk; k++) this.open.add(k);
      this.big = nk > ELK_MAX_BOXES;
      this.origin = this.traceOrigins();
      this.build(host);
    }

    // The input node each trace node stands for, or -1: itself for the input's
    // own nodes (0.10.2: the first shared_input); for the node a step returned,
    // the origin of the node it rewrote (the two now stand for one value); for
    // a node rebuilt with new sources (graph_rewrite's UOp(n.op, n.dtype,
    // new_src, n.arg)), the input node of the same op, dtype and arg whose sources stand for
    // the same values.
    traceOrigins() {
      const t = this.v.trace;
      if (!t) return [];
      const n = t.shared_input, origin = new Array(t.nodes.length).fill(-1);
      if (!n) return origin;
      const opOf = (i) => t.nodes[i][0].replace(/^\d+ /, "");   // op, dtype and arg
      const parent = [...Array(n).keys()];
      const find = (x) => { while (parent[x] !== x) x = parent[x] = parent[parent[x]]; return x; };
      for (let i = 0; i < n; i++) origin[i] = i;
      for (let changed = true, pass = 0; changed && pass < 100; pass++) {
        changed = false;
        const byKey = new Map();
        for (let i = 0; i < n; i++) {
          const k = opOf(i) + "|" + t.nodes[i][1].map(find).join(",");
          if (!byKey.has(k)) byKey.set(k, i);
        }
        for (let i = n; i < t.nodes.length; i++) {
          if (origin[i] >= 0) continue;
          const src = t.nodes[i][1].map((s) => origin[s]);
          if (src.some((s) => s < 0)) continue;
          const o = byKey.get(opOf(i) + "|" + src.map(find).join(","));
          if (o !== undefined) { origin[i] = o; changed = true; }
        }
        for (const [, , , steps] of t.rewrites) {
          for (const [b, a] of steps) {
            if (origin[b] < 0) continue;
            if (origin[a] < 0) { origin[a] = origin[b]; changed = true; }
            else if (find(origin[a]) !== find(origin[b])) { parent[find(origin[b])] = find(origin[a]); changed = true; }
          }
        }
      }
      return origin;
    }

    build(host) {
      const v = this.v;
      const head = el("div", {class: "colhead"},
        el("b", {}, v.generation), ` ${v.kernels.length} kernel${v.kernels.length === 1 ? "" : "s"}, ${this.n} nodes — ${v.source}`);
      if (v.error) head.append(el("div", {class: "error"}, "raised " + v.error));
      this.svg = svg("svg", {class: "graph"});
      this.viewport = svg("g", {});
      this.svg.append(this.viewport);
      this.graphBox = el("div", {class: "graphbox"}, this.svg);
      this.status = el("div", {class: "status"}, "laying out...");
      const tabs = el("div", {class: "tabs"});
      this.lists = {kernels: el("div", {class: "list"}), steps: el("div", {class: "list"})};
      for (const name of ["kernels", "steps"]) {
        const b = el("button", {class: "tab", onclick: () => this.showTab(name)}, name === "kernels" ? "Kernels" : "Steps");
        b.dataset.tab = name;
        tabs.append(b);
      }
      this.detail = el("pre", {class: "detail"}, "Select a kernel, a step or a node.");
      this.root = el("div", {class: "column"}, head, this.graphBox, this.status, tabs,
                     el("div", {class: "panes"}, this.lists.kernels, this.lists.steps), this.detail);
      this.root.dataset.kernels = String(v.kernels.length);
      this.root.dataset.generation = v.generation;
      host.append(this.root);
      this.fillKernels();
      this.fillSteps();
      this.showTab("kernels");
      this.enablePanZoom();
    }

    showTab(name) {
      for (const [k, l] of Object.entries(this.lists)) l.style.display = k === name ? "" : "none";
      for (const b of this.root.querySelectorAll(".tab")) b.classList.toggle("on", b.dataset.tab === name);
    }

    // ---- lists ----
    fillKernels() {
      const l = this.lists.kernels;
      this.v.kernels.forEach((k, i) => {
        const row = el("div", {class: "row kernel", onclick: () => this.selectKernel(i)},
          el("span", {class: "swatch", style: `background:${colour(i)}`}), ` ${i} ${k.kind} ${k.ops || ""} ${k.writes || ""}`);
        row.dataset.kernel = String(i);
        l.append(row);
      });
      if (!this.v.kernels.length) l.append(el("div", {class: "row"}, "no kernels"));
    }

    fillSteps() {
      const l = this.lists.steps, t = this.v.trace;
      if (!t) { l.append(el("div", {class: "row"}, this.v.trace_note || "no recorded trace")); return; }
      if (this.v.trace_source === "tsched")
        l.append(el("div", {class: "row note"}, "no recorded trace: these are the steps tsched's C scheduler takes"));
      const filter = el("input", {class: "filter", placeholder: "filter steps (rule, op, node)"});
      l.append(filter);
      const rows = [];
      t.rewrites.forEach(([loc, sink, bottomUp, steps], r) => {
        const head = el("div", {class: "row rewrite"}, `rewrite ${r}  ${loc}  sink ${t.nodes[sink][0]}${bottomUp ? "  bottom_up" : ""}  (${steps.length} step${steps.length === 1 ? "" : "s"})`);
        l.append(head);
        steps.forEach(([b, a, rule], j) => {
          const text = `${r}.${j}  ${t.rules[rule][0]}  ${t.nodes[b][0]} -> ${t.nodes[a][0]}`;
          const row = el("div", {class: "row step", onclick: () => this.selectStep(r, j)}, text);
          row.dataset.step = `${r}.${j}`;
          row.dataset.search = (text + " " + t.rules[rule][1]).toLowerCase();
          rows.push(row);
          l.append(row);
        });
      });
      filter.addEventListener("input", () => {
        const q = filter.value.toLowerCase();
        for (const row of rows) row.style.display = !q || row.dataset.search.includes(q) ? "" : "none";
      });
    }

    selectKernel(k) {
      this.selKernel = k;
      this.hl.clear();
      if (!this.open.has(k)) { this.open.add(k); this.layout(); } else this.paint();
      const kk = this.v.kernels[k];
      this.detail.textContent = `${kk.explain || ""}\n--- AST (as tinygrad prints it)\n${kk.ast || ""}`;
      for (const r of this.lists.kernels.children) r.classList.toggle("on", r.dataset.kernel === String(k));
      this.centerOn([...this.v.nodes.keys()].filter((i) => this.v.nodes[i][2] === k));
    }

    selectStep(r, j) {
      const t = this.v.trace;
      const [loc, , , steps] = t.rewrites[r];
      const [b, a, rule] = steps[j];
      this.showTab("steps");
      for (const row of this.lists.steps.querySelectorAll(".step")) {
        row.classList.toggle("on", row.dataset.step === `${r}.${j}`);
        if (row.dataset.step === `${r}.${j}`) row.scrollIntoView({block: "nearest"});
      }
      this.hl = new Set([b, a].map((i) => this.origin[i]).filter((i) => i >= 0));
      let text = `step ${r}.${j} of graph_rewrite at ${loc}\nrule ${t.rules[rule][0]}\n  ${t.rules[rule][1]}\n\nbefore:\n${this.tree(b)}\nafter:\n${this.tree(a)}`;
      if (!t.shared_input) text += "\n(the trace's nodes are the scheduler's own UOp graph, not the input's: nothing to highlight)";
      else text += `\nhighlighted in the graph: ${[...this.hl].map((i) => this.v.nodes[i][0]).join(", ") || "no input node (a node the scheduler made)"}`;
      this.detail.textContent = text;
      let relayout = false;
      for (const i of this.hl) { const k = this.v.nodes[i][2]; if (k >= 0 && !this.open.has(k)) { this.open.add(k); relayout = true; } }
      if (relayout) this.layout(); else this.paint();
      this.centerOn([...this.hl]);
    }

    tree(i, depth = 0, seen = new Set()) {
      const t = this.v.trace, [label, src] = t.nodes[i];
      let s = "  ".repeat(depth + 1) + label + "\n";
      if (depth >= 3) return src.length ? s.replace(/\n$/, " ...\n") : s;
      for (const c of src) s += this.tree(c, depth + 1, seen);
      return s;
    }

    selectNode(i) {
      const [label, src, k, w, flags] = this.v.nodes[i];
      const parts = [label, k >= 0 ? `computed in kernel ${k}` : "in no kernel", w >= 0 ? `stored by kernel ${w}` : "",
                     flags & FLAG_REALIZED ? "realized before the call" : "", flags & FLAG_SHARED ? "also computed in another kernel" : "",
                     `sources: ${src.join(", ") || "none"}`];
      const t = this.v.trace;
      if (t && t.shared_input) {
        const touched = [];
        t.rewrites.forEach(([loc, , , steps], r) => steps.forEach(([b, a, rule], j) => {
          if (this.origin[b] === i || this.origin[a] === i) touched.push(`${r}.${j} ${t.rules[rule][0]}`);
        }));
        parts.push(touched.length ? "rewritten in steps: " + touched.join(", ") : "no step rewrote it");
      }
      this.detail.textContent = parts.filter(Boolean).join("\n");
    }

    search(q) {
      this.found.clear();
      if (q) {
        const num = /^#?(\d+)$/.exec(q);
        this.v.nodes.forEach((nd, i) => { if (num ? i === +num[1] : nd[0].toLowerCase().includes(q.toLowerCase())) this.found.add(i); });
      }
      let relayout = false;
      for (const i of this.found) { const k = this.v.nodes[i][2]; if (k >= 0 && !this.open.has(k)) { this.open.add(k); relayout = true; } }
      if (relayout) this.layout(); else this.paint();
      this.centerOn([...this.found]);
      return this.found.size;
    }

    // ---- graph ----
    // What is drawn: an open kernel as a cluster of its nodes, a closed one as
    // one box; nodes in no kernel only where a drawn node reads them.
    visibleGraph() {
      const v = this.v, nodes = v.nodes;
      const rep = new Array(this.n).fill(null);
      // a big graph with kernels open: only those and the kernels next to them
      const shown = this.big && this.open.size ? new Set(this.open) : null;
      if (shown) {
        for (let i = 0; i < this.n; i++) {
          const k = nodes[i][2];
          for (const s of nodes[i][1]) {
            const ks = nodes[s][2];
            if (this.open.has(k) && ks >= 0) shown.add(ks);
            if (this.open.has(ks) && k >= 0) shown.add(k);
          }
        }
      }
      for (let i = 0; i < this.n; i++) {
        const k = nodes[i][2];
        if (k >= 0 && (!shown || shown.has(k))) rep[i] = this.open.has(k) ? "n" + i : "k" + k;
      }
      for (let i = 0; i < this.n; i++) {
        if (rep[i] === null || rep[i][0] !== "n") continue;
        for (const s of nodes[i][1]) if (nodes[s][2] < 0) rep[s] = "n" + s;
      }
      if (this.n < EXPAND_ALL_BELOW) for (let i = 0; i < this.n; i++) if (rep[i] === null) rep[i] = "n" + i;
      const edges = new Map();
      for (let i = 0; i < this.n; i++) {
        if (rep[i] === null) continue;
        for (const s of nodes[i][1]) {
          if (rep[s] === null || rep[s] === rep[i]) continue;
          const id = rep[s] + ">" + rep[i];
          if (!edges.has(id)) edges.set(id, {id: "e" + edges.size, sources: [rep[s]], targets: [rep[i]]});
        }
      }
      return {rep, edges: [...edges.values()]};
    }

    layout() {
      const {rep, edges} = this.visibleGraph();
      this.rep = rep;
      const clusters = new Map(), top = [];
      const box = (id, label) => ({id, width: Math.min(240, 12 + 6.6 * label.length), height: 22, labels: [{text: label}]});
      this.v.kernels.forEach((k, i) => {
        if (this.open.has(i)) {
          const c = {id: "c" + i, children: [], labels: [{text: `kernel ${i}`}],
                     layoutOptions: {"elk.padding": "[top=22,left=8,bottom=8,right=8]"}};
          clusters.set(i, c);
          top.push(c);
        } else if (rep.includes("k" + i)) {
          top.push(box("k" + i, `kernel ${i}: ${k.ops || k.kind}`.slice(0, 36)));
        }
      });
      for (let i = 0; i < this.n; i++) {
        if (rep[i] !== "n" + i) continue;
        const b = box("n" + i, this.v.nodes[i][0].slice(0, 36));
        const k = this.v.nodes[i][2];
        (k >= 0 && clusters.has(k) ? clusters.get(k).children : top).push(b);
      }
      const graph = {id: "root", children: top, edges,
                     layoutOptions: {"elk.algorithm": "layered", "elk.direction": "DOWN",
                                     "elk.hierarchyHandling": "INCLUDE_CHILDREN",
                                     "elk.layered.spacing.nodeNodeBetweenLayers": "24", "elk.spacing.nodeNode": "12",
                                     "elk.layered.thoroughness": top.length + edges.length > 3000 ? "1" : "7"}};
      const t0 = performance.now();
      if (top.length > ELK_MAX_BOXES && !clusters.size) {
        this.draw(quickLayout(top, edges));
        this.status.textContent = `${top.length} kernels, ${edges.length} edges, layered in ${Math.round(performance.now() - t0)} ms — ` +
          "click a kernel box to open it with its neighbours; wheel zooms, drag pans";
        this.root.dataset.laidOut = "1";
        return;
      }
      this.status.textContent = `laying out ${top.length} boxes, ${edges.length} edges...`;
      pending++;
      elk.layout(graph).then((g) => {
        this.draw(g);
        this.status.textContent = `${top.length} boxes, ${edges.length} edges, laid out in ${Math.round(performance.now() - t0)} ms — ` +
          "click a kernel box to open it, a cluster title to close it; wheel zooms, drag pans";
        this.root.dataset.laidOut = "1";
      }).catch((e) => { this.status.textContent = "layout failed: " + e; })
        .finally(() => { if (--pending === 0) document.body.dataset.ready = "1"; });
    }

    draw(g) {
      const vp = this.viewport;
      vp.replaceChildren();
      this.boxes = new Map();
      const edgeLayer = svg("g", {class: "edges"}), nodeLayer = svg("g", {});
      const drawBox = (b, ox, oy, parent) => {
        const x = ox + b.x, y = oy + b.y;
        const id = b.id, kind = id[0], num = +id.slice(1);
        if (kind === "c") {
          const r = svg("rect", {x, y, width: b.width, height: b.height, rx: 6, class: "cluster", fill: colour(num), "fill-opacity": 0.35});
          const title = svg("text", {x: x + 6, y: y + 15, class: "ctitle"});
          title.textContent = `kernel ${num}  (click to close)`;
          title.addEventListener("click", (e) => { e.stopPropagation(); this.open.delete(num); this.layout(); });
          parent.append(r, title);
          for (const c of b.children || []) drawBox(c, x, y, parent);
          return;
        }
        const gEl = svg("g", {class: kind === "k" ? "kbox" : "node", transform: `translate(${x},${y})`});
        const nd = kind === "n" ? this.v.nodes[num] : null;
        const fill = kind === "k" ? colour(num) : colour(nd[2]);
        const rect = svg("rect", {width: b.width, height: b.height, rx: 3, fill});
        if (nd && nd[3] >= 0) rect.classList.add("writes");
        if (nd && nd[4] & FLAG_SHARED) rect.classList.add("shared");
        if (nd && nd[4] & FLAG_REALIZED) rect.classList.add("realized");
        const label = svg("text", {x: 5, y: 15});
        label.textContent = b.labels[0].text;
        gEl.append(rect, label);
        if (kind === "k") { gEl.dataset.kernel = String(num); gEl.addEventListener("click", () => this.selectKernel(num)); }
        else { gEl.dataset.node = String(num); gEl.addEventListener("click", () => this.selectNode(num)); }
        this.boxes.set(id, {g: gEl, x, y, w: b.width, h: b.height});
        nodeLayer.append(gEl);
      };
      for (const c of g.children) drawBox(c, 0, 0, nodeLayer);
      for (const e of g.edges || []) {
        for (const s of e.sections || []) {
          const pts = [s.startPoint, ...(s.bendPoints || []), s.endPoint];
          // edges of INCLUDE_CHILDREN layouts are relative to their container
          const c = e.container && e.container !== "root" ? this.containerOffset(g, e.container) : {x: 0, y: 0};
          edgeLayer.append(svg("polyline", {points: pts.map((p) => `${p.x + c.x},${p.y + c.y}`).join(" "), class: "edge"}));
        }
      }
      vp.append(edgeLayer, nodeLayer);
      this.extent = {w: g.width || 100, h: g.height || 100};
      if (!this.view) this.fit();
      else this.applyView();
      this.paint();
    }

    containerOffset(g, id) {
      for (const c of g.children) if (c.id === id) return {x: c.x, y: c.y};
      return {x: 0, y: 0};
    }

    paint() {
      if (!this.boxes) return;
      for (const [id, b] of this.boxes) {
        const num = +id.slice(1);
        if (id[0] === "n") {
          b.g.classList.toggle("hl", this.hl.has(num));
          b.g.classList.toggle("found", this.found.has(num));
          b.g.classList.toggle("sel", this.selKernel >= 0 && this.v.nodes[num][2] === this.selKernel);
        } else {
          b.g.classList.toggle("sel", num === this.selKernel);
          const hidden = [...this.hl, ...this.found].some((i) => this.v.nodes[i][2] === num);
          b.g.classList.toggle("hl", hidden);
        }
      }
    }

    // ---- zoom and pan: the viewport's transform ----
    fit() {
      const W = this.graphBox.clientWidth || 600, H = this.graphBox.clientHeight || 400;
      const s = Math.min(W / (this.extent.w + 20), H / (this.extent.h + 20), 1.5);
      this.view = {s, x: 10 * s, y: 10 * s};
      this.applyView();
    }
    applyView() { this.viewport.setAttribute("transform", `translate(${this.view.x},${this.view.y}) scale(${this.view.s})`); }
    centerOn(ids) {
      if (!this.boxes || !ids.length) return;
      const bs = ids.map((i) => this.boxes.get("n" + i) || this.boxes.get("k" + this.v.nodes[i][2])).filter(Boolean);
      if (!bs.length) return;
      const cx = bs.reduce((a, b) => a + b.x + b.w / 2, 0) / bs.length, cy = bs.reduce((a, b) => a + b.y + b.h / 2, 0) / bs.length;
      const W = this.graphBox.clientWidth || 600, H = this.graphBox.clientHeight || 400;
      const s = Math.max(this.view.s, 0.8);
      this.view = {s, x: W / 2 - cx * s, y: H / 2 - cy * s};
      this.applyView();
    }
    enablePanZoom() {
      const box = this.graphBox;
      box.addEventListener("wheel", (e) => {
        e.preventDefault();
        const r = box.getBoundingClientRect(), mx = e.clientX - r.left, my = e.clientY - r.top;
        const f = Math.exp(-e.deltaY * 0.0015), v = this.view;
        this.view = {s: v.s * f, x: mx - (mx - v.x) * f, y: my - (my - v.y) * f};
        this.applyView();
      }, {passive: false});
      let drag = null;
      box.addEventListener("mousedown", (e) => { drag = {x: e.clientX, y: e.clientY, vx: this.view.x, vy: this.view.y}; });
      window.addEventListener("mouseup", () => { drag = null; });
      window.addEventListener("mousemove", (e) => {
        if (!drag) return;
        this.view = {...this.view, x: drag.vx + e.clientX - drag.x, y: drag.vy + e.clientY - drag.y};
        this.applyView();
      });
    }
  }

  // A layered drawing in linear time for overviews too big for ELK: each box
  // one layer below its lowest source (longest path), boxes in a layer
  // ordered by their sources' mean position, edges straight.
  function quickLayout(boxes, edges) {
    const index = new Map(boxes.map((b, i) => [b.id, i]));
    const preds = boxes.map(() => []), succs = boxes.map(() => []);
    for (const e of edges) {
      const a = index.get(e.sources[0]), b = index.get(e.targets[0]);
      if (a !== undefined && b !== undefined) { preds[b].push(a); succs[a].push(b); }
    }
    const layer = new Array(boxes.length).fill(0), indeg = preds.map((p) => p.length), queue = [];
    indeg.forEach((d, i) => { if (!d) queue.push(i); });
    for (let q = 0; q < queue.length; q++) {
      const v = queue[q];
      for (const w of succs[v]) { layer[w] = Math.max(layer[w], layer[v] + 1); if (--indeg[w] === 0) queue.push(w); }
    }
    const layers = [];
    boxes.forEach((b, i) => (layers[layer[i]] = layers[layer[i]] || []).push(i));
    const x = new Array(boxes.length).fill(0), GAP = 14, ROW = 60;
    let width = 0;
    layers.forEach((row, l) => {
      const key = (i) => (preds[i].length ? preds[i].reduce((s, p) => s + x[p], 0) / preds[i].length : i);
      row.sort((a, b) => key(a) - key(b));
      let cx = 0;
      for (const i of row) { x[i] = cx; cx += boxes[i].width + GAP; }
      width = Math.max(width, cx);
    });
    const children = boxes.map((b, i) => ({...b, x: x[i], y: layer[i] * ROW}));
    const out = [];
    for (const e of edges) {
      const a = index.get(e.sources[0]), b = index.get(e.targets[0]);
      if (a === undefined || b === undefined) continue;
      const A = children[a], B = children[b];
      out.push({sections: [{startPoint: {x: A.x + A.width / 2, y: A.y + A.height}, endPoint: {x: B.x + B.width / 2, y: B.y}}]});
    }
    return {children, edges: out, width, height: layers.length * ROW};
  }

  // ---- the page ----
  function showGroup(gi) {
    const host = document.getElementById("columns");
    host.replaceChildren();
    columns.length = 0;
    const group = DATA.groups[gi];
    document.getElementById("groupname").textContent = group.name;
    for (const v of group.views) columns.push(new Column(v, host));
    for (const c of columns) c.layout();
    applyHash();
  }

  // #step=R.S selects that step in every column that has it; #kernel=K a kernel; #search=TEXT searches
  function applyHash() {
    const h = new URLSearchParams(location.hash.slice(1));
    for (const c of columns) {
      if (h.has("kernel") && +h.get("kernel") < c.v.kernels.length) c.selectKernel(+h.get("kernel"));
      if (h.has("step") && c.v.trace) {
        const [r, s] = h.get("step").split(".").map(Number);
        if (c.v.trace.rewrites[r] && c.v.trace.rewrites[r][3][s]) c.selectStep(r, s);
      }
      if (h.has("search")) c.search(h.get("search"));
    }
  }

  function main() {
    document.title = "tsched view: " + DATA.title;
    const pick = el("select", {onchange: () => showGroup(+pick.value)});
    DATA.groups.forEach((g, i) => pick.append(el("option", {value: String(i)}, `${g.name} (${g.views.map((v) => v.generation).join(", ")})`)));
    const find = el("input", {placeholder: "search nodes: #12, ADD, REDUCE ...", class: "search"});
    const found = el("span", {class: "found-count"});
    find.addEventListener("keydown", (e) => {
      if (e.key !== "Enter") return;
      found.textContent = columns.map((c) => c.search(find.value.trim())).join(" / ") + " found";
    });
    const fit = el("button", {onclick: () => columns.forEach((c) => { c.view = null; c.fit(); })}, "fit");
    document.body.append(
      el("header", {}, el("b", {}, "tsched view"), " ", el("span", {id: "groupname"}), " ", pick, " ", find, " ", found, " ", fit),
      el("main", {id: "columns"}));
    document.body.dataset.groups = String(DATA.groups.length);
    if (!DATA.groups.length) { document.body.dataset.ready = "1"; return; }
    const h = new URLSearchParams(location.hash.slice(1));
    const start = Math.max(0, DATA.groups.findIndex((g) => g.name === h.get("name")));
    pick.value = String(start);
    showGroup(start);
  }
  main();
})();
