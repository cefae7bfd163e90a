// Copyright 2026 bt_executive developers
// SPDX-License-Identifier: Apache-2.0
//
// A Foxglove WebSocket client as Lichtblick has it: the @foxglove/ws-protocol library's
// FoxgloveClient over the `ws` package, offering only `foxglove.websocket.v1`.
// Usage: node foxglove_ws_client.js URL TIMEOUT_SECONDS TOPIC...
// Subscribes to every advertised TOPIC (a leading '?': subscribed, not waited for); once
// each other one has a message (and the node table a tick > 0), prints one JSON line {subprotocol, serverInfo, channels, received} and exits
// 0; on a timeout or an error prints what came and exits 1.
'use strict';

const { FoxgloveClient } = require('@foxglove/ws-protocol');
const WebSocket = require('ws');

const [url, timeoutText, ...named] = process.argv.slice(2);
const topics = named.map((topic) => topic.replace(/^\?/, ''));
const awaited = named.filter((topic) => !topic.startsWith('?'));
const ws = new WebSocket(url, [FoxgloveClient.SUPPORTED_SUBPROTOCOL]);
const client = new FoxgloveClient({ ws });
const state = { subprotocol: null, serverInfo: null, channels: [], received: {} };
const subscriptions = new Map();
const decoder = new TextDecoder();

function finish(code, error) {
  if (error) {
    state.error = String(error);
  }
  process.stdout.write(JSON.stringify(state) + '\n');
  client.close();
  process.exit(code);
}

function complete() {
  const nodes = (state.received[topics.find((t) => t.endsWith('/nodes'))] || []);
  return awaited.every((topic) => (state.received[topic] || []).length > 0) &&
    nodes.length > 0 && nodes[nodes.length - 1].tick > 0;
}

const timer = setTimeout(() => finish(1, `timed out after ${timeoutText}s`),
  Number(timeoutText) * 1000);
client.on('open', () => { state.subprotocol = ws.protocol; });
client.on('error', (error) => { clearTimeout(timer); finish(1, error); });
client.on('serverInfo', (info) => { state.serverInfo = info; });
client.on('advertise', (channels) => {
  for (const channel of channels) {
    state.channels.push(channel);
    if (topics.includes(channel.topic)) {
      subscriptions.set(client.subscribe(channel.id), channel.topic);
    }
  }
});
client.on('message', ({ subscriptionId, data }) => {
  const topic = subscriptions.get(subscriptionId);
  const text = decoder.decode(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
  (state.received[topic] = state.received[topic] || []).push(JSON.parse(text));
  if (complete()) {
    clearTimeout(timer);
    finish(0);
  }
});
