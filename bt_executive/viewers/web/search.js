// Copyright 2026 bt_executive developers
// SPDX-License-Identifier: Apache-2.0
// bt-executive view: search the tree by node name or type.
//
// Every node whose name or type contains the text (any case) is marked in the outline
// and in the graph, its folded ancestors are unfolded (in both views: they share the
// folding), and Enter / Shift+Enter (or the arrows) step through the matches, each
// scrolled into view and centred in the graph. Esc clears the search.
'use strict';

(function () {
  const $ = (id) => document.getElementById(id);
  const search = {query: '', matches: [], current: -1};

  function matchesOf(query) {
    const api = window.btView;
    const found = [];
    if (!query) return found;
    for (const [id, entry] of api.view.nodes) {
      const node = entry.node;
      if ((node.name || '').toLowerCase().includes(query) ||
          (node.type || '').toLowerCase().includes(query)) {
        found.push(id);
      }
    }
    return found;
  }

  function mark() {
    const api = window.btView;
    const wanted = new Set(search.matches);
    const focus = search.matches[search.current];
    for (const [id, entry] of api.view.nodes) {
      entry.li.classList.toggle('match', wanted.has(id));
      entry.li.classList.toggle('match-current', id === focus);
    }
    const items = window.btGraph ? window.btGraph.state.items : new Map();
    for (const [id, item] of items) {
      item.g.classList.toggle('match', wanted.has(id));
      item.g.classList.toggle('match-current', id === focus);
    }
    const svg = $('graph-svg');
    if (svg) svg.classList.toggle('searching', Boolean(search.query));
    const count = $('search-count');
    if (!search.query) count.textContent = '';
    else if (!search.matches.length) count.textContent = 'no match';
    else count.textContent = `${search.current + 1} / ${search.matches.length}`;
    $('tree-panel').dataset.matches = String(search.matches.length);
  }

  // Unfold every ancestor of the matches, in both views.
  function revealAll() {
    const api = window.btView;
    const unfold = new Set();
    for (const id of search.matches) {
      let parent = api.view.nodes.get(id).node.parent;
      while (parent) {
        if (api.view.collapsed.has(parent)) unfold.add(parent);
        const up = api.view.nodes.get(parent);
        parent = up ? up.node.parent : null;
      }
    }
    for (const id of unfold) api.setCollapsed(id, false);
  }

  function focus(index) {
    if (!search.matches.length) return;
    const count = search.matches.length;
    search.current = ((index % count) + count) % count;
    const id = search.matches[search.current];
    mark();
    const entry = window.btView.view.nodes.get(id);
    if (entry && entry.row.getClientRects().length) {
      entry.row.scrollIntoView({block: 'center'});
    }
    if (window.btGraph) {
      // after the layout that the unfolding asked for, at a scale that shows the labels
      window.btGraph.relayout().then(() => window.btGraph.centerOn(id, 1));
    }
  }

  function run(text) {
    search.query = text.trim().toLowerCase();
    search.matches = matchesOf(search.query);
    search.current = search.matches.length ? 0 : -1;
    if (search.matches.length) {
      revealAll();
      focus(0);
    } else {
      mark();
    }
  }

  function start() {
    const input = $('node-search');
    if (!window.btView || !input) return;
    input.addEventListener('input', () => run(input.value));
    input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter') {
        event.preventDefault();
        focus(search.current + (event.shiftKey ? -1 : 1));
      } else if (event.key === 'Escape') {
        input.value = '';
        run('');
      }
    });
    $('search-next').addEventListener('click', () => focus(search.current + 1));
    $('search-prev').addEventListener('click', () => focus(search.current - 1));
    // a new tree (swap, restart): search it again; the marks follow rebuilt boxes
    document.addEventListener('bt-snapshot', (event) => {
      if (!search.query || !event.detail.rebuilt) return;
      search.matches = matchesOf(search.query);
      search.current = search.matches.length ? 0 : -1;
      requestAnimationFrame(() => {
        revealAll();
        mark();
      });
    });
  }

  window.btSearch = {run, focus, state: search};

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
