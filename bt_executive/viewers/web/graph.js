// Copyright 2026 bt_executive developers
// SPDX-License-Identifier: Apache-2.0
// bt-executive view: the tree as a top-down graph (boxes, edges, status colours).
//
// Fed by app.js (window.btView and the 'bt-snapshot' / 'bt-fold' events): the graph
// shares the outline's folding, so folding a subtree in one folds it in the other.
// Layout: each subtree gets the width of its widest level-free block (children side by
// side, the parent centred above them); the boxes are sized to their text. It is
// computed again only when the structure or the folding changes; a snapshot of the
// same structure only updates the status of each box.
'use strict';

(function () {
  const BOX_H = 38;
  const GAP_X = 12;
  const GAP_Y = 42;
  const PAD_X = 10;
  const MIN_W = 64;
  const MAX_W = 230;
  const STACK_MIN = 3; // leaves under one parent from which they are stacked
  const STACK_GAP = 8;
  const INDENT = 18;
  const MIN_SCALE = 0.05;
  const READABLE = 0.6; // "fit" never shrinks below this: it centres the active path
  const MAX_SCALE = 3;
  const FONT = '12px system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif';
  const BOLD = '600 11px system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif';

  const $ = (id) => document.getElementById(id);
  const graph = {
    items: new Map(), // id -> {g, rect, edge, badge, node, w, sub, kids, x, y, shown}
    rootId: null,
    scale: 1,
    tx: 0,
    ty: 0,
    fitted: false, // fit the view once the first tree is laid out
    pending: false,
    width: 0,
    height: 0,
  };
  let measureContext = null;

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
    const world = $('graph-world');
    const edges = svg('g', {class: 'edges'});
    const boxes = svg('g', {class: 'boxes'});
    graph.items = new Map();
    for (const node of snapshot.nodes) {
      const title = node.name && node.name !== node.type ? node.name : '';
      const top = title || node.type;
      const bottom = title ? node.type : node.kind;
      const width = Math.min(MAX_W, Math.max(MIN_W, PAD_X * 2 +
        Math.max(textWidth(top, BOLD), textWidth(bottom, FONT))));
      const g = svg('g', {class: 'gnode'});
      g.dataset.graphId = node.id;
      g.dataset.kind = node.kind;
      const tip = svg('title', {}, [node.id, node.loc].filter(Boolean).join('\n'));
      g.appendChild(tip);
      const rect = svg('rect', {x: -width / 2, y: 0, width, height: BOX_H, rx: 6});
      g.appendChild(rect);
      g.appendChild(svg('text', {class: 'title', x: 0, y: 15}, clip(top, BOLD, width - 12)));
      g.appendChild(svg('text', {class: 'sub', x: 0, y: 30}, clip(bottom, FONT, width - 12)));
      let badge = null;
      if (node.children.length) {
        badge = svg('text', {class: 'badge', x: 0, y: BOX_H + 13});
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
        edges.appendChild(edge);
      }
      boxes.appendChild(g);
      graph.items.set(node.id, {g, rect, tip, edge, badge, node, w: width, sub: 0, kids: 0,
        x: 0, y: 0, shown: false, status: null});
    }
    graph.rootId = snapshot.root;
    world.replaceChildren(edges, boxes);
    layout();
  }

  // ---- layout ------------------------------------------------------------------------

  function visibleChildren(id) {
    const item = graph.items.get(id);
    if (!item || window.btView.view.collapsed.has(id)) return [];
    return item.node.children.filter((child) => graph.items.has(child));
  }

  // Three or more leaves under one parent are stacked in a column (narrower trees).
  function stacked(kids) {
    return kids.length >= STACK_MIN && kids.every((child) => !visibleChildren(child).length);
  }

  // Widths bottom-up, positions top-down; iterative (a deep chain must not overflow).
  function layout() {
    graph.pending = false;
    const root = graph.items.get(graph.rootId);
    if (!root) return;
    const order = [];
    const stack = [graph.rootId];
    while (stack.length) {
      const id = stack.pop();
      order.push(id);
      for (const child of visibleChildren(id)) stack.push(child);
    }
    for (let i = order.length - 1; i >= 0; i--) {
      const item = graph.items.get(order[i]);
      const kids = visibleChildren(order[i]);
      item.stack = stacked(kids);
      if (item.stack) {
        item.kids = INDENT + Math.max(...kids.map((child) => graph.items.get(child).w));
      } else {
        let total = 0;
        for (const child of kids) total += graph.items.get(child).sub;
        item.kids = kids.length ? total + GAP_X * (kids.length - 1) : 0;
      }
      item.sub = Math.max(item.w, item.kids);
    }
    const shown = new Set(order);
    root.left = 0;
    root.y = 0;
    let right = 0;
    let bottom = 0;
    for (const id of order) { // parents come before their children in `order`
      const item = graph.items.get(id);
      const kids = visibleChildren(id);
      if (item.stack) {
        // the parent's box at the left of its block, the column indented below it
        item.x = item.left + item.w / 2;
        let y = item.y + BOX_H + GAP_Y / 2;
        for (const child of kids) {
          const kid = graph.items.get(child);
          kid.left = item.left + INDENT;
          kid.x = kid.left + kid.w / 2;
          kid.y = y;
          y += BOX_H + STACK_GAP;
        }
      } else {
        item.x = item.left + item.sub / 2;
        let left = item.left + (item.sub - item.kids) / 2;
        for (const child of kids) {
          const kid = graph.items.get(child);
          kid.left = left;
          kid.y = item.y + BOX_H + GAP_Y;
          left += kid.sub + GAP_X;
        }
      }
      if (!kids.length) item.x = item.left + item.sub / 2;
      right = Math.max(right, item.left + item.sub);
      bottom = Math.max(bottom, item.y + BOX_H);
    }
    graph.width = right;
    graph.height = bottom + 20;
    for (const [id, item] of graph.items) {
      const visible = shown.has(id);
      item.shown = visible;
      item.g.style.display = visible ? '' : 'none';
      if (visible) item.g.setAttribute('transform', `translate(${item.x},${item.y})`);
      if (item.edge) {
        item.edge.style.display = visible ? '' : 'none';
        const parent = graph.items.get(item.node.parent);
        if (visible && parent && parent.stack) {
          const spine = parent.left + INDENT / 2;
          item.edge.setAttribute('d', `M${spine},${parent.y + BOX_H}V${item.y + BOX_H / 2}` +
            `H${item.left}`);
        } else if (visible && parent) {
          const middle = parent.y + BOX_H + GAP_Y / 2;
          item.edge.setAttribute('d', `M${parent.x},${parent.y + BOX_H}V${middle}` +
            `H${item.x}V${item.y}`);
        }
      }
    }
    document.getElementById('graph').dataset.shown = String(order.length);
    updateStatus();
    if (!graph.fitted && isVisible()) fit();
  }

  function scheduleLayout() {
    if (graph.pending) return;
    graph.pending = true;
    requestAnimationFrame(layout);
  }

  // ---- status ------------------------------------------------------------------------

  function descendantsOf(id, out) {
    const item = graph.items.get(id);
    if (!item) return out;
    for (const child of item.node.children) {
      out.push(child);
      descendantsOf(child, out);
    }
    return out;
  }

  function updateStatus() {
    const api = window.btView;
    const snapshot = api && api.view.snapshot;
    if (!snapshot) return;
    const active = new Set(snapshot.active_path || []);
    const leaf = (snapshot.active_path || []).slice(-1)[0];
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
      if (item.badge) {
        let text = '';
        if (api.view.collapsed.has(id)) {
          const hidden = descendantsOf(id, []);
          const running = hidden.filter((child) => api.statusOf(snapshot, child) === 'RUNNING');
          text = `+${hidden.length}` + (running.length ? ` · ${running.length} running` : '');
          item.g.classList.add('folded');
        } else {
          item.g.classList.remove('folded');
        }
        if (item.badge.textContent !== text) item.badge.textContent = text;
      }
    }
  }

  // ---- pan and zoom ------------------------------------------------------------------

  function isVisible() {
    const element = $('graph');
    return element && !element.hidden && element.getClientRects().length > 0;
  }

  function applyTransform() {
    $('graph-world').setAttribute('transform',
      `translate(${graph.tx},${graph.ty}) scale(${graph.scale})`);
    $('graph').dataset.scale = graph.scale.toFixed(3);
  }

  function zoomAt(factor, cx, cy) {
    const scale = Math.min(MAX_SCALE, Math.max(MIN_SCALE, graph.scale * factor));
    graph.tx = cx - (cx - graph.tx) * (scale / graph.scale);
    graph.ty = cy - (cy - graph.ty) * (scale / graph.scale);
    graph.scale = scale;
    applyTransform();
  }

  // Show the whole tree; a tree too large to read at that size is shown at a readable
  // scale instead, centred on the running leaf (pan, zoom or search for the rest).
  function fit() {
    const box = $('graph-svg').getBoundingClientRect();
    if (!box.width || !graph.width) return;
    const margin = 16;
    const scale = Math.min(1, (box.width - 2 * margin) / graph.width,
      (box.height - 2 * margin) / graph.height);
    graph.fitted = true;
    if (scale < READABLE) {
      graph.scale = READABLE;
      const path = (window.btView.view.snapshot || {}).active_path || [];
      const shown = path.filter((id) => (graph.items.get(id) || {}).shown);
      centerOn(shown.length ? shown[shown.length - 1] : graph.rootId);
      graph.ty = Math.min(graph.ty, margin);
      applyTransform();
      return;
    }
    graph.scale = scale;
    graph.tx = (box.width - graph.width * graph.scale) / 2;
    graph.ty = margin;
    applyTransform();
  }

  // Centre the view on a node (zoomed in to at least `scale`).
  function centerOn(id, scale) {
    const item = graph.items.get(id);
    if (!item || !item.shown) return;
    const box = $('graph-svg').getBoundingClientRect();
    if (scale && graph.scale < scale) graph.scale = scale;
    graph.tx = box.width / 2 - item.x * graph.scale;
    graph.ty = box.height / 2 - (item.y + BOX_H / 2) * graph.scale;
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
    $('graph-fit').addEventListener('click', fit);
    $('graph-follow').addEventListener('click', () => {
      const path = (window.btView.view.snapshot || {}).active_path || [];
      if (path.length) centerOn(path[path.length - 1], 1);
    });
  }

  // ---- which views are shown -----------------------------------------------------------

  function setMode(mode) {
    const panel = $('tree-panel');
    panel.dataset.mode = mode;
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
        if (!graph.fitted) fit();
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
    setMode(mode);
    document.addEventListener('bt-snapshot', (event) => {
      if (event.detail.rebuilt) {
        graph.fitted = false;
        build(event.detail.snapshot);
      } else {
        updateStatus();
      }
    });
    document.addEventListener('bt-fold', scheduleLayout);
    const snapshot = window.btView.view.snapshot;
    if (snapshot) build(snapshot);
  }

  // For search.js and the tests: the boxes (id -> item) and the view's transform.
  window.btGraph = {centerOn, fit, layout, setMode, state: graph};

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
