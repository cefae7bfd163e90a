// Copyright 2026 bt_executive developers
// SPDX-License-Identifier: Apache-2.0
// bt-executive view: the debugger of a live executive (docs/debugging.md, "In the web view").
//
// Shown only when the view server answers GET debug (a live view; replays and mutation
// reports answer 404). Every action is a POST debug that the server forwards to the
// executive's ~/debug/...; the executive's answer is shown as it is: what was done, or
// why it was refused (debugging off, no such breakpoint, a value of the wrong type...).
// The page never assumes success: the marks on the tree come from the executive's state
// (the snapshot's executive.debug, or the state an answer carries).
// Data is only ever inserted as text (textContent), never as HTML.
'use strict';

(function () {
  const $ = (id) => document.getElementById(id);
  const WHEN = ['before', 'success', 'failure', 'running'];
  const STATUSES = ['SUCCESS', 'FAILURE', 'RUNNING'];
  // Asking again after an executive that did not answer: the wait doubles up to a minute
  // (a browser has few connections per server; the event stream holds one already).
  const RETRY_MS = [5000, 60000];

  const debug = {
    available: false, // the server forwards debug requests (a live view)
    off: null, // why the executive refuses (debugging off), once it said so
    state: null, // the executive's debugger state (breakpoints, substitutions, paused)
    session: null, // the snapshot session the state was asked for
    menuFor: null, // the node id the menu is open for
    busy: 0, // requests on their way
    asking: false, // a GET debug on its way
    retry: 0, // the wait before asking again after no answer (ms; 0: none planned)
  };

  function el(tag, className, text) {
    const element = document.createElement(tag);
    if (className) element.className = className;
    if (text !== undefined && text !== null) element.textContent = String(text);
    return element;
  }

  function api() {
    return window.btView;
  }

  function label(id) {
    return api() && api().labelOf ? api().labelOf(id) : id;
  }

  // ---- talking to the server -----------------------------------------------------------

  // Resolve with {ok, text, state}: ok only when the executive says it did it.
  function send(fields) {
    debug.busy += 1;
    document.body.dataset.debugBusy = String(debug.busy);
    return fetch('debug', {
      method: 'POST',
      cache: 'no-store',
      headers: {'Content-Type': 'application/json'},
      body: JSON.stringify(fields),
    })
      .then((response) => response.json().then((data) => ({response, data}),
        () => ({response, data: {error: `${response.status} (no JSON answer)`}})))
      .then(({response, data}) => {
        if (!response.ok || typeof data.success !== 'boolean') {
          return {ok: false, text: `error: ${data.error || response.status}`, state: null};
        }
        return {ok: data.success, text: data.success ? data.message
          : `refused: ${data.message}`, state: data.state || null};
      })
      .catch((error) => ({ok: false, text: `error: cannot reach the view server (${error})`,
        state: null}))
      .then((answer) => {
        debug.busy -= 1;
        document.body.dataset.debugBusy = String(debug.busy);
        if (answer.state && answer.state.enabled) useState(answer.state);
        if (!answer.ok && /debugging is off/.test(answer.text)) {
          debug.off = answer.text.replace(/^refused: /, '');
        }
        return answer;
      });
  }

  function say(element, answer) {
    element.textContent = answer.text;
    element.dataset.result = answer.ok ? 'done' : 'refused';
    element.setAttribute('role', answer.ok ? 'status' : 'alert');
  }

  // `where`: also show the answer there (a function: the menu is redrawn as states come)
  function request(fields, where) {
    return send(fields).then((answer) => {
      say($('debug-message'), answer);
      const also = typeof where === 'function' ? where() : where;
      if (also && also !== $('debug-message')) say(also, answer);
      updateBar();
      return answer;
    });
  }

  function askLater() {
    debug.retry = Math.min(RETRY_MS[1], debug.retry ? debug.retry * 2 : RETRY_MS[0]);
    setTimeout(askState, debug.retry);
  }

  function askState() {
    if (debug.asking) return;
    debug.asking = true;
    const snapshot = api() && api().view.snapshot;
    debug.session = snapshot ? snapshot.session : null;
    fetch('debug', {cache: 'no-store'})
      .then((response) => {
        if (response.status === 404) return null; // not a live view: no debugger
        return response.json().then((data) => ({response, data}));
      })
      .then((answer) => {
        debug.asking = false;
        if (!answer) return;
        show();
        const {response, data} = answer;
        if (!response.ok) {
          say($('debug-message'), {ok: false, text: `error: ${data.error || response.status}`});
          askLater();
          return;
        }
        debug.retry = 0;
        if (data.success) {
          debug.off = null;
          useState(data.state);
        } else {
          debug.off = data.message; // debugging is off: the executive's own words
          debug.state = null;
        }
        updateBar();
        applyMarks();
      })
      .catch(() => {
        debug.asking = false;
        askLater();
      });
  }

  // ---- the state and the marks ---------------------------------------------------------

  function useState(state) {
    if (!state || typeof state !== 'object') return;
    debug.state = state;
    debug.off = null;
    updateBar();
    applyMarks();
  }

  function rulesOf(id) {
    const state = debug.state || {};
    return {
      breakpoints: (state.breakpoints || []).filter((point) => point.node === id),
      substitution: (state.substitutions || []).find((sub) => sub.node === id) || null,
      pausedHere: Boolean(state.paused && state.paused_at && state.paused_at.node === id),
    };
  }

  function pointText(point) {
    const when = point.when === 'before' ? 'before' : `on ${point.when.toUpperCase()}`;
    return `● ${when}` + (point.condition ? ` if ${point.condition}` : '') +
      (point.policy === 'run' ? ' (goals run)' : '');
  }

  function substitutionText(sub) {
    const left = sub.ticks === null || sub.ticks === undefined ? ''
      : ` ×${Math.max(0, sub.ticks - (sub.used || 0))}`;
    return `⇒ ${sub.status}${left}`;
  }

  // the attributes the styles draw (the outline's item and the graph's box alike)
  function markElement(element, rules) {
    const values = {
      breakpoint: rules.breakpoints.map((point) => point.when).join(' '),
      substituted: rules.substitution ? rules.substitution.status : '',
      pausedAt: rules.pausedHere ? 'true' : '',
    };
    for (const [name, value] of Object.entries(values)) {
      if (value) element.dataset[name] = value; else delete element.dataset[name];
    }
  }

  function markOutline(id, entry, rules) {
    markElement(entry.li, rules);
    let marks = entry.row.querySelector(':scope > .debug-marks');
    if (!marks) {
      marks = el('span', 'debug-marks');
      entry.row.insertBefore(marks, entry.feedbackEl);
    }
    const parts = rules.breakpoints.map((point) => ['breakpoint', pointText(point)]);
    if (rules.substitution) parts.push(['substitution', substitutionText(rules.substitution)]);
    if (rules.pausedHere) parts.unshift(['paused', 'paused here']);
    const text = JSON.stringify(parts);
    if (marks.dataset.text !== text) {
      marks.dataset.text = text;
      marks.replaceChildren(...parts.map(([kind, words]) => {
        const chip = el('span', `debug-chip ${kind}`, words);
        chip.dataset.kind = kind;
        return chip;
      }));
    }
    const button = entry.row.querySelector(':scope > .dbg');
    if (button) {
      button.title = (rules.breakpoints.length || rules.substitution ? 'breakpoints and substitutions set: '
        : '') + 'debug this node (breakpoint, substitute, clear)';
    }
  }

  function markGraph(id, rules) {
    const graph = window.btGraph;
    const item = graph && graph.state.items && graph.state.items.get(id);
    if (item) markElement(item.g, rules);
  }

  function addButtons() {
    for (const [id, entry] of api().view.nodes) {
      if (entry.row.querySelector(':scope > .dbg')) continue;
      const button = el('button', 'dbg');
      button.type = 'button';
      button.setAttribute('aria-label', `debug ${id}`);
      button.addEventListener('click', (event) => {
        event.stopPropagation(); // not a fold
        event.preventDefault();
        openMenu(id, button);
      });
      entry.row.insertBefore(button, entry.row.firstChild);
      entry.row.addEventListener('contextmenu', (event) => {
        event.preventDefault();
        openMenu(id, entry.row);
      });
    }
  }

  function applyMarks() {
    if (!debug.available || !api()) return;
    addButtons();
    for (const [id, entry] of api().view.nodes) {
      const rules = rulesOf(id);
      markOutline(id, entry, rules);
      markGraph(id, rules);
    }
    if (debug.menuFor) fillMenu(debug.menuFor);
  }

  function updateBar() {
    const bar = $('debug-bar');
    const state = debug.state;
    let text;
    let mode;
    if (debug.off) {
      mode = 'off';
      text = debug.off;
    } else if (!state) {
      mode = 'unknown';
      text = 'asking the executive…';
    } else if (state.paused) {
      mode = 'paused';
      const at = state.paused_at;
      text = at ? `paused at breakpoint ${at.when === 'before' ? 'before' : 'on ' +
        at.when.toUpperCase() + ' of'} ‘${label(at.node)}’` : 'paused';
    } else {
      mode = 'running';
      text = 'running';
    }
    bar.dataset.state = mode;
    $('debug-state').textContent = text;
    $('debug-state').title = state && state.paused_at ? state.paused_at.node : text;
    const points = state ? (state.breakpoints || []).length : 0;
    const subs = state ? (state.substitutions || []).length : 0;
    $('debug-rules').textContent = state
      ? `${points} breakpoint${points === 1 ? '' : 's'} · ${subs} substitution${subs === 1 ? '' : 's'}`
      : '';
    document.body.dataset.debug = mode;
  }

  // ---- the node menu -------------------------------------------------------------------

  function menuButton(text, title, fields, extra) {
    const button = el('button', 'menu-action', text);
    button.type = 'button';
    button.title = title;
    button.addEventListener('click', () => {
      const sent = typeof fields === 'function' ? fields() : fields;
      if (!sent) return;
      const note = () => $('debug-menu').querySelector('.menu-message');
      note().textContent = 'asking the executive…';
      note().dataset.result = 'busy';
      request(sent, note).then((answer) => {
        if (answer.ok && !(extra && extra.keepOpen)) closeMenu();
      });
    });
    return button;
  }

  function fillMenu(id) {
    const menu = $('debug-menu');
    const rules = rulesOf(id);
    const previous = menu.querySelector('.menu-message');
    const keep = previous ? [previous.textContent, previous.dataset.result] : ['', ''];
    const policy = menu.querySelector('select.policy');
    const chosenPolicy = policy ? policy.value : 'halt';
    const ticksInput = menu.querySelector('input.ticks');
    const chosenTicks = ticksInput ? ticksInput.value : '';
    const conditionInput = menu.querySelector('input.condition');
    const chosenCondition = conditionInput ? conditionInput.value : '';
    menu.replaceChildren();
    menu.dataset.node = id;
    const head = el('div', 'menu-head');
    head.appendChild(el('b', '', label(id)));
    const close = el('button', 'menu-close', '×');
    close.type = 'button';
    close.title = 'close (Esc)';
    close.addEventListener('click', closeMenu);
    head.appendChild(close);
    menu.appendChild(head);
    menu.appendChild(el('div', 'menu-path', id));

    const breakSection = el('div', 'menu-section');
    breakSection.appendChild(el('span', 'menu-label', 'break'));
    const condition = el('input', 'condition');
    condition.type = 'text';
    condition.placeholder = 'if (blackboard expression, optional)';
    condition.value = chosenCondition;
    condition.spellcheck = false;
    const select = el('select', 'policy');
    select.title = 'what a hit does to the goals running at servers';
    for (const [value, text] of [['halt', 'halt goals (safe)'], ['run', 'let goals run']]) {
      const option = el('option', '', text);
      option.value = value;
      select.appendChild(option);
    }
    select.value = chosenPolicy;
    const fieldsFor = (when) => () => ({command: 'breakpoint', node: id, when,
      condition: condition.value.trim(), policy: select.value});
    for (const when of WHEN) {
      const text = when === 'before' ? 'before it starts' : `on ${when.toUpperCase()}`;
      const button = menuButton(text, `stop the tree ${when === 'before'
        ? 'when it is about to start this node' : 'after a tick of this node ending ' +
        when.toUpperCase()}`, fieldsFor(when));
      button.dataset.action = `break-${when}`;
      if (rules.breakpoints.some((point) => point.when === when)) button.dataset.set = 'true';
      breakSection.appendChild(button);
    }
    breakSection.appendChild(condition);
    breakSection.appendChild(select);
    menu.appendChild(breakSection);

    const subSection = el('div', 'menu-section');
    subSection.appendChild(el('span', 'menu-label', 'substitute'));
    const ticks = el('input', 'ticks');
    ticks.type = 'number';
    ticks.min = '0';
    ticks.step = '1';
    ticks.placeholder = 'ticks';
    ticks.title = 'for how many ticks (empty or 0: until removed)';
    ticks.value = chosenTicks;
    for (const status of STATUSES) {
      const button = menuButton(status, `the node does not tick: it takes ${status}` +
        ' (its own work, e.g. a goal, does not start)', () => {
        const count = ticks.value.trim() === '' ? 0 : Number(ticks.value);
        if (!Number.isInteger(count) || count < 0) {
          say(menu.querySelector('.menu-message'),
            {ok: false, text: 'ticks must be a whole number from 0 (0: until removed)'});
          return null;
        }
        return {command: 'substitute', node: id, status: status.toLowerCase(), ticks: count};
      });
      button.dataset.action = `substitute-${status.toLowerCase()}`;
      button.dataset.status = status;
      if (rules.substitution && rules.substitution.status === status) {
        button.dataset.set = 'true';
      }
      subSection.appendChild(button);
    }
    subSection.appendChild(ticks);
    menu.appendChild(subSection);

    const clearSection = el('div', 'menu-section');
    clearSection.appendChild(el('span', 'menu-label', 'clear'));
    const clear = el('button', 'menu-action', 'clear this node');
    clear.type = 'button';
    clear.dataset.action = 'clear';
    clear.title = 'remove its breakpoints and its substitution';
    clear.addEventListener('click', () => clearNode(id));
    clearSection.appendChild(clear);
    menu.appendChild(clearSection);

    const message = el('p', 'menu-message debug-message', keep[0]);
    if (keep[1]) message.dataset.result = keep[1];
    message.setAttribute('role', 'status');
    menu.appendChild(message);
  }

  function clearNode(id) {
    const rules = rulesOf(id);
    const asks = [];
    if (rules.breakpoints.length || !rules.substitution) {
      asks.push({command: 'remove_breakpoint', node: id});
    }
    if (rules.substitution) asks.push({command: 'remove_substitution', node: id});
    const note = $('debug-menu').querySelector('.menu-message');
    note.textContent = 'asking the executive…';
    note.dataset.result = 'busy';
    let chain = Promise.resolve([]);
    for (const fields of asks) {
      chain = chain.then((answers) => send(fields).then((answer) => [...answers, answer]));
    }
    chain.then((answers) => {
      const refused = answers.filter((answer) => !answer.ok);
      const shown = refused.length ? refused[0] : answers[answers.length - 1];
      say($('debug-message'), shown);
      say($('debug-menu').querySelector('.menu-message'), shown);
      updateBar();
      if (!refused.length) closeMenu();
    });
  }

  function openMenu(id, anchor) {
    const menu = $('debug-menu');
    debug.menuFor = id;
    const message = menu.querySelector('.menu-message');
    if (message && menu.dataset.node !== id) message.textContent = '';
    fillMenu(id);
    menu.hidden = false;
    const box = anchor.getBoundingClientRect();
    const width = menu.offsetWidth;
    const left = Math.max(8, Math.min(box.left + window.scrollX,
      window.scrollX + document.documentElement.clientWidth - width - 8));
    menu.style.left = `${left}px`;
    menu.style.top = `${box.bottom + window.scrollY + 4}px`;
    document.body.dataset.debugMenu = id;
  }

  function closeMenu() {
    $('debug-menu').hidden = true;
    debug.menuFor = null;
    delete document.body.dataset.debugMenu;
  }

  // ---- the blackboard editor -----------------------------------------------------------

  function addEditButtons() {
    for (const row of $('blackboard').tBodies[0].rows) {
      const cell = row.cells[0];
      if (!cell || cell.querySelector('.bb-edit-button')) continue;
      const button = el('button', 'bb-edit-button', '✎');
      button.type = 'button';
      button.title = `set ${row.dataset.key}`;
      button.setAttribute('aria-label', `edit ${row.dataset.key}`);
      button.addEventListener('click', () => {
        $('bb-key').value = row.dataset.key;
        $('bb-value').value = row.dataset.set === 'true' ? row.dataset.text : '';
        $('bb-message').textContent = '';
        $('bb-value').focus();
        $('bb-value').select();
      });
      cell.appendChild(button);
    }
  }

  function submitEdit(event) {
    event.preventDefault();
    const key = $('bb-key').value.trim();
    const value = $('bb-value').value;
    if (!key) {
      say($('bb-message'), {ok: false, text: 'name the key to set'});
      return;
    }
    $('bb-message').textContent = `setting ${key}…`;
    $('bb-message').dataset.result = 'busy';
    request({command: 'set', key, value}, $('bb-message'));
  }

  // ---- start -----------------------------------------------------------------------------

  function show() {
    if (debug.available) return;
    debug.available = true;
    $('debug-bar').hidden = false;
    $('bb-edit').hidden = false;
    document.body.dataset.debug = 'unknown';
    const bar = [['debug-pause', {command: 'pause'}], ['debug-step', {command: 'step'}],
      ['debug-continue', {command: 'continue'}], ['debug-clear', {command: 'clear'}]];
    for (const [id, fields] of bar) {
      $(id).addEventListener('click', () => {
        $('debug-message').textContent = 'asking the executive…';
        $('debug-message').dataset.result = 'busy';
        request(fields);
      });
    }
    $('bb-edit').addEventListener('submit', submitEdit);
    document.addEventListener('keydown', (event) => {
      if (event.key === 'Escape' && !$('debug-menu').hidden) closeMenu();
    });
    document.addEventListener('click', (event) => {
      const menu = $('debug-menu');
      if (menu.hidden || menu.contains(event.target)) return;
      if (event.target.closest && event.target.closest('.dbg')) return;
      closeMenu();
    });
    // a right-click on a box of the graph opens the same menu
    $('graph-world').addEventListener('contextmenu', (event) => {
      const box = event.target.closest && event.target.closest('.gnode');
      if (!box) return;
      event.preventDefault();
      openMenu(box.dataset.graphId, box);
    });
    addEditButtons();
    applyMarks();
  }

  function onSnapshot(event) {
    const snapshot = event.detail.snapshot;
    if (!debug.available) return;
    if (event.detail.rebuilt && debug.menuFor && !api().view.nodes.has(debug.menuFor)) {
      closeMenu();
    }
    const executive = snapshot.executive || {};
    if (executive.debug && executive.debug.enabled) {
      useState(executive.debug);
    } else if (snapshot.session !== debug.session) {
      askState(); // another executive process: ask it whether it debugs
    } else if (debug.state && !executive.debug) {
      debug.state = null; // the executive stopped saying (a restart without debug)
      askState();
    }
    addEditButtons();
    applyMarks();
  }

  function start() {
    if (!window.btView || !$('debug-bar')) return;
    document.addEventListener('bt-snapshot', onSnapshot);
    askState();
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
