// Copyright 2026 bt_executive developers
// SPDX-License-Identifier: Apache-2.0
//
// The replay timeline of `bt-executive view --replay run.mcap`: scrub, step, play at a
// speed, jump to the next status change of a chosen node or to the next FAILURE. Each
// frame is a snapshot as the live page showed it (fetched from /replay/frame) and is
// drawn by the page itself (window.btView.show). In the live view /replay/timeline is
// 404 and nothing here shows.

'use strict';

(function () {
  const SPEEDS = [0.25, 0.5, 1, 2, 4, 8, 16, 64];
  const state = {timeline: null, index: 0, playing: false, speed: 1, timer: null,
    loading: null, want: null, hashTick: null};

  function el(tag, attributes, text) {
    const element = document.createElement(tag);
    for (const [key, value] of Object.entries(attributes || {})) {
      element.setAttribute(key, value);
    }
    if (text !== undefined) element.textContent = text;
    return element;
  }

  function build(timeline) {
    // styled by style.css (#replay-bar): the page's CSP allows no inline style
    const bar = el('section', {id: 'replay-bar', 'aria-label': 'replay timeline'});
    const button = (id, text, title) => el('button', {id, type: 'button', title}, text);
    bar.append(
      button('replay-first', '⇤', 'first state (Home)'),
      button('replay-prev', '←', 'previous state (←)'),
      button('replay-play', '▶', 'play / pause (space)'),
      button('replay-next', '→', 'next state (→)'),
      button('replay-last', '⇥', 'last state (End)'),
      el('input', {id: 'replay-slider', type: 'range', min: '0',
        max: String(timeline.count - 1), value: '0', 'aria-label': 'state'}),
      el('span', {id: 'replay-info', class: 'replay-info'}),
      el('label', {for: 'replay-speed'}, 'speed'));
    const speed = el('select', {id: 'replay-speed', title: 'play speed (+ / -)'});
    for (const value of SPEEDS) {
      const option = el('option', {value: String(value)}, `×${value}`);
      if (value === 1) option.selected = true;
      speed.appendChild(option);
    }
    const tick = el('input', {id: 'replay-tick', type: 'number', min: '0',
      placeholder: 'tick', title: 'go to the state at this tick'});
    const node = el('select', {id: 'replay-node', title: 'the node to follow'});
    node.appendChild(el('option', {value: ''}, 'any node'));
    bar.append(speed, tick,
      button('replay-prev-failure', '⟸ FAILURE', 'previous FAILURE (F)'),
      button('replay-next-failure', 'FAILURE ⟹', 'next FAILURE (f)'),
      node,
      button('replay-prev-change', '⟸ change', 'previous status change of the node (N)'),
      button('replay-next-change', 'change ⟹', 'next status change of the node (n)'),
      el('span', {id: 'replay-note', class: 'replay-note'},
        (timeline.notes || []).join(' · ')));
    document.body.insertBefore(bar, document.querySelector('main'));
    return bar;
  }

  function fillNodes(snapshot) {
    const select = document.getElementById('replay-node');
    const chosen = select.value;
    const known = new Set([...select.options].map((option) => option.value));
    for (const node of snapshot.nodes) {
      if (known.has(node.id)) continue;
      const option = el('option', {value: node.id},
        `${'  '.repeat(node.depth)}${node.name} (${node.type})`);
      select.appendChild(option);
    }
    select.value = chosen;
  }

  function showInfo() {
    const frame = state.timeline.frames[state.index];
    document.getElementById('replay-info').textContent =
      `${state.index + 1}/${state.timeline.count} · tick ${frame.tick} · ` +
      `+${frame.time.toFixed(1)} s · ${frame.root}`;
    document.getElementById('replay-slider').value = String(state.index);
    document.getElementById('replay-play').textContent = state.playing ? '⏸' : '▶';
    document.body.dataset.replayIndex = String(state.index);
    // the address says the tick shown (replaced, not pushed: no hashchange, no history)
    const hash = `#tick=${frame.tick}`;
    if (window.location.hash !== hash && state.hashTick === null) {
      history.replaceState(history.state, '', hash);
    }
  }

  function go(index) {
    const count = state.timeline.count;
    index = Math.max(0, Math.min(count - 1, index));
    state.want = index;
    if (state.loading !== null) return state.loading;
    state.loading = fetch(`replay/frame?i=${index}`, {cache: 'no-store'})
      .then((response) => response.json())
      .then((data) => {
        state.index = data.index;
        window.btView.show(data.snapshot, data.events);
        fillNodes(data.snapshot);
        showInfo();
      })
      .catch((error) => console.error('replay frame', error))
      .finally(() => {
        state.loading = null;
        if (state.want !== null && state.want !== state.index) go(state.want);
        else state.want = null;
      });
    return state.loading;
  }

  function find(query) {
    return fetch(`replay/find?from=${state.index}&${query}`, {cache: 'no-store'})
      .then((response) => response.json())
      .then((data) => {
        const note = document.getElementById('replay-note');
        if (data.index === null || data.index === undefined) {
          note.textContent = 'not found from here';
          return;
        }
        note.textContent = (state.timeline.notes || []).join(' · ');
        pause();
        go(data.index);
      });
  }

  function note(text) {
    document.getElementById('replay-note').textContent = text;
  }

  // Show the state at a tick (text as typed); says so when it is not a tick count.
  function goToTick(text) {
    if (!/^[0-9]{1,15}$/.test(text)) {
      note(`'${text}' is not a tick count (a whole number from 0)`);
      return Promise.resolve(false);
    }
    return fetch(`replay/find?tick=${text}`, {cache: 'no-store'})
      .then((response) => response.json().then((data) => {
        if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
        note((state.timeline.notes || []).join(' · '));
        pause();
        return go(data.index).then(() => true);
      }))
      .catch((error) => {
        note(String(error.message || error));
        return false;
      });
  }

  function fromHash() {
    const hash = window.location.hash;
    if (!hash || hash === '#') return Promise.resolve(false);
    const match = /^#tick=(.*)$/.exec(hash);
    if (!match) {
      note(`the address ends in '${hash}': #tick=N shows the state at tick N`);
      return Promise.resolve(false);
    }
    let tick = match[1];
    try {
      tick = decodeURIComponent(tick).trim();
    } catch (error) { /* not percent-encoding: refused as it is */ }
    state.hashTick = tick; // the address keeps what was typed while it is shown
    return goToTick(tick).then((shown) => {
      state.hashTick = null;
      return shown;
    });
  }

  function nodeQuery() {
    const node = document.getElementById('replay-node').value;
    return node ? `&node=${encodeURIComponent(node)}` : '';
  }

  function pause() {
    state.playing = false;
    clearTimeout(state.timer);
    if (state.timeline) showInfo();
  }

  function playStep() {
    if (!state.playing) return;
    const frames = state.timeline.frames;
    if (state.index >= frames.length - 1) {
      pause();
      return;
    }
    const gap = Math.max(frames[state.index + 1].time - frames[state.index].time, 0);
    state.timer = setTimeout(() => {
      go(state.index + 1).then(playStep);
    }, Math.min(gap / state.speed, 5) * 1000);
  }

  function play() {
    if (state.index >= state.timeline.count - 1) go(0);
    state.playing = true;
    showInfo();
    playStep();
  }

  function wire() {
    const on = (id, handler) => document.getElementById(id).addEventListener('click', handler);
    on('replay-first', () => { pause(); go(0); });
    on('replay-prev', () => { pause(); go(state.index - 1); });
    on('replay-next', () => { pause(); go(state.index + 1); });
    on('replay-last', () => { pause(); go(state.timeline.count - 1); });
    on('replay-play', () => (state.playing ? pause() : play()));
    on('replay-next-failure', () => find(`failure=1${nodeQuery()}`));
    on('replay-prev-failure', () => find(`failure=1&dir=-1${nodeQuery()}`));
    on('replay-next-change', () => changes(1));
    on('replay-prev-change', () => changes(-1));
    document.getElementById('replay-slider').addEventListener('input', (event) => {
      pause();
      go(Number(event.target.value));
    });
    document.getElementById('replay-speed').addEventListener('change', (event) => {
      state.speed = Number(event.target.value);
    });
    document.getElementById('replay-tick').addEventListener('change', (event) => {
      goToTick(event.target.value.trim());
    });
    // #tick=N typed into the address (or a link to this page) moves a loaded page
    window.addEventListener('hashchange', fromHash);
    document.addEventListener('keydown', (event) => {
      if (event.target.matches('input, select, textarea') || event.ctrlKey || event.metaKey) {
        return;
      }
      const keys = {
        ' ': () => (state.playing ? pause() : play()),
        ArrowRight: () => { pause(); go(state.index + 1); },
        ArrowLeft: () => { pause(); go(state.index - 1); },
        Home: () => { pause(); go(0); },
        End: () => { pause(); go(state.timeline.count - 1); },
        f: () => find(`failure=1${nodeQuery()}`),
        F: () => find(`failure=1&dir=-1${nodeQuery()}`),
        n: () => changes(1),
        N: () => changes(-1),
        '+': () => speedBy(1),
        '-': () => speedBy(-1),
      };
      const action = keys[event.key];
      if (action) {
        event.preventDefault();
        action();
      }
    });
  }

  function changes(direction) {
    const node = document.getElementById('replay-node').value;
    if (!node) {
      document.getElementById('replay-note').textContent = 'choose a node to follow first';
      return;
    }
    find(`node=${encodeURIComponent(node)}&dir=${direction}`);
  }

  function speedBy(step) {
    const at = Math.max(0, Math.min(SPEEDS.length - 1, SPEEDS.indexOf(state.speed) + step));
    state.speed = SPEEDS[at];
    document.getElementById('replay-speed').value = String(state.speed);
  }

  function start() {
    fetch('replay/timeline', {cache: 'no-store'})
      .then((response) => (response.ok ? response.json() : null))
      .then((timeline) => {
        if (!timeline || !window.btView) return;
        window.btView.replay = true;
        state.timeline = timeline;
        build(timeline);
        wire();
        fromHash().then((shown) => {
          if (!shown) go(0);
        });
      })
      .catch(() => {});
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
