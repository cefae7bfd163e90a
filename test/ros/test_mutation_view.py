# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""``bt-executive view --mutation REPORT``: a mutation report over its tree, in Chromium.

The report is written as docs/testing.md documents schema ``bt_executive/mutation/1``
(test_mutation.py checks that ``--mutate`` writes that schema): a survivor in a called
tree shows on every call of it, a node whose mutants were all caught is SUCCESS, one
without mutants INVALID, and the Why panel lists the survivors.
"""

from __future__ import annotations

import json
import pathlib
import re
import signal
import subprocess
import sys
import threading
import urllib.request

from bt_executive.app.cli import main as cli
from bt_executive.viewers.mutation_web import report_snapshot, serve
from devtools import assert_no_machine_paths, PAGE_STATE
import pytest
from test_webview import assert_page_matches

pytestmark = pytest.mark.ros

ROOT = pathlib.Path(__file__).resolve().parents[2]
PATROL = str(ROOT / 'config' / 'patrol.yaml')


def mutant(number: int, node: str, outcome: str, before: str = 'a', after: str = 'b'):
    return {'number': number, 'key': f'x {node}', 'operator': 'number',
            'file': 'config/patrol_mission.yaml', 'line': 1, 'column': 1, 'node': node,
            'before': before, 'after': after, 'outcome': outcome, 'scenario': None,
            'detail': '', 'reason': '', 'reached_by': []}


def write_report(path: pathlib.Path) -> None:
    mutants = [mutant(1, 'Patrol/root/recharge', 'killed'),
               mutant(2, 'Patrol/root/recharge', 'equivalent'),
               mutant(3, 'Navigate/drive', 'survived', 'timeout: 60', 'timeout: 54'),
               mutant(4, 'Gone/node', 'killed')]
    tree = {'file': PATROL, 'tree': 'Patrol', 'scenarios': [], 'generated': 4,
            'not_viable': 0, 'counts': {'killed': 2, 'timeout': 0, 'survived': 1,
                                        'equivalent': 1},
            'score': 66.7, 'mutants': mutants}
    path.write_text(json.dumps({'schema': 'bt_executive/mutation/1', 'seed': 0,
                                'operators': ['number'], 'limit': None, 'numbers': None,
                                'score': 66.7, 'trees': [tree]}))


def test_the_report_marks_every_node_by_its_mutants(tmp_path):
    report = tmp_path / 'mutation.json'
    write_report(report)
    snapshot = report_snapshot(str(report))
    state = snapshot['state']
    drives = [ident for ident in state if ident.endswith('/Navigate/drive')]
    assert len(drives) >= 2  # the called tree: every call shows its survivor
    for ident in drives:
        assert state[ident]['status'] == 'FAILURE'
        assert '#3 number: timeout: 60 -> timeout: 54' in state[ident]['feedback']
    assert state['Patrol/root/recharge'] == {'status': 'SUCCESS',
                                             'feedback': '2 mutants, 2 caught'}
    assert state['Patrol/root']['status'] == 'INVALID'
    assert snapshot['mutation']['survived'] == 1 and snapshot['mutation']['unplaced'] == 1
    assert {step['id'] for step in snapshot['why']} == set(drives)


def test_the_page_shows_the_survivors(browser, tmp_path):
    report = tmp_path / 'mutation.json'
    write_report(report)
    server = serve(str(report), port=0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        page = browser.open_page(f'http://127.0.0.1:{server.port}/')
        page.wait_until("document.body.dataset.connection === 'report'",
                        'the page to show the report')
        shown = page.evaluate(PAGE_STATE)
        snapshot = json.loads(server.hub.latest())
        assert_page_matches(shown['html'], snapshot)
        assert page.evaluate("document.getElementById('why-title').textContent") == \
            'Surviving mutants'
        summary = page.evaluate("document.getElementById('why-summary').textContent")
        assert summary == 'mutation score 66.7 %: 1 of 4 mutants survived'
        why = page.evaluate("document.getElementById('why').textContent")
        assert '#3 number: timeout: 60 -> timeout: 54 survived' in why
        assert page.evaluate("document.getElementById('connection').textContent") == \
            'mutation report'
        assert_no_machine_paths(page, tmp_path)
        page.screenshot(tmp_path / 'mutation.png')
    finally:
        server.hub.close()
        server.shutdown()
        thread.join(5.0)
        server.server_close()


@pytest.mark.parametrize('args, expected', [
    (['--mutation', 'missing.json'], 'cannot read'),
    (['--mutation', PATROL], 'not JSON'),
    (['--mutation', '{report}', '--tree', 'Nope'], "no tree 'Nope' in the report"),
    (['--tree', 'Patrol'], '--tree goes with --mutation'),
    (['--mutation', '{report}', '--replay', 'x.mcap'], 'not together with --replay'),
])
def test_bad_uses_say_what_is_wrong(args, expected, tmp_path, capsys):
    report = tmp_path / 'mutation.json'
    write_report(report)
    status = cli(['view', *[arg.format(report=report) for arg in args], '--port', '0'])
    assert status in (1, 2)
    assert expected in capsys.readouterr().err


def test_the_command_serves_until_sigint_and_exits_0(tmp_path):
    report = tmp_path / 'mutation.json'
    write_report(report)
    process = subprocess.Popen([sys.executable, '-m', 'bt_executive.app.cli', 'view',
                                '--mutation', str(report), '--port', '0'],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               cwd=tmp_path)
    try:
        banner = process.stdout.readline()  # printed once serving
        assert 'score 66.7 %, 1 of 4 mutants survived' in banner, process.stderr.read()
        port = int(re.search(r':(\d+)/', banner).group(1))
        with urllib.request.urlopen(f'http://127.0.0.1:{port}/snapshot', timeout=30) as answer:
            assert json.loads(answer.read())['mutation']['survived'] == 1
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 0
    finally:
        process.kill()
        process.wait()
