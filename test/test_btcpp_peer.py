# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Our BT.CPP XML against the real BehaviorTree.CPP 4.8 (``behaviortreepy`` from PyPI).

BT.CPP's own factory parses, verifies and builds the exported trees, ticks trees made of
built-in-mapped nodes to compare their results with ours, and its Groot2 publisher sends
the tree it built, which must match what :func:`bt_executive.formats.btcpp.export_xml` writes
with uids for the same tree.

``behaviortreepy`` 0.1.4 registers Python nodes only through ``register_simple_*``,
which cannot declare ports (BT.CPP then rejects every attribute of such a node) and has
no form for control nodes. So our own leaf and decorator IDs are registered as simple
nodes, and where BT.CPP must *build* a tree, the ports of our own nodes are removed
first; the built-in nodes, SubTree remapping and the structure stay as exported.
"""

import os
import socket
import struct

import behaviortreepy as bt
from bt_executive.core.builder import build
from bt_executive.core.loader import Loader
from bt_executive.formats import btcpp
from bt_executive.nodes.catalogue import default_registry
from hypothesis import given, HealthCheck, settings, strategies as st
import py_trees
import pytest
import zmq

CONFIG = os.path.join(os.path.dirname(__file__), '..', 'config')
SHIPPED = ['patrol.yaml', 'patrol_nav2.yaml', 'patrol_reverse.yaml', 'robot_sim.yaml',
           'robot_nav2.yaml']
STATUS = {bt.NodeStatus.SUCCESS: 'SUCCESS', bt.NodeStatus.FAILURE: 'FAILURE',
          bt.NodeStatus.RUNNING: 'RUNNING'}


def load_text(text):
    return Loader(default_registry()).load_text(text, name='t.yaml', base_dir=CONFIG)


def build_root(document):
    """Build the main tree of ``document`` with the default catalogue; return its root."""
    return build(document, registry=default_registry()).root


def factory_for(xml, *, succeed=None):
    """Return a BT.CPP factory knowing our own node IDs used in ``xml``."""
    factory = bt.BehaviorTreeFactory()
    models = btcpp.parse_xml(xml).children[-1]
    assert models.tag == 'TreeNodesModel'
    for model in models.children:
        callback = succeed or (lambda node: bt.NodeStatus.SUCCESS)
        if model.tag == 'Action':
            factory.register_simple_action(model.attrs['ID'], callback)
        elif model.tag == 'Condition':
            factory.register_simple_condition(model.attrs['ID'], callback)
        elif model.tag == 'Decorator':
            factory.register_simple_decorator(model.attrs['ID'], lambda status, node: status)
        else:
            assert model.tag == 'SubTree', f'cannot register {model.tag} in behaviortreepy'
    return factory


def without_own_ports(xml):
    """Drop the ports of our own nodes (simple registrations cannot declare them)."""
    root = btcpp.parse_xml(xml)
    own = {m.attrs['ID'] for m in root.children[-1].children if m.tag != 'SubTree'}

    def write(element, lines, depth):
        attrs = element.attrs
        if element.tag in own:
            attrs = {k: v for k, v in attrs.items() if k == 'name'}
        text = ''.join(f' {k}="{btcpp.xml_attribute(v)}"' for k, v in attrs.items())
        if element.tag == 'TreeNodesModel':
            return
        if element.children:
            lines.append(f'{"  " * depth}<{element.tag}{text}>')
            for child in element.children:
                write(child, lines, depth + 1)
            lines.append(f'{"  " * depth}</{element.tag}>')
        else:
            lines.append(f'{"  " * depth}<{element.tag}{text}/>')

    lines = []
    write(root, lines, 0)
    return '\n'.join(lines)


@pytest.mark.parametrize('name', SHIPPED)
def test_bt_cpp_parses_and_verifies_every_exported_config(name):
    document = Loader(default_registry()).load(os.path.join(CONFIG, name))
    xml = btcpp.export_xml(document)
    factory = factory_for(xml)
    factory.register_behavior_tree_from_text(xml)
    assert sorted(factory.registered_behavior_trees()) == sorted(document.trees)
    # BT.CPP really checks the IDs: without our registrations it names the first one
    with pytest.raises(RuntimeError,
                       match=r'line \d+: -> (Unknown node type|Node not recognized): '):
        bt.BehaviorTreeFactory().register_behavior_tree_from_text(xml)


def free_port_pair():
    """Return a port P with P and P + 1 free on every interface (BT.CPP binds both)."""
    while True:
        with socket.socket() as first, socket.socket() as second:
            first.bind(('', 0))
            port = first.getsockname()[1]
            try:
                second.bind(('', port + 1))
            except OSError:
                continue
            return port


def start_publisher(tree):
    """Start BT.CPP's Groot2 publisher; other test runs may take a probed port first."""
    for _ in range(20):
        port = free_port_pair()
        try:
            return bt.Groot2Publisher(tree, port), port
        except RuntimeError as error:
            if 'in use' not in str(error):
                raise
    pytest.fail('no free port pair for the Groot2 publisher in 20 attempts')


def groot2_tree(tree):
    """Ask BT.CPP's Groot2 publisher for the tree, as Groot2 does (REQ 'T', protocol 2)."""
    publisher, port = start_publisher(tree)
    context = zmq.Context()
    try:
        request = context.socket(zmq.REQ)
        request.setsockopt(zmq.LINGER, 0)
        request.setsockopt(zmq.RCVTIMEO, 10_000)
        request.connect(f'tcp://127.0.0.1:{port}')
        request.send(struct.pack('<BBI', 2, ord('T'), 77))
        try:
            header, body = request.recv_multipart()
        except zmq.Again:
            pytest.fail('no answer from the Groot2 publisher within 10 s')
        assert header[:6] == struct.pack('<BBI', 2, ord('T'), 77)
        request.close()
        return body.decode()
    finally:
        context.term()
        del publisher


def shape(xml):
    """Return the BehaviorTree instances and their nodes: tag, uid, paths and names."""
    result = []
    for tree in btcpp.parse_xml(xml).children:
        if tree.tag != 'BehaviorTree':
            continue
        nodes = []

        def walk(element):
            nodes.append((element.tag, int(element.attrs['_uid']),
                          element.attrs.get('_fullpath'),
                          element.attrs.get('ID') if element.tag == 'SubTree' else None,
                          element.attrs.get('name')))
            for child in element.children:
                walk(child)

        walk(tree.children[0])
        result.append((tree.attrs['ID'], tree.attrs['_fullpath'], nodes))
    return result


@pytest.mark.parametrize('name', ['patrol.yaml', 'patrol_nav2.yaml'])
def test_groot2_gets_the_same_tree_from_bt_cpp_and_from_us(name):
    document = Loader(default_registry()).load(os.path.join(CONFIG, name))
    xml = btcpp.export_xml(document)
    tree = factory_for(xml).create_tree_from_text(without_own_ports(xml))
    theirs = shape(groot2_tree(tree))
    uids = btcpp.uid_map(build(document, registry=default_registry()))
    ours = shape(btcpp.export_xml(document, uids=uids))
    assert theirs == ours
    assert len(ours) == 9 and ours[3][:2] == ('Navigate', 'recharge/go to dock')


def test_bt_cpp_runs_subtrees_with_their_defaults_on_the_global_blackboard():
    document = load_text("""
main: Main
trees:
  Main:
    Sequence:
      - Subtree: Twice
      - Subtree three: {tree: Twice, times: 3}
      - SetBlackboard: {key: flag, value: true}
  Twice:
    params: {times: 2}
    root:
      Sequence:
        - SetBlackboard: {key: inner, value: 7}
        - Repeat: {times: $times, Running: }
""")
    xml = btcpp.export_xml(document)
    runs = []

    def count(node):  # stands in for our Running leaf: counts the Repeat cycles
        runs.append(node.name())
        return bt.NodeStatus.SUCCESS

    tree = factory_for(xml, succeed=count).create_tree_from_text(xml)
    assert run_bt_cpp(tree)[0] == 'SUCCESS'  # (Repeat yields RUNNING between cycles)
    assert len(runs) == 2 + 3  # the default of 'times', then the argument
    blackboard = tree.root_blackboard()
    assert blackboard.get_int('inner') == 7  # written by the subtree, seen by the caller
    assert blackboard.get_string('flag') == 'true'  # BT.CPP keeps SetBlackboard's text


def test_bt_cpp_writes_the_blackboard_like_us():
    document = load_text("""
trees:
  Main:
    Sequence:
      - SetBlackboard: {key: a, value: 5}
      - SetBlackboard: {key: b, value: 5}
      - SetBlackboard: {key: c, value: 2.5}
      - SetBlackboard: {key: d, value: ready}
      - UnsetBlackboard: a
""")
    xml = btcpp.export_xml(document)
    assert xml.count('<SetBlackboard ') == 4 and xml.count('<UnsetBlackboard ') == 1
    tree = bt.BehaviorTreeFactory().create_tree_from_text(xml)
    assert tree.tick_exactly_once() == bt.NodeStatus.SUCCESS
    blackboard = tree.root_blackboard()
    assert sorted(blackboard.get_keys()) == ['b', 'c', 'd']
    assert blackboard.get_int('b') == 5 and blackboard.get_double('c') == 2.5
    assert blackboard.get_string('d') == 'ready'
    py_trees.blackboard.Blackboard.clear()
    root = build_root(document)
    root.tick_once()
    assert root.status == py_trees.common.Status.SUCCESS
    storage = py_trees.blackboard.Blackboard.storage
    assert storage.get('/b') == 5 and storage.get('/c') == 2.5 and '/a' not in storage
    assert storage.get('/d') == 'ready'


HAND_WRITTEN_SUBTREES = """\
<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    <Sequence>
      <SubTree ID="Work" result="{work_result}" label="first"/>
      <SubTree ID="Work" name="again" result="{other_result}" label="second"/>
      <SubTree ID="Work" label="third" _autoremap="true"/>
      <SubTree ID="Relay" out="{relayed}"/>
      <SubTree ID="Modeled" answer="{=}"/>
      <SubTree ID="Modeled" answer="{modeled_answer}"/>
    </Sequence>
  </BehaviorTree>
  <BehaviorTree ID="Work">
    <Sequence>
      <SetBlackboard output_key="result" value="done"/>
      <SetBlackboard output_key="scratch" value="1"/>
    </Sequence>
  </BehaviorTree>
  <BehaviorTree ID="Relay">
    <SubTree ID="Work" result="{out}" label="relay"/>
  </BehaviorTree>
  <BehaviorTree ID="Modeled">
    <Sequence>
      <UnsetBlackboard key="answer"/>
      <SetBlackboard output_key="answer" value="42"/>
    </Sequence>
  </BehaviorTree>
  <TreeNodesModel>
    <SubTree ID="Modeled"><output_port name="answer"/></SubTree>
  </TreeNodesModel>
</root>
"""


def test_imported_subtree_output_ports_write_where_bt_cpp_writes():
    tree = bt.BehaviorTreeFactory().create_tree_from_text(HAND_WRITTEN_SUBTREES)
    assert run_bt_cpp(tree) == ('SUCCESS', 1)
    board = tree.root_blackboard()
    theirs = {key: board.get_string(key) for key in board.get_keys()}
    # each call's output port lands in the key it remaps to; the call that leaves the
    # port out under _autoremap writes the caller's entry of that name
    assert theirs == {'work_result': 'done', 'other_result': 'done', 'result': 'done',
                      'relayed': 'done', 'answer': '42', 'modeled_answer': '42',
                      'scratch': '1'}
    _, document = btcpp.import_document(HAND_WRITTEN_SUBTREES, name='hand.xml')
    assert ours_until_done(document) == ('SUCCESS', 1)
    storage = py_trees.blackboard.Blackboard.storage
    assert {key[1:]: str(value) for key, value in storage.items()} == theirs


# ---- differential ticking: random trees of built-in-mapped nodes -------------------------------

def _leaf():
    return st.sampled_from(['Success', 'Failure'])


def _tree(children):
    composites = st.sampled_from(['Sequence', 'Sequence {memory: false}', 'ReactiveSequence',
                                  'Selector', 'Selector {memory: true}', 'ActiveSelector',
                                  'Parallel', 'Parallel {success: one, failure: all}'])
    decorators = st.sampled_from(['Inverter', 'ForceSuccess', 'ForceFailure', 'OneShot',
                                  'Retry 1', 'Retry 2', 'Retry 3', 'Repeat 1', 'Repeat 2',
                                  'Repeat 3'])
    return st.one_of(
        st.tuples(composites, st.lists(children, min_size=1, max_size=3)),
        st.tuples(decorators, children.map(lambda child: [child])),
        st.tuples(st.just('IfThenElse'), st.lists(children, min_size=2, max_size=3)))


_trees = st.recursive(_leaf(), _tree, max_leaves=10)


def to_yaml(node, indent=0):
    pad = '  ' * indent
    if isinstance(node, str):
        return f'{pad}- {node}\n'
    kind, children = node
    head, _, extra = kind.partition(' ')
    if extra.startswith('{'):
        params = ''.join(f'{pad}    {item}\n' for item in extra[1:-1].split(', '))
        text = f'{pad}- {head}:\n{params}{pad}    children:\n'
    elif extra:
        param = 'attempts' if head == 'Retry' else 'times'
        text = f'{pad}- {head}:\n{pad}    {param}: {extra}\n{pad}    children:\n'
    else:
        text = f'{pad}- {head}:\n'
    return text + ''.join(to_yaml(child, indent + 2) for child in children)


def ours_until_done(document, limit=200):
    py_trees.blackboard.Blackboard.clear()
    root = build_root(document)
    root.setup_with_descendants()
    for tick in range(1, limit + 1):
        root.tick_once()
        if root.status != py_trees.common.Status.RUNNING:
            return root.status.name, tick
    return 'RUNNING', limit


def run_bt_cpp(tree, limit=200):
    for tick in range(1, limit + 1):
        status = tree.tick_exactly_once()
        if status != bt.NodeStatus.RUNNING:
            return STATUS[status], tick
    return 'RUNNING', limit


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree=_trees)
def test_random_trees_of_mapped_nodes_end_as_in_bt_cpp(tree):
    text = 'main: Main\ntrees:\n  Main:\n    Sequence:\n' + to_yaml(tree, 3)
    document = load_text(text)
    xml = btcpp.export_xml(document)
    assert '<bte_' not in xml, xml  # every node is a BT.CPP built-in
    ours, _ = ours_until_done(document)
    theirs, _ = run_bt_cpp(bt.BehaviorTreeFactory().create_tree_from_text(xml))
    assert ours == theirs, text


def test_keep_running_until_failure_and_run_once_as_in_bt_cpp():
    document = load_text("""
main: Main
trees:
  Main:
    Sequence:
      - OneShot: [Failure]
      - SuccessIsRunning: [Success]
""")
    xml = btcpp.export_xml(document)
    assert '<RunOnce then_skip="false">' in xml and '<KeepRunningUntilFailure>' in xml
    tree = bt.BehaviorTreeFactory().create_tree_from_text(xml)
    root = build_root(document)
    for _ in range(3):
        root.tick_once()
        assert STATUS[tree.tick_exactly_once()] == root.status.name == 'FAILURE'
    document = load_text('trees:\n  Main:\n    SuccessIsRunning: [Success]\n')
    tree = bt.BehaviorTreeFactory().create_tree_from_text(btcpp.export_xml(document))
    root = build_root(document)
    for _ in range(3):
        root.tick_once()
        assert STATUS[tree.tick_exactly_once()] == root.status.name == 'RUNNING'
