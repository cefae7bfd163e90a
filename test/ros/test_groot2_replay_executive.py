# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""A real executive's recording served to Groot2: what its own Groot2 server served.

The executive runs in-process (``executive_host.Host``, ticked by hand) with its Groot2
server on and recording itself (``record_file``); after each tick, pause, resume and
swap the test keeps what the live server serves. The replay of the file must serve, at
each recorded state, the same status bytes and XML, and a new tree UUID after the swap.
"""

from __future__ import annotations

from bt_executive.observe import groot2
from bt_executive.observe.groot2_replay import Groot2Replay
from bt_executive.observe.replay import Timeline
from btview import client as btview_client
from executive_host import write_tree
from helpers import free_port
import pytest
from test_groot2 import ask, header
from test_groot2_executive import SECOND  # noqa: I100

pytestmark = pytest.mark.ros

TIMEOUT = 15.0
FIRST = """
    main: Blink
    blackboard: {n: 0}
    trees:
      Blink:
        Sequence root:
          - SetBlackboard: {key: n, value: '${n + 1}'}
          - Selector pick:
              - Condition odd: n % 2 == 1
              - Subtree call: {tree: Step}
      Step:
        SuccessEveryN tock: 3
    """


def test_the_replay_serves_what_the_executives_groot2_server_served(host, tmp_path):
    path = str(tmp_path / 'run.mcap')
    ex = host(write_tree(tmp_path, 'a.yaml', FIRST), manual=True, groot2_port=free_port(),
              record_file=path, snapshot_keys=['*'], snapshot_heartbeat=3600.0)
    executive = ex.executive
    live: dict[tuple[int, int], tuple[bytes, bytes, bytes]] = {}

    def keep() -> None:
        """Note what the live server serves for the snapshot just published."""
        view = executive.groot2.view
        key = (executive.snapshots.revision, executive.snapshots.seq)
        served = (view.uuid, view.xml, view.status)
        assert live.setdefault(key, served) == served, f'{key}: one state, two statuses'

    keep()
    for tick in range(12):
        executive.tick_once()
        keep()
        if tick == 5:
            executive.pause()  # halted: "idle after" codes, published at once
            keep()
            executive.resume()
            keep()
    result = ex.set_tree(tree_file=write_tree(tmp_path, 'b.yaml', SECOND))
    assert result.successful, result.reason
    keep()
    for _ in range(3):
        executive.tick_once()
        keep()
    executive.stop_tree(ex.executor, timeout=5.0)  # halted on stop: published, recorded
    keep()
    executive.snapshot_topics.close()  # finalises the recording (as stopping the node does)
    codes = {code for _, _, status in live.values() for _, code in groot2.parse_status(status)}
    assert groot2.IDLE_AFTER + groot2.RUNNING in codes  # the pause, as the live server sent it
    timeline = Timeline.load(path)
    assert not timeline.notes, timeline.notes
    server = groot2.Groot2Server(0)
    try:
        replay = Groot2Replay(timeline, server, recording=path)
        assert not replay.notes, replay.notes
        keys = [(frame['revision'], frame['seq']) for frame in timeline.frames]
        assert set(keys) == set(live), 'every published state was recorded'
        client = btview_client.Groot2Client(port=server.port, timeout_ms=int(TIMEOUT * 1000))
        try:
            uuids: dict[bytes, str] = {}
            for index, key in enumerate(keys):
                replay.show(index)
                uuid, xml, status = live[key]
                assert replay.status(index) == status, f'state {index} {key}'
                assert ask(server.port, header('S'))[1] == status  # over the wire
                client.poll()  # as Groot2 polls: the reply header names the tree
                assert uuids.setdefault(uuid, client.tree_uuid) == client.tree_uuid
                assert replay.view(index).xml == xml
            assert len(set(uuids.values())) == 2, 'the swap is a new tree UUID'
            assert client.fetch_tree().name == 'Second'
        finally:
            client.close()
    finally:
        server.close()
