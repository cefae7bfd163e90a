// Copyright 2026 bt_executive developers
// SPDX-License-Identifier: Apache-2.0
// bt-executive view, fleet page: every executive in the ROS graph, from GET /fleet.
//
// The list is fetched once a second and updated in place (one row per node name);
// each row opens that executive's usual view. Data is only inserted as text.
'use strict';

(function () {
  const $ = (id) => document.getElementById(id);
  const STATUSES = ['SUCCESS', 'FAILURE', 'RUNNING', 'INVALID'];
  let failures = 0;

  function el(tag, className, text) {
    const element = document.createElement(tag);
    if (className) element.className = className;
    if (text !== undefined && text !== null) element.textContent = String(text);
    return element;
  }

  function cells(row) {
    if (row.cells.length) return row.cells;
    for (const name of ['ns', 'node', 'tree', 'root', 'state', 'num ticks', 'num rate',
      'failure', 'open']) {
      row.appendChild(el('td', name));
    }
    const link = el('a', 'open', 'open');
    row.cells[8].appendChild(link);
    const pill = el('span', 'status');
    row.cells[3].appendChild(pill);
    return row.cells;
  }

  function fill(row, executive) {
    const [ns, node, tree, root, state, ticks, rate, failure, open] = cells(row);
    ns.textContent = executive.namespace;
    node.textContent = executive.name;
    tree.textContent = executive.tree || '–';
    tree.title = executive.file || '';
    const status = STATUSES.includes(executive.root_status) ? executive.root_status : 'INVALID';
    const pill = root.firstChild;
    pill.dataset.status = status;
    pill.textContent = executive.root_status || 'NO DATA';
    state.replaceChildren(el('span', 'state', executive.state));
    state.firstChild.dataset.state = executive.state;
    if (executive.terminated) state.firstChild.title = executive.terminated;
    ticks.textContent = executive.ticks ?? '–';
    rate.textContent = typeof executive.tick_rate === 'number'
      ? `${executive.tick_rate.toFixed(1)} Hz` : '–';
    failure.textContent = executive.last_failure || '';
    open.firstChild.href = executive.url;
    open.firstChild.title = `the live tree of ${executive.node}`;
    row.dataset.state = executive.state;
    row.dataset.rootStatus = status;
  }

  function render(data) {
    const body = $('fleet').tBodies[0];
    const rows = new Map([...body.rows].map((row) => [row.dataset.node, row]));
    const wanted = [];
    for (const executive of data.executives) {
      let row = rows.get(executive.node);
      if (!row) {
        row = el('tr');
        row.dataset.node = executive.node;
      }
      fill(row, executive);
      wanted.push(row);
    }
    const current = [...body.rows];
    if (current.length !== wanted.length || current.some((row, i) => row !== wanted[i])) {
      body.replaceChildren(...wanted);
    }
    $('fleet-count').textContent = String(data.executives.length);
    $('fleet-empty').hidden = data.executives.length > 0;
    $('fleet-domain').textContent = `ROS_DOMAIN_ID ${data.domain_id}`;
    const online = data.executives.filter((e) => e.state !== 'offline').length;
    document.title = `${online} executives · bt_executive fleet`;
  }

  function connection(state, text) {
    const element = $('connection');
    element.dataset.state = state;
    element.textContent = text;
    document.body.dataset.connection = state;
  }

  function poll() {
    fetch('fleet', {cache: 'no-store'})
      .then((response) => response.json())
      .then((data) => {
        failures = 0;
        render(data);
        connection('live', 'live');
      })
      .catch(() => {
        failures += 1;
        if (failures > 1) connection('offline', 'reconnecting…');
      })
      .finally(() => setTimeout(poll, 1000));
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', poll);
  else poll();
})();
