// Copyright 2026 bt_executive developers
// SPDX-License-Identifier: Apache-2.0
// bt-executive view: the tree as a top-down graph (boxes, edges, status colours).
//
// Fed by app.js (window.btView and the 'bt-snapshot' / 'bt-fold' events): the graph
// shares the outline's folding, so folding a subtree in one folds it in the other.
//
// Layout: the page sizes the boxes (their text), the view server places them with
// Graphviz's dot (GET layout?c=...&w=...&h=..., bt_executive/viewers/graph_layout.py)
// and draws the edges. A layout is asked for once per structure and folding (answers
// are cached on both sides); a snapshot of the same structure only recolours the boxes.
//
// Fit: the whole tree is shown if its labels stay legible (11 px or more) in the
// visible part of the graph; otherwise fit folds branches from the deepest level that
// leaves the tree legible, never the running branch, then unfolds again, one level at
// a time, the smallest of them that still fit. A subtree fit folded unfolds when the
// running leaf is in it. Zoomed out below a legible size the boxes keep their colours
// and the labels are hidden (semantic zoom): a label on screen is always readable.
'use strict';

(function () {
  const FONT_PX = 12;
  const LEGIBLE_PX = 11;
  const LEGIBLE = LEGIBLE_PX / FONT_PX; // the smallest scale that draws labels
  const BOX_H = 36;
  const BADGE_H = 15; // the third line of a folded box: "+12 · 1 running"
  const PAD_X = 9;
  const MIN_W = 56;
  const MAX_W = 210;
  const MARGIN = 14;
  const MIN_SCALE = 0.02;
  const MAX_SCALE = 3;
  const FIT_MAX = 1; // fit never enlarges the boxes
  const FAMILY = 'system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif';
  const FONT = `${FONT_PX}px ${FAMILY}`;
  const BOLD = `600 ${FONT_PX}px ${FAMILY}`;
  const CACHE = 64;
  const RANK_PITCH = 62; // graph_layout.py: RANK_HEIGHT + RANK_GAP
  const ROW_GAP = 6; // graph_layout.py: ROW_GAP
  const NODE_GAP = 12; // graph_layout.py: NODE_GAP
  const REFINE_TRIES = 12; // layouts fit may ask for to unfold branches it folded

  const $ = (id) => document.getElementById(id);
  const graph = {
    items: new Map(), // id -> {g, rect, tip, edge, badge, node, kids, w, wFolded, x, y, ...}
    rootId: null,
    scale: 1,
    tx: 0,
    ty: 0,
    width: 0,
    height: 0,
    // 'fold': fit (folding as needed) whenever the tree or the window changes; 'scale':
    // only rescale to show what is unfolded (the user folded something); null: the
    // user's pan and zoom stay
    fitMode: 'fold',
    fitFolds: new Set(), // ids folded by the last fit (the next fit starts without them)
    fitPath: '', // the active path the last fit kept open
    rows: 8, // the most boxes in a column of a stacked block (from the window's height)
    cache: new Map(), // query -> Promise of a layout
    requests: 0, // layouts asked from the server (a structure is laid out once)
    applied: 0, // layouts put on screen
    query: '', // the layout on screen
    seq: 0, // the latest layout asked for: older answers are dropped
    fitSeq: 0,
    fitting: false, // a fit is under way (a relayout would undo its folds)
    refit: false, // fit again when the one under way ends
    quiet: false, // the folds being applied are fit's own
    stale: true, // the structure or folding changed while the graph was hidden
    last: null, // {ms, engine, boxes, roundtrip} of the last layout
    error: '',
  };
  let measureContext = null;
  let edgesGroup = null;
  let boxesGroup = null;

  function svg(tag, attrs, text) {
    // the SVG namespace, from the page's own <svg> (no URL in this file)
    const element = document.createElementNS($('graph-svg').namespaceURI, tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      element.setAttribute(name, String(value));
    }
    if (text !== undefined) element.textContent = String(text);
    return element;
  }

  function textWidth(text, font) {
    if (!measureContext) measureContext = document.createElement('canvas').getContext('2d');
    measureContext.font = font;
    return measureContext.measureText(text).width;
  }

  function clip(text, font, width) {
    if (textWidth(text, font) <= width) return text;
    let low = 0;
    let high = text.length;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (textWidth(text.slice(0, mid) + '…', font) <= width) low = mid; else high = mid - 1;
    }
    return text.slice(0, low) + '…';
  }

  // ---- building the boxes ------------------------------------------------------------

  function build(snapshot) {
    edgesGroup = svg('g', {class: 'edges'});
    boxesGroup = svg('g', {class: 'boxes'});
    $('graph-world').replaceChildren(edgesGroup, boxesGroup);
    graph.items = new Map();
    const ids = new Set(snapshot.nodes.map((node) => node.id));
    for (const node of snapshot.nodes) {
      const title = node.name && node.name !== node.type ? node.name : '';
      const top = title || node.type;
      const bottom = title ? node.type : node.kind;
      const kids = node.children.filter((child) => ids.has(child));
      const width = Math.ceil(Math.min(MAX_W, Math.max(MIN_W, PAD_X * 2 +
        Math.max(textWidth(top, BOLD), textWidth(bottom, FONT)))));
      const g = svg('g', {class: 'gnode'});
      g.dataset.graphId = node.id;
      g.dataset.kind = node.kind;
      const tip = svg('title', {}, [node.id, node.loc].filter(Boolean).join('\n'));
      g.appendChild(tip);
      const rect = svg('rect', {x: -width / 2, y: 0, width, height: BOX_H, rx: 6});
      g.appendChild(rect);
      g.appendChild(svg('text', {class: 'title', x: 0, y: 15.5},
        clip(top, BOLD, width - 2 * PAD_X)));
      g.appendChild(svg('text', {class: 'sub', x: 0, y: 30},
        clip(bottom, FONT, width - 2 * PAD_X)));
      let badge = null;
      if (kids.length) {
        badge = svg('text', {class: 'badge', x: 0, y: 44.5});
        g.appendChild(badge);
        g.addEventListener('click', (event) => {
          event.stopPropagation();
          if (performance.now() - (graph.draggedAt || -1e9) < 250) return;
          const api = window.btView;
          api.setCollapsed(node.id, !api.view.collapsed.has(node.id));
        });
      }
      const edge = node.parent ? svg('path', {class: 'edge'}) : null;
      if (edge) {
        edge.dataset.graphEdge = node.id;
        edge.style.display = 'none';
        edgesGroup.appendChild(edge);
      }
      g.style.display = 'none'; // until a layout places it
      boxesGroup.appendChild(g);
      graph.items.set(node.id, {g, rect, tip, edge, badge, node, kids, w: width, wFolded: width,
        x: 0, y: 0, h: BOX_H, shown: false, folded: false, status: null, hidden: 0});
    }
    graph.rootId = snapshot.root;
    const order = shownOrder(new Set()); // parents first: children are counted before them
    for (let index = order.length - 1; index >= 0; index--) {
      const item = graph.items.get(order[index]);
      if (!item.kids.length) continue;
      item.hidden = item.kids.reduce((sum, kid) => sum + 1 + graph.items.get(kid).hidden, 0);
      // room for the widest badge this box can show
      const widest = `+${item.hidden} · ${item.hidden} running`;
      item.wFolded = Math.ceil(Math.min(MAX_W, Math.max(item.w,
        PAD_X * 2 + textWidth(widest, FONT))));
    }
    graph.firstFit = null;
    graph.fitFolds = new Set();
    graph.fitPath = '';
    graph.query = '';
    graph.stale = true;
  }

  // ---- asking for a layout -----------------------------------------------------------

  // The ids shown when `folded` are folded, depth first (what the layout request lists).
  function shownOrder(folded) {
    const order = [];
    const stack = graph.rootId && graph.items.has(graph.rootId) ? [graph.rootId] : [];
    while (stack.length) {
      const id = stack.pop();
      order.push(id);
      if (folded.has(id)) continue;
      const kids = graph.items.get(id).kids;
      for (let i = kids.length - 1; i >= 0; i--) stack.push(kids[i]);
    }
    return order;
  }

  function queryOf(order, folded) {
    const counts = [];
    const widths = [];
    const heights = [];
    for (const id of order) {
      const item = graph.items.get(id);
      const isFolded = folded.has(id) && item.kids.length > 0;
      counts.push(isFolded ? 0 : item.kids.length);
      widths.push(isFolded ? item.wFolded : item.w);
      heights.push(isFolded ? BOX_H + BADGE_H : BOX_H);
    }
    return `c=${counts.join(',')}&w=${widths.join(',')}&h=${heights.join(',')}&r=${graph.rows}`;
  }

  function fetchLayout(query) {
    let entry = graph.cache.get(query);
    if (entry) {
      graph.cache.delete(query); // most recently used last
      graph.cache.set(query, entry);
      return entry;
    }
    graph.requests += 1;
    const started = performance.now();
    entry = fetch(`layout?${query}`, {cache: 'no-store'})
      .then((response) => response.json().then((data) => {
        if (!response.ok) throw new Error(data.error || `layout: HTTP ${response.status}`);
        data.roundtrip = performance.now() - started;
        return data;
      }));
    entry.catch(() => graph.cache.delete(query));
    graph.cache.set(query, entry);
    while (graph.cache.size > CACHE) graph.cache.delete(graph.cache.keys().next().value);
    return entry;
  }

  function showError(error) {
    graph.error = String(error && error.message ? error.message : error);
    $('graph-note').textContent = `cannot lay the graph out: ${graph.error}`;
    $('graph').dataset.layout = 'error';
  }

  // Lay out what the folding shows (no fit); resolves once it is on screen.
  function relayout() {
    if (!graph.rootId || !isVisible()) {
      graph.stale = true;
      return Promise.resolve();
    }
    if (graph.fitting) { // the fit under way lays out what it leaves unfolded
      graph.refit = true;
      return graph.fitting;
    }
    const folded = window.btView.view.collapsed;
    const order = shownOrder(folded);
    const query = queryOf(order, folded);
    const seq = ++graph.seq;
    return fetchLayout(query).then((layout) => {
      if (seq !== graph.seq) return;
      applyLayout(order, query, layout);
      if (graph.fitMode === 'scale') fitScale();
    }).catch(showError);
  }

  let relayoutPending = false;
  function scheduleRelayout() {
    if (relayoutPending) return;
    relayoutPending = true;
    requestAnimationFrame(() => {
      relayoutPending = false;
      relayout();
    });
  }

  // After the tree, the folding or the window changed: fit again, or only lay out.
  function refresh() {
    if (graph.fitMode === 'fold') return requestFit();
    return relayout();
  }

  // Fit now, or once the fit under way has ended (snapshots come faster than fits).
  function requestFit() {
    if (graph.fitting) {
      graph.refit = true;
      return graph.fitting;
    }
    return fit();
  }

  // Every box stays in the page; those a fold hides are not displayed.
  function applyLayout(order, query, layout) {
    const collapsed = window.btView.view.collapsed;
    const shown = new Set(order);
    for (const [id, item] of graph.items) {
      if (shown.has(id) || !item.shown) continue;
      item.shown = false;
      item.g.style.display = 'none';
      if (item.edge) item.edge.style.display = 'none';
    }
    order.forEach((id, index) => {
      const item = graph.items.get(id);
      item.shown = true;
      item.g.style.display = '';
      item.x = layout.x[index];
      item.y = layout.y[index];
      const folded = collapsed.has(id) && item.kids.length > 0;
      if (folded !== item.folded) {
        item.folded = folded;
        const width = folded ? item.wFolded : item.w;
        item.h = folded ? BOX_H + BADGE_H : BOX_H;
        item.rect.setAttribute('x', String(-width / 2));
        item.rect.setAttribute('width', String(width));
        item.rect.setAttribute('height', String(item.h));
        item.g.classList.toggle('folded', folded);
      }
      item.g.setAttribute('transform', `translate(${item.x},${item.y})`);
      if (item.edge) {
        item.edge.setAttribute('d', layout.edges[index]);
        item.edge.style.display = '';
      }
    });
    graph.width = layout.width;
    graph.height = layout.height;
    graph.query = query;
    graph.stale = false;
    graph.applied += 1;
    graph.error = '';
    graph.last = {ms: layout.ms, engine: layout.engine, boxes: order.length,
      roundtrip: layout.roundtrip, cached: layout.cached};
    const element = $('graph');
    element.dataset.shown = String(order.length);
    element.dataset.layout = 'ready';
    element.dataset.engine = layout.engine;
    graph.activeKey = null; // redraw the active edges on top
    updateStatus();
    updateNote();
  }

  // ---- status ------------------------------------------------------------------------

  function updateStatus() {
    const api = window.btView;
    const snapshot = api && api.view.snapshot;
    if (!snapshot) return;
    const path = snapshot.active_path || [];
    const active = new Set(path);
    const leaf = path[path.length - 1];
    for (const [id, item] of graph.items) {
      const status = api.statusOf(snapshot, id);
      if (status !== item.status) {
        item.g.dataset.status = status;
        item.status = status;
      }
      const mark = id === leaf ? 'leaf' : active.has(id) ? 'true' : '';
      if ((item.g.dataset.active || '') !== mark) {
        if (mark) item.g.dataset.active = mark; else delete item.g.dataset.active;
        if (item.edge) item.edge.classList.toggle('active', Boolean(mark));
      }
      const feedback = (snapshot.state[id] || {}).feedback || '';
      const tip = [id, item.node.loc, feedback].filter(Boolean).join('\n');
      if (item.tip.textContent !== tip) item.tip.textContent = tip;
      if (item.badge && item.shown) {
        let text = '';
        if (item.folded) {
          let running = 0;
          const stack = [...item.kids];
          while (stack.length) {
            const child = stack.pop();
            if (api.statusOf(snapshot, child) === 'RUNNING') running += 1;
            stack.push(...graph.items.get(child).kids);
          }
          text = `+${item.hidden}` + (running ? ` · ${running} running` : '');
          if (running) item.g.dataset.hiddenRunning = 'true';
          else delete item.g.dataset.hiddenRunning;
        }
        if (item.badge.textContent !== text) item.badge.textContent = text;
      }
    }
    // the active path's edges drawn over the others
    const key = path.join('\n');
    if (edgesGroup && key !== graph.activeKey) {
      graph.activeKey = key;
      for (const id of path) {
        const item = graph.items.get(id);
        if (item && item.edge && item.shown) edgesGroup.appendChild(item.edge);
      }
    }
  }

  // A subtree that fit folded holds the running leaf now: show it (fit again).
  function followActive() {
    const snapshot = window.btView.view.snapshot;
    const path = (snapshot && snapshot.active_path) || [];
    if (!path.some((id) => graph.fitFolds.has(id))) return;
    if (path.join('\n') === graph.fitPath) return; // folded on purpose: nothing else fits
    if (graph.fitMode === 'fold') {
      requestFit();
      return;
    }
    graph.quiet = true;
    for (const id of path) {
      if (graph.fitFolds.delete(id)) window.btView.setCollapsed(id, false);
    }
    graph.quiet = false;
    relayout();
  }

  // ---- fit ---------------------------------------------------------------------------

  function isVisible() {
    const element = $('graph');
    return Boolean(element) && !element.hidden && element.getClientRects().length > 0;
  }

  // The graph as far as it is in the window, in the svg's own pixels.
  function fitArea() {
    const box = $('graph-svg').getBoundingClientRect();
    if (!box.width || !box.height) return null;
    const left = Math.max(box.left, 0);
    const top = Math.max(box.top, 0);
    const right = Math.min(box.right, window.innerWidth);
    const bottom = Math.min(box.bottom, window.innerHeight);
    if (right - left < 40 || bottom - top < 40) {
      return {left: 0, top: 0, width: box.width, height: box.height};
    }
    return {left: left - box.left, top: top - box.top, width: right - left,
      height: bottom - top};
  }

  function scaleFor(layout, area) {
    return Math.min((area.width - 2 * MARGIN) / Math.max(layout.width, 1),
      (area.height - 2 * MARGIN) / Math.max(layout.height, 1));
  }

  function centreIn(area, scale) {
    graph.scale = Math.max(MIN_SCALE, Math.min(MAX_SCALE, scale));
    graph.tx = area.left + (area.width - graph.width * graph.scale) / 2;
    graph.ty = area.top + (area.height - graph.height * graph.scale) / 2;
    applyTransform();
  }

  // Show what is unfolded, as large as fits (at most the boxes' own size).
  function fitScale() {
    const area = fitArea();
    if (!area || !graph.width) return;
    centreIn(area, Math.min(FIT_MAX, scaleFor({width: graph.width, height: graph.height},
      area)));
  }

  // Fit the tree to the visible graph with legible labels, folding branches if needed.
  function fit() {
    const running = fitOnce();
    graph.fitting = running;
    return running.finally(() => {
      if (graph.fitting !== running) return; // a newer fit took over
      graph.fitting = false;
      graph.seq += 1; // a relayout asked for during the fit is not shown
      if (graph.refit) {
        graph.refit = false;
        refresh();
      }
    });
  }

  async function fitOnce() {
    graph.fitMode = 'fold';
    graph.refit = false;
    const started = performance.now();
    if (!graph.rootId || !isVisible()) {
      graph.stale = true;
      return;
    }
    sizeGraph();
    const area = fitArea();
    if (!area) return;
    const token = ++graph.fitSeq;
    graph.seq += 1; // a layout asked for before this fit is not shown
    // a stacked block as tall as the graph holds below one rank, legibly
    graph.rows = Math.max(3, Math.min(40, Math.floor(
      ((area.height - 2 * MARGIN) / LEGIBLE - RANK_PITCH) / (BOX_H + BADGE_H + ROW_GAP))));
    const api = window.btView;
    const base = new Set([...api.view.collapsed].filter((id) => !graph.fitFolds.has(id)));
    const path = (api.view.snapshot && api.view.snapshot.active_path) || [];
    const active = new Set(path);
    const probe = (folds) => {
      const order = shownOrder(folds);
      const query = queryOf(order, folds);
      return fetchLayout(query).then((layout) => ({folds, order, query, layout,
        scale: scaleFor(layout, area)}), (error) => ({folds, order, query, layout: null,
        scale: -1, error})); // e.g. too many boxes: fold more
    };
    try {
      // a tree whose boxes alone cover more than the graph can never fit: not laid out
      const baseOrder = shownOrder(base);
      const room = (area.width - 2 * MARGIN) * (area.height - 2 * MARGIN) / LEGIBLE / LEGIBLE;
      const covered = baseOrder.reduce((sum, id) => sum + (graph.items.get(id).w + NODE_GAP) *
        (BOX_H + ROW_GAP), 0);
      let best = covered > room ? {order: baseOrder, layout: null, scale: -1} : await probe(base);
      if (token !== graph.fitSeq) return;
      if (best.scale < LEGIBLE) {
        const deepest = Math.max(...baseOrder.map((id) => graph.items.get(id).node.depth));
        // fold every branch from depth `depth` on (the running branch stays open when
        // `keep`): the deeper the cut, the more is shown
        const cut = (depth, keep) => {
          const folds = new Set(base);
          for (const id of baseOrder) {
            const item = graph.items.get(id);
            const level = item.node.depth;
            if (!item.kids.length || level < depth || (keep && active.has(id))) continue;
            if (level === depth || (keep && active.has(item.node.parent))) folds.add(id);
          }
          return folds;
        };
        let found = null;
        for (const keep of [true, false]) {
          let low = 0;
          let high = deepest - 1;
          while (low <= high) {
            const middle = (low + high) >> 1;
            const tried = await probe(cut(middle, keep));
            if (token !== graph.fitSeq) return;
            if (tried.scale >= LEGIBLE) {
              found = tried;
              low = middle + 1;
            } else {
              high = middle - 1;
            }
          }
          if (found) break;
        }
        if (!found) found = await probe(cut(0, false)); // the root alone
        if (token !== graph.fitSeq) return;
        best = found;
        // then unfold, one level at a time, the smallest folded branches that still fit
        const queue = [...best.folds].filter((id) => !base.has(id));
        const order = new Map(baseOrder.map((id, index) => [id, index]));
        const smallest = (a, b) => graph.items.get(a).hidden - graph.items.get(b).hidden ||
          order.get(a) - order.get(b);
        queue.sort(smallest);
        for (let tries = 0; queue.length && tries < REFINE_TRIES; tries++) {
          const id = queue.shift();
          // its branches stay folded (the user's folds stay as they are)
          const inner = graph.items.get(id).kids.filter((kid) =>
            graph.items.get(kid).kids.length && !base.has(kid));
          const folds = new Set(best.folds);
          folds.delete(id);
          for (const kid of inner) folds.add(kid);
          const tried = await probe(folds);
          if (token !== graph.fitSeq) return;
          if (tried.scale >= LEGIBLE) {
            best = tried;
            queue.push(...inner);
            queue.sort(smallest);
          }
        }
      }
      if (!best.layout) throw best.error;
      graph.quiet = true;
      for (const id of graph.fitFolds) {
        if (!best.folds.has(id) && api.view.collapsed.has(id)) api.setCollapsed(id, false);
      }
      graph.fitFolds = new Set([...best.folds].filter((id) => !base.has(id)));
      for (const id of graph.fitFolds) {
        if (!api.view.collapsed.has(id)) api.setCollapsed(id, true, false, 'fit');
      }
      graph.quiet = false;
      graph.fitPath = path.join('\n');
      applyLayout(best.order, best.query, best.layout);
      centreIn(area, Math.min(FIT_MAX, best.scale));
      graph.fitMode = 'fold';
      graph.lastFit = {ms: performance.now() - started, boxes: best.order.length,
        folded: graph.fitFolds.size};
      if (!graph.firstFit) graph.firstFit = graph.lastFit; // of this tree (for the tests)
      $('graph').dataset.fitted = String(graph.fitSeq);
    } catch (error) {
      graph.quiet = false;
      showError(error);
    }
  }

  // ---- pan and zoom ------------------------------------------------------------------

  function applyTransform() {
    $('graph-world').setAttribute('transform',
      `translate(${graph.tx},${graph.ty}) scale(${graph.scale})`);
    const element = $('graph');
    element.dataset.scale = graph.scale.toFixed(3);
    // semantic zoom: labels only where they can be read
    element.dataset.labels = graph.scale >= LEGIBLE - 1e-6 ? 'on' : 'off';
    updateNote();
  }

  function updateNote() {
    const note = $('graph-note');
    if (!note || graph.error) return;
    const parts = [];
    if (graph.fitFolds.size) {
      parts.push(`${graph.fitFolds.size} branch${graph.fitFolds.size === 1 ? '' : 'es'} ` +
        'folded to fit: click a box to unfold it');
    }
    if ($('graph').dataset.labels === 'off') parts.push('zoom in to read the labels');
    note.textContent = parts.join(' · ');
  }

  function zoomAt(factor, cx, cy) {
    const scale = Math.min(MAX_SCALE, Math.max(MIN_SCALE, graph.scale * factor));
    graph.tx = cx - (cx - graph.tx) * (scale / graph.scale);
    graph.ty = cy - (cy - graph.ty) * (scale / graph.scale);
    graph.scale = scale;
    graph.fitMode = null;
    applyTransform();
  }

  // Centre the view on a node (zoomed in to at least `scale`).
  function centerOn(id, scale) {
    const item = graph.items.get(id);
    if (!item || !item.shown) return;
    const box = $('graph-svg').getBoundingClientRect();
    if (scale && graph.scale < scale) graph.scale = scale;
    graph.tx = box.width / 2 - item.x * graph.scale;
    graph.ty = box.height / 2 - (item.y + item.h / 2) * graph.scale;
    graph.fitMode = null;
    applyTransform();
  }

  function setupPanZoom() {
    const surface = $('graph-svg');
    let drag = null;
    surface.addEventListener('pointerdown', (event) => {
      if (event.button !== 0) return;
      drag = {x: event.clientX, y: event.clientY, tx: graph.tx, ty: graph.ty, moved: false};
    });
    window.addEventListener('pointermove', (event) => {
      if (!drag) return;
      const dx = event.clientX - drag.x;
      const dy = event.clientY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
      if (!drag.moved) return;
      graph.tx = drag.tx + dx;
      graph.ty = drag.ty + dy;
      graph.fitMode = null;
      applyTransform();
    });
    window.addEventListener('pointerup', () => {
      // a drag that ends on a box is a pan, not a click on the box
      if (drag && drag.moved) graph.draggedAt = performance.now();
      drag = null;
    });
    surface.addEventListener('wheel', (event) => {
      event.preventDefault();
      const box = surface.getBoundingClientRect();
      zoomAt(Math.exp(-event.deltaY * 0.0015), event.clientX - box.left,
        event.clientY - box.top);
    }, {passive: false});
    const middle = () => {
      const box = surface.getBoundingClientRect();
      return [box.width / 2, box.height / 2];
    };
    $('graph-zoom-in').addEventListener('click', () => zoomAt(1.25, ...middle()));
    $('graph-zoom-out').addEventListener('click', () => zoomAt(0.8, ...middle()));
    $('graph-fit').addEventListener('click', () => fit());  // restarts a fit under way
    $('graph-follow').addEventListener('click', () => {
      const path = (window.btView.view.snapshot || {}).active_path || [];
      const shown = path.filter((id) => (graph.items.get(id) || {}).shown);
      if (shown.length) centerOn(shown[shown.length - 1], 1);
    });
  }

  // The graph fills the window below its top (at least 320 px).
  function sizeGraph() {
    const element = $('graph');
    if (!isVisible()) return;
    const top = element.getBoundingClientRect().top + window.scrollY;
    const height = Math.max(320, Math.floor(window.innerHeight - top - 14));
    if (element.style.height !== `${height}px`) element.style.height = `${height}px`;
  }

  // ---- which views are shown -----------------------------------------------------------

  function setMode(mode) {
    const panel = $('tree-panel');
    panel.dataset.mode = mode;
    document.body.dataset.viewMode = mode; // graph.css gives the graph alone the width
    for (const button of document.querySelectorAll('#view-mode button')) {
      button.setAttribute('aria-pressed', String(button.dataset.mode === mode));
    }
    $('graph').hidden = mode === 'outline';
    $('tree').hidden = mode === 'graph';
    try {
      localStorage.setItem('bt-view-mode', mode);
    } catch (error) { /* storage refused: the choice lasts this page */ }
    if (mode !== 'outline') {
      requestAnimationFrame(() => {
        sizeGraph();
        if (graph.stale || graph.fitMode === 'fold') refresh();
        else if (graph.fitMode === 'scale') fitScale();
      });
    }
  }

  function start() {
    // opened from the fleet page (/executive/<node>/): a way back
    if ($('fleet-link')) $('fleet-link').hidden = !location.pathname.startsWith('/executive/');
    if (!window.btView || !$('graph')) return;
    setupPanZoom();
    for (const button of document.querySelectorAll('#view-mode button')) {
      button.addEventListener('click', () => setMode(button.dataset.mode));
    }
    let mode = 'outline';
    const wanted = new URLSearchParams(location.search).get('view');
    try {
      mode = localStorage.getItem('bt-view-mode') || mode;
    } catch (error) { /* no storage */ }
    if (['outline', 'graph', 'both'].includes(wanted)) mode = wanted;
    document.addEventListener('bt-snapshot', (event) => {
      if (event.detail.rebuilt) {
        build(event.detail.snapshot);
        graph.fitMode = 'fold';
        fit(); // a fit of the previous tree under way stops at its next step
      } else {
        updateStatus();
        followActive();
      }
    });
    document.addEventListener('bt-fold', (event) => {
      if (graph.quiet) return;
      const detail = event.detail || {};
      if (!detail.collapsed) graph.fitFolds.delete(detail.id);
      if (detail.cause === 'running') {
        // a branch folded by "collapse idle" started running
        if (graph.fitMode === 'fold') {
          refresh();
          return;
        }
      } else if (graph.fitMode === 'fold') {
        graph.fitMode = 'scale'; // the user's folding stays: only rescale
      }
      scheduleRelayout();
    });
    let resizing = null;
    window.addEventListener('resize', () => {
      clearTimeout(resizing);
      resizing = setTimeout(() => {
        sizeGraph();
        if (graph.fitMode === 'fold') requestFit();
        else if (graph.fitMode === 'scale') fitScale();
      }, 120);
    });
    setMode(mode);
    const snapshot = window.btView.view.snapshot;
    if (snapshot) {
      build(snapshot);
      refresh();
    }
  }

  // For search.js and the tests: the boxes (id -> item), the view's transform, layouts.
  window.btGraph = {centerOn, fit, relayout, layout: relayout, setMode, state: graph,
    LEGIBLE_PX, FONT_PX};

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
