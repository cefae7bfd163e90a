// Copyright 2026 bt_executive developers
// SPDX-License-Identifier: Apache-2.0
// bt-executive view: renders the executive's snapshots (docs/snapshots.md) live.
//
// The first snapshot comes from GET /snapshot, the following ones from the Server-Sent
// Events stream /events. A snapshot of the same session and revision updates the page
// in place; a new revision (tree swap) or session (restart) rebuilds the tree.
// Data is only ever inserted as text (textContent), never as HTML.
'use strict';

(function () {
  const STATUSES = ['SUCCESS', 'FAILURE', 'RUNNING', 'INVALID'];
  const MAX_TRANSITIONS = 80;
  const MAX_PENDING = 100;
  const PARAMS_SHOWN = 72;

  const $ = (id) => document.getElementById(id);

  const view = {
    key: null, // session:revision of the tree on screen
    snapshot: null,
    nodes: new Map(), // id -> {li, row, toggle, statusEl, feedbackEl, hiddenEl, node, ...}
    collapsed: new Set(), // ids folded by the user (kept across revisions)
    autoFolded: new Set(), // ids folded by "collapse idle": they unfold when they run
    lastMessage: 0, // Date.now() of the last snapshot received
    heartbeat: 1.0,
    connected: false,
    topic: '',
    pending: [], // event batches that arrived before their tree's snapshot
  };

  function el(tag, className, text) {
    const element = document.createElement(tag);
    if (className) element.className = className;
    if (text !== undefined && text !== null) element.textContent = String(text);
    return element;
  }

  function shortName(id) {
    const index = id.lastIndexOf('/');
    return index < 0 ? id : id.slice(index + 1);
  }

  function labelOf(id) {
    const entry = view.nodes.get(id);
    return entry && entry.node.name ? entry.node.name : shortName(id);
  }

  function statusOf(snapshot, id) {
    const state = snapshot.state[id];
    return state && STATUSES.includes(state.status) ? state.status : 'INVALID';
  }

  // ---- the tree --------------------------------------------------------------------

  function rowTitle(node, feedback) {
    return [node.id, node.loc, feedback].filter(Boolean).join('\n');
  }

  function paramsText(node) {
    const entries = Object.entries(node.params || {});
    if (node.type === 'Subtree' && node.params && node.params.tree) {
      const rest = entries.filter(([key]) => key !== 'tree').map(([k, v]) => `${k}=${v}`);
      return ['→ ' + node.params.tree, ...rest].join('  ');
    }
    if (entries.length === 1) return entries[0][1];
    return entries.map(([key, value]) => `${key}=${value}`).join('  ');
  }

  function buildNode(node, byId) {
    const li = el('li', 'node');
    li.dataset.nodeId = node.id;
    li.dataset.kind = node.kind;
    li.setAttribute('role', 'treeitem');
    const row = el('div', 'row');
    const hasChildren = node.children.length > 0;
    const toggle = el(hasChildren ? 'button' : 'span', 'toggle');
    if (hasChildren) {
      toggle.type = 'button';
      toggle.title = 'fold or unfold this subtree';
      toggle.setAttribute('aria-expanded', 'true');
    }
    row.appendChild(toggle);
    const status = el('span', 'status');
    row.appendChild(status);
    row.appendChild(el('span', 'type', node.type));
    if (node.name && node.name !== node.type) row.appendChild(el('span', 'name', node.name));
    const params = paramsText(node);
    if (params) {
      const shown = params.length > PARAMS_SHOWN
        ? params.slice(0, PARAMS_SHOWN - 1) + '…' : params;
      const span = el('span', 'params', shown);
      span.title = Object.entries(node.params).map(([k, v]) => `${k}: ${v}`).join('\n');
      row.appendChild(span);
    }
    const feedback = el('span', 'feedback');
    row.appendChild(feedback);
    const hidden = el('span', 'hidden-count');
    row.appendChild(hidden);
    row.title = rowTitle(node, '');
    li.appendChild(row);
    const entry = {li, row, toggle, statusEl: status, feedbackEl: feedback, hiddenEl: hidden,
      node, status: null, feedback: null};
    if (hasChildren) {
      const ul = el('ul', 'children');
      ul.setAttribute('role', 'group');
      for (const child of node.children) {
        const childNode = byId.get(child);
        if (childNode) ul.appendChild(buildNode(childNode, byId));
      }
      li.appendChild(ul);
      row.addEventListener('click', (event) => {
        if (window.getSelection && String(window.getSelection())) return; // selecting text
        event.preventDefault();
        setCollapsed(node.id, !view.collapsed.has(node.id));
      });
    }
    view.nodes.set(node.id, entry);
    return li;
  }

  function rebuild(snapshot) {
    const tree = $('tree');
    const byId = new Map(snapshot.nodes.map((node) => [node.id, node]));
    view.nodes = new Map();
    const root = byId.get(snapshot.root) || snapshot.nodes[0];
    const ul = el('ul', 'root');
    ul.setAttribute('role', 'tree');
    ul.appendChild(buildNode(root, byId));
    tree.replaceChildren(ul);
    for (const id of view.collapsed) {
      if (!view.nodes.has(id)) view.collapsed.delete(id);
    }
    for (const id of view.collapsed) setCollapsed(id, true);
    $('transitions').prepend(el('li', 'separator',
      `${snapshot.tree} · revision ${snapshot.revision} · ${snapshot.nodes.length} nodes`));
  }

  // `auto`: folded by "collapse idle" (unfolds when it runs); `cause` says who folded
  // ('user', 'running': an auto fold undone, 'fit': the graph's fit) in the bt-fold event.
  function setCollapsed(id, collapsed, auto = false, cause = 'user') {
    const entry = view.nodes.get(id);
    if (!entry || !entry.node.children.length) return;
    if (collapsed) view.collapsed.add(id); else view.collapsed.delete(id);
    if (collapsed && auto) view.autoFolded.add(id); else view.autoFolded.delete(id);
    entry.li.classList.toggle('collapsed', collapsed);
    entry.toggle.setAttribute('aria-expanded', String(!collapsed));
    if (view.snapshot) updateHiddenCounts(view.snapshot);
    document.dispatchEvent(new CustomEvent('bt-fold', {detail: {id, collapsed, cause}}));
  }

  // A subtree folded by "collapse idle" unfolds as soon as it runs (the active path).
  function unfoldActive() {
    for (const id of [...view.autoFolded]) {
      const entry = view.nodes.get(id);
      if (!entry) view.autoFolded.delete(id);
      else if (entry.status !== 'INVALID') setCollapsed(id, false, false, 'running');
    }
  }

  function descendants(id, out) {
    const entry = view.nodes.get(id);
    if (!entry) return out;
    for (const child of entry.node.children) {
      out.push(child);
      descendants(child, out);
    }
    return out;
  }

  function updateHiddenCounts(snapshot) {
    for (const [id, entry] of view.nodes) {
      if (!view.collapsed.has(id)) {
        entry.hiddenEl.textContent = '';
        delete entry.li.dataset.hiddenRunning;
        continue;
      }
      const hidden = descendants(id, []);
      const running = hidden.filter((child) => statusOf(snapshot, child) === 'RUNNING').length;
      entry.hiddenEl.textContent = `+${hidden.length}` + (running ? ` · ${running} running` : '');
      if (running) entry.li.dataset.hiddenRunning = 'true';
      else delete entry.li.dataset.hiddenRunning;
    }
  }

  function updateTree(snapshot) {
    for (const [id, entry] of view.nodes) {
      const state = snapshot.state[id] || {status: 'INVALID', feedback: ''};
      const status = statusOf(snapshot, id);
      if (status !== entry.status) {
        entry.li.dataset.status = status;
        entry.statusEl.textContent = status;
        if (entry.status !== null) flash(entry.row);
        entry.status = status;
      }
      const feedback = state.feedback || '';
      if (feedback !== entry.feedback) {
        entry.feedbackEl.textContent = feedback;
        entry.feedbackEl.title = feedback;
        entry.row.title = rowTitle(entry.node, feedback);
        entry.feedback = feedback;
      }
      delete entry.li.dataset.active;
    }
    unfoldActive();
    const active = snapshot.active_path || [];
    for (const id of active) {
      const entry = view.nodes.get(id);
      if (entry) entry.li.dataset.active = 'true';
    }
    const leaf = active.length ? view.nodes.get(active[active.length - 1]) : null;
    if (leaf) leaf.li.dataset.active = 'leaf';
    updateHiddenCounts(snapshot);
    const crumbs = $('active-path');
    crumbs.replaceChildren();
    if (!active.length) {
      crumbs.appendChild(el('span', 'muted', `no active branch (root ${snapshot.root_status})`));
    }
    active.forEach((id, index) => {
      if (index) crumbs.appendChild(el('span', 'sep', '▸'));
      const entry = view.nodes.get(id);
      const crumb = el('button', 'crumb', labelOf(id));
      crumb.type = 'button';
      crumb.title = id;
      crumb.addEventListener('click', () => reveal(id));
      crumbs.appendChild(crumb);
    });
  }

  function flash(element) {
    element.classList.remove('changed');
    void element.offsetWidth; // restart the animation
    element.classList.add('changed');
  }

  function reveal(id) {
    let entry = view.nodes.get(id);
    if (!entry) return;
    for (let parent = entry.node.parent; parent; ) {
      const up = view.nodes.get(parent);
      if (!up) break;
      if (view.collapsed.has(parent)) setCollapsed(parent, false);
      parent = up.node.parent;
    }
    entry = view.nodes.get(id);
    entry.row.scrollIntoView({block: 'center', behavior: 'smooth'});
    flash(entry.row);
  }

  // ---- the side panels ---------------------------------------------------------------

  function updateWhy(snapshot) {
    const panel = $('why-panel');
    const list = $('why');
    const summary = $('why-summary');
    list.replaceChildren();
    let steps = [];
    const mutation = snapshot.mutation;
    if (mutation) {
      // bt-executive view --mutation: the survivors, not a failure of a running tree
      panel.dataset.state = mutation.survived ? 'failed' : 'none';
      $('why-title').textContent = 'Surviving mutants';
      summary.textContent = `mutation score ${mutation.score} %: ${mutation.survived} of ` +
        `${mutation.mutants} mutants survived`;
      steps = snapshot.why || [];
    } else if (snapshot.root_status === 'FAILURE' && snapshot.why && snapshot.why.length) {
      panel.dataset.state = 'failed';
      $('why-title').textContent = 'Why did the tree fail?';
      summary.textContent = `${snapshot.tree} failed: ` + reasonOf(snapshot.why);
      steps = snapshot.why;
    } else if (snapshot.last_failure) {
      const last = snapshot.last_failure;
      panel.dataset.state = 'past';
      $('why-title').textContent = 'Last failure';
      summary.textContent = `at tick ${last.tick}: ${last.reason}`;
      steps = last.why || [];
    } else if (snapshot.executive && snapshot.executive.last_failure) {
      // a leaf talking to the robot failed, though the root did not (a fallback caught it)
      panel.dataset.state = 'past';
      $('why-title').textContent = 'Last failure';
      summary.textContent = snapshot.executive.last_failure;
    } else {
      panel.dataset.state = 'none';
      $('why-title').textContent = 'Why';
      summary.textContent = `The tree has not failed (root ${snapshot.root_status}).`;
    }
    for (const step of steps) {
      const item = el('li');
      item.dataset.ref = step.id;
      const entry = view.nodes.get(step.id);
      const name = el('button', 'step', labelOf(step.id));
      name.type = 'button';
      name.title = step.id;
      name.addEventListener('click', () => reveal(step.id));
      item.appendChild(name);
      if (entry) item.appendChild(el('span', 'type', entry.node.type));
      if (step.reason) item.appendChild(el('span', 'reason', step.reason));
      list.appendChild(item);
    }
  }

  function reasonOf(why) {
    for (let i = why.length - 1; i >= 0; i--) {
      if (why[i].reason) return `${why[i].id}: ${why[i].reason}`;
    }
    return why.length ? why[why.length - 1].id : '';
  }

  function updateBlackboard(snapshot) {
    const body = $('blackboard').tBodies[0];
    const values = snapshot.blackboard || {};
    const unset = snapshot.unset || {};
    const keys = [...new Set([...Object.keys(values), ...Object.keys(unset)])].sort();
    const rows = new Map([...body.rows].map((row) => [row.dataset.key, row]));
    const wanted = [];
    for (const key of keys) {
      let row = rows.get(key);
      if (!row) {
        row = el('tr');
        row.dataset.key = key;
        row.appendChild(el('th', 'key', key));
        row.appendChild(el('td', 'value'));
      }
      const isSet = Object.prototype.hasOwnProperty.call(values, key);
      const text = isSet ? JSON.stringify(values[key])
        : `unset${unset[key] ? ': ' + unset[key] : ''}`;
      if (row.dataset.text !== text || row.dataset.set !== String(isSet)) {
        if (row.dataset.text !== undefined) flash(row);
        row.dataset.text = text;
        row.dataset.set = String(isSet);
        row.classList.toggle('unset', !isSet);
        fillValue(row.cells[1], isSet ? values[key] : undefined, text);
      }
      wanted.push(row);
    }
    const current = [...body.rows];
    if (current.length !== wanted.length || current.some((row, i) => row !== wanted[i])) {
      body.replaceChildren(...wanted);
    }
    $('blackboard-empty').hidden = keys.length > 0;
  }

  function fillValue(cell, value, text) {
    const compound = value !== null && typeof value === 'object';
    if (!compound || text.length <= 48) {
      cell.replaceChildren(el('code', '', text));
      return;
    }
    let details = cell.querySelector('details');
    if (!details) {
      details = el('details');
      details.appendChild(el('summary'));
      details.appendChild(el('pre'));
      cell.replaceChildren(details);
    }
    details.firstChild.textContent = text.length > 60 ? text.slice(0, 59) + '…' : text;
    details.lastChild.textContent = JSON.stringify(value, null, 2);
  }

  function addTransitions(batch) {
    const current = view.snapshot;
    if (!current || batch.session !== current.session || batch.revision > current.revision) {
      // a batch can overtake the first snapshot of its tree (two topics): keep it for then
      view.pending.push(batch);
      if (view.pending.length > MAX_PENDING) view.pending.shift();
      return;
    }
    if (batch.revision !== current.revision) return; // an earlier tree
    const list = $('transitions');
    for (const event of batch.events || []) {
      const item = el('li');
      item.dataset.to = event.to;
      item.appendChild(el('span', 'tick', `#${event.tick}`));
      item.appendChild(el('span', 'who', labelOf(event.id)));
      item.appendChild(el('span', 'status small', event.from)).dataset.status = event.from;
      item.appendChild(el('span', 'arrow', '→'));
      item.appendChild(el('span', 'status small', event.to)).dataset.status = event.to;
      if (event.reason) item.appendChild(el('span', 'reason', event.reason));
      item.title = event.id;
      list.prepend(item);
    }
    while (list.children.length > MAX_TRANSITIONS) list.lastChild.remove();
    $('transitions-empty').hidden = list.querySelector('li:not(.separator)') !== null;
  }

  // ---- the header --------------------------------------------------------------------

  function updateHeader(snapshot) {
    $('tree-name').textContent = snapshot.tree;
    $('revision').textContent = String(snapshot.revision);
    // the file as given when relative, its name when absolute (a machine's folders stay
    // out of the header and of screenshots); the whole path on hover
    const file = snapshot.source_file || '';
    const absolute = file.startsWith('/') || /^[A-Za-z]:[\\/]/.test(file) || file.startsWith('\\');
    $('source-file').textContent = absolute ? file.split(/[\\/]/).pop() : file;
    $('source-file').title = file;
    const root = $('root-status');
    root.dataset.status = snapshot.root_status;
    root.textContent = snapshot.root_status;
    const tick = snapshot.tick || {};
    $('tick-count').textContent = String(tick.count ?? 0);
    $('tick-duration').textContent =
      typeof tick.duration_ms === 'number' ? `${tick.duration_ms.toFixed(2)} ms` : '–';
    $('tick-rate').textContent =
      tick.interval_ms ? `${(1000 / tick.interval_ms).toFixed(1)} Hz` : '–';
    const executive = snapshot.executive || {};
    const state = $('executive-state');
    if (executive.terminated) {
      state.textContent = `terminated: ${executive.terminated}`;
      state.hidden = false;
    } else if (executive.paused || (executive.running === false && !('paused' in executive))) {
      state.textContent = 'paused';
      state.hidden = false;
    } else if (executive.running === false) {
      state.textContent = 'stopped';
      state.hidden = false;
    } else {
      state.hidden = true;
    }
    $('executive-node').textContent = executive.node ? `node ${executive.node}` : '';
    if (typeof executive.heartbeat === 'number') view.heartbeat = executive.heartbeat;
    document.title = `${snapshot.root_status} · ${snapshot.tree} · bt_executive`;
  }

  // ---- snapshots in ------------------------------------------------------------------

  function isOlder(snapshot, current) {
    if (!current || snapshot.session !== current.session) return false;
    if (snapshot.revision !== current.revision) return snapshot.revision < current.revision;
    if (snapshot.seq !== current.seq) return snapshot.seq < current.seq;
    return snapshot.stamp < current.stamp;
  }

  function apply(snapshot) {
    if (!snapshot || !Array.isArray(snapshot.nodes) || !snapshot.nodes.length ||
        typeof snapshot.state !== 'object' || isOlder(snapshot, view.snapshot)) {
      return;
    }
    view.lastMessage = Date.now();
    const key = `${snapshot.session}:${snapshot.revision}`;
    const rebuilt = key !== view.key || snapshot.nodes.some((node) => !view.nodes.has(node.id)) ||
        snapshot.nodes.length !== view.nodes.size;
    if (rebuilt) {
      view.key = key;
      rebuild(snapshot);
    }
    view.snapshot = snapshot;
    document.body.dataset.revision = String(snapshot.revision);
    updateHeader(snapshot);
    updateTree(snapshot);
    updateWhy(snapshot);
    updateBlackboard(snapshot);
    updateConnection();
    document.dispatchEvent(new CustomEvent('bt-snapshot', {detail: {snapshot, rebuilt}}));
    if (view.pending.length) {
      const pending = view.pending;
      view.pending = [];
      pending.forEach(addTransitions);
    }
  }

  // the replay timeline (timeline.js) shows recorded states, older ones included
  window.btView = {
    replay: false,
    show(snapshot, transitions) {
      view.snapshot = null;
      apply(snapshot);
      $('transitions').replaceChildren();
      addTransitions({session: snapshot.session, revision: snapshot.revision,
        events: transitions || []});
    },
  };

  function waiting(text) {
    const placeholder = $('waiting');
    if (placeholder) placeholder.textContent = text;
  }

  function updateConnection() {
    const connection = $('connection');
    if (window.btView.replay) {
      connection.dataset.state = document.body.dataset.connection = 'replay';
      connection.textContent = 'replay';
      return;
    }
    if (view.snapshot && view.snapshot.mutation) {
      connection.dataset.state = document.body.dataset.connection = 'report';
      connection.textContent = 'mutation report';
      return;
    }
    let state = view.connected ? 'live' : 'offline';
    let text = view.connected ? 'live' : 'reconnecting…';
    if (view.connected && !view.snapshot) {
      state = 'waiting';
      text = 'waiting for data';
    } else if (view.connected && view.snapshot.behind) {
      // a gap in the deltas: the last good state stays until the next full snapshot
      state = 'behind';
      text = `behind: ${view.snapshot.behind}`;
    } else if (view.connected && view.heartbeat > 0) {
      const age = (Date.now() - view.lastMessage) / 1000;
      if (age > Math.max(3 * view.heartbeat, 3)) {
        state = 'stale';
        text = `no update for ${Math.round(age)} s`;
      }
    }
    connection.dataset.state = state;
    connection.textContent = text;
    document.body.dataset.connection = state;
  }

  function connect() {
    const source = new EventSource('events');
    source.onopen = () => {
      view.connected = true;
      updateConnection();
    };
    source.onerror = () => {
      view.connected = false;
      updateConnection();
    };
    source.onmessage = (message) => {
      try {
        apply(JSON.parse(message.data));
      } catch (error) {
        console.error('bad snapshot', error);
      }
    };
    source.addEventListener('transitions', (message) => {
      try {
        addTransitions(JSON.parse(message.data));
      } catch (error) {
        console.error('bad event batch', error);
      }
    });
    source.addEventListener('view', (message) => {
      try {
        view.topic = JSON.parse(message.data).topic || '';
      } catch (error) {
        view.topic = '';
      }
      if (!view.snapshot && view.topic) waiting(`Waiting for a snapshot on ${view.topic}…`);
    });
  }

  // What graph.js and search.js use: the state, folding and revealing (shared views);
  // added to the object the replay timeline uses (replay, show), not replacing it.
  Object.assign(window.btView, {view, setCollapsed, reveal, statusOf, labelOf});

  function start() {
    $('expand-all').addEventListener('click', () => {
      for (const id of [...view.collapsed]) setCollapsed(id, false);
    });
    $('collapse-idle').addEventListener('click', () => {
      if (!view.snapshot) return;
      for (const [id, entry] of view.nodes) {
        const parent = view.nodes.get(entry.node.parent);
        if (entry.node.children.length && entry.status === 'INVALID' &&
            (!parent || parent.status !== 'INVALID')) {
          setCollapsed(id, true, true);
        }
      }
    });
    fetch('snapshot', {cache: 'no-store'})
      .then((response) => response.json().then((data) => ({ok: response.ok, data})))
      .then(({ok, data}) => {
        // The stream may have brought a newer state while this answer was on its way
        // (the same seq, but marked behind after a gap): the stream's state wins.
        const late = Boolean(view.snapshot);
        if (ok && !late) apply(data);
        else if (!ok && !late && data.topic) {
          waiting(`Waiting for a snapshot on ${data.topic}…`);
        }
        document.body.dataset.fetched = late ? 'late' : 'used';
      })
      .catch(() => waiting('Cannot reach the view server.'));
    connect();
    setInterval(updateConnection, 1000);
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
