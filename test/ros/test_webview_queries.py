# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Query parameters of every path of the view servers: a bad one gets a 400 and a sentence.

The live view, the replay (``view --replay``) and the fleet page's executive views, all
without ROS. A value a path cannot use, a parameter it does not take, one given twice:
400, with ``{"error": "400 <a sentence saying what the path takes>"}`` (never Python's
``invalid literal for int()``). Paths that take no parameter ignore a query.
"""

from __future__ import annotations

import json
import threading
from typing import Iterator

from bt_executive.observe.replay import Timeline
from bt_executive.viewers.fleet import FleetDirectory, FleetServer
from bt_executive.viewers.replay_web import close, serve
from devtools import get
import pytest
from test_replay import record

PYTHON_WORDS = ('invalid literal', 'Traceback', 'int()', 'ValueError', 'KeyError', 'base 10')


def assert_sentence(code: int, body: bytes, *words: str) -> str:
    assert code == 400, (code, body)
    error = json.loads(body)['error']
    assert error.startswith('400 '), error
    sentence = error[4:]
    assert sentence[0].isalpha() or sentence[0] in "'/", sentence
    assert not any(word in sentence for word in PYTHON_WORDS), sentence
    assert len(sentence) < 300, sentence
    for word in words:
        assert word in sentence, (word, sentence)
    return sentence


@pytest.fixture(scope='module')
def replay(tmp_path_factory) -> Iterator[tuple[str, Timeline]]:
    path = str(tmp_path_factory.mktemp('replay') / 'run.mcap')
    record(path)
    server = serve(path, port=0)
    thread = threading.Thread(target=server.serve_forever, kwargs={'poll_interval': 0.1},
                              daemon=True)
    thread.start()
    try:
        yield f'http://127.0.0.1:{server.port}', server.replay.timeline
    finally:
        server.shutdown()
        close(server)


LAST = '{last}'  # the last frame's index, filled in per recording

BAD_REPLAY = [
    ('/replay/frame?i=abc', ('i must be a frame number from 0 to', "'abc'")),
    ('/replay/frame?i=', ('i must be a frame number', "''")),
    ('/replay/frame?i=-1', ('i must be a frame number from 0 to', '-1')),
    ('/replay/frame?i=1.5', ('i must be', "'1.5'")),
    ('/replay/frame?i=1e3', ('i must be', "'1e3'")),
    ('/replay/frame?i=99999', ('i must be a frame number from 0 to', '99999')),
    ('/replay/frame?i=123456789012345678901234567890', ('i must be',)),
    ('/replay/frame?i=%ff', ('not UTF-8',)),
    ('/replay/frame?i=1&i=2', ("'i' is given twice",)),
    ('/replay/frame?index=3', ('/replay/frame takes i', "'index'")),
    ('/replay/frame?i=0&x', ("'x' is not one of them",)),
    ('/replay/find', ('needs tick=T',)),
    ('/replay/find?tick=abc', ('tick must be a tick count', "'abc'")),
    ('/replay/find?tick=-3', ('tick must be a tick count', '-3')),
    ('/replay/find?tick=', ('tick must be a tick count',)),
    ('/replay/find?tick=1&from=2', ('takes tick alone', "'from'")),
    ('/replay/find?from=abc&failure=1', ('from must be a frame number', "'abc'")),
    ('/replay/find?from=-1&failure=1', ('from must be a frame number', '-1')),
    ('/replay/find?from=0&dir=2&failure=1', ('dir must be 1 (forward) or -1', "'2'")),
    ('/replay/find?from=0&dir=back&node=Main/root', ('dir must be', "'back'")),
    ('/replay/find?from=0&failure=maybe', ('failure must be 1', "'maybe'")),
    ('/replay/find?from=0&node=No/such/node', ('is not a node of this recording',)),
    ('/replay/find?from=0&nod=Main/root', ("'nod' is not one of them",)),
    ('/replay/find?from=0&failure=1&failure=1', ("'failure' is given twice",)),
]


@pytest.mark.parametrize('query,words', BAD_REPLAY, ids=[query for query, _ in BAD_REPLAY])
def test_every_bad_replay_query_is_a_400_with_a_sentence(replay, query, words):
    base, _ = replay
    code, _, body = get(base + query)
    assert_sentence(code, body, *words)


def test_good_replay_queries_are_answered(replay):
    base, timeline = replay
    last = len(timeline) - 1
    for query in ('/replay/timeline', '/replay/timeline?ignored=1', '/replay/frame',
                  f'/replay/frame?i={last}', '/replay/frame?i=%2B1', '/replay/find?tick=0',
                  '/replay/find?tick=99999999', '/replay/find?from=0&failure=1',
                  '/replay/find?from=0&failure=1&dir=-1',
                  '/replay/find?from=0&node=Main/root/count/every3',
                  '/replay/find?from=0&node=Main%2Froot%2Fcount%2Fevery3&dir=1'):
        code, _, body = get(base + query)
        assert code == 200, (query, body)
    assert json.loads(get(base + '/replay/find?tick=99999999')[2])['index'] == last
    assert get(base + '/replay/nothing?i=x')[0] == 404


@pytest.mark.parametrize('query,words', [
    ('/?view=grpah', ('view must be outline, graph or both', "'grpah'")),
    ('/?view=', ('view must be',)),
    ('/index.html?view=tree', ("'tree'",)),
    ('/?view=graph&view=both', ("'view' is given twice",)),
    ('/layout?c=1,x&w=1,1&h=1,1', ('c must be comma-separated whole numbers', "'x'")),
    ('/layout?c=1,0&w=1,1', ('layout needs h',)),
    ('/layout?c=1,0&w=1,1&h=1,1&r=0', ('r must be a whole number from 1 to 200',)),
    ('/layout?c=1,0&w=1,1&h=1,1&q=1', ("'q' is not one of them",)),
])
def test_bad_page_and_layout_queries_are_400s_with_a_sentence(view_server, query, words):
    server = view_server(max_clients=2, poll_interval=0.1)
    code, _, body = get(f'http://127.0.0.1:{server.port}{query}')
    assert_sentence(code, body, *words)


def test_paths_without_parameters_ignore_the_query(view_server):
    server = view_server(max_clients=2, poll_interval=0.1)
    base = f'http://127.0.0.1:{server.port}'
    for query in ('/?view=graph', '/?view=both&utm=x', '/app.js?v=2', '/graph.css?_=1',
                  '/?%ff', '/index.html?view=outline'):
        assert get(base + query)[0] == 200, query
    assert get(base + '/snapshot?x=1')[0] == 503  # no snapshot yet, as without a query
    assert get(base + '/replay/frame?i=abc')[0] == 404  # not a replay


def test_the_fleet_pages_executive_views_check_their_queries():
    directory = FleetDirectory(subscribe=lambda node: None)
    server = FleetServer(('127.0.0.1', 0), directory)
    thread = threading.Thread(target=server.serve_forever, kwargs={'poll_interval': 0.1},
                              daemon=True)
    thread.start()
    try:
        directory.seen(['/robot1/bt_executive'])
        base = f'http://127.0.0.1:{server.port}/executive/robot1/bt_executive/'
        code, _, body = get(base + 'layout?c=2,0,0&w=80,60,60&h=36,36,36')
        assert code == 200 and len(json.loads(body)['x']) == 3
        assert_sentence(*get(base + 'layout?c=2,0&w=80,60&h=36,36')[::2], 'one tree')
        assert_sentence(*get(base + '?view=tree')[::2], 'view must be')
        assert get(base + '?view=graph')[0] == 200
        assert get(f'http://127.0.0.1:{server.port}/fleet?ignored=1')[0] == 200
    finally:
        directory.close()
        server.hub.close()
        server.shutdown()
        thread.join(5.0)
        server.server_close()
    assert not server.errors
