# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""BT.CPP v4 XML export and import: round trips, the mapping, hostile input, the CLI."""

import glob
import os
import re
import textwrap

from bt_executive.core.builder import build
from bt_executive.core.errors import TreeError
from bt_executive.core.loader import Loader
from bt_executive.core.registry import ParamType
from bt_executive.formats import btcpp
from bt_executive.nodes.catalogue import default_registry
from cli_process import run_cli
from hypothesis import given, HealthCheck, settings, strategies as st
import py_trees
import pytest

ROOT = os.path.join(os.path.dirname(__file__), '..')
CONFIG = os.path.join(ROOT, 'config')
#: Every shipped tree file that loads on its own (patrol_mission.yaml is included by the
#: patrol files and needs a robot file for Navigate, Dock and Undock).
SHIPPED = ['patrol.yaml', 'patrol_nav2.yaml', 'patrol_reverse.yaml', 'robot_sim.yaml',
           'robot_nav2.yaml']


def load(path):
    return Loader(default_registry()).load(path)


def load_text(text, base_dir=CONFIG):
    return Loader(default_registry()).load_text(textwrap.dedent(text), name='t.yaml',
                                                base_dir=base_dir)


def round_trip(document, **kwargs):
    xml = btcpp.export_xml(document, **kwargs)
    text, back = btcpp.import_document(xml, name='t.xml')
    return xml, text, back


def doc_examples():
    """Yield (name, text) for every YAML tree file example in the README and docs/."""
    for md in ['README.md'] + sorted(glob.glob(os.path.join(ROOT, 'docs', '*.md'))):
        path = os.path.join(ROOT, md)
        with open(path, encoding='utf-8') as stream:
            text = stream.read()
        for index, match in enumerate(re.finditer(r'```yaml\n(.*?)```', text, re.S)):
            if 'trees:' in match.group(1):
                yield f'{os.path.basename(md)}#{index}', match.group(1)


def run(*args, cwd=None):
    return run_cli(*args, timeout=60, cwd=cwd)


def import_error(xml, name='bad.xml'):
    with pytest.raises(TreeError) as info:
        btcpp.import_xml(xml, name=name)
    return [str(d) for d in info.value.diagnostics]


# ---- round trips ------------------------------------------------------------------------------

@pytest.mark.parametrize('name', SHIPPED)
def test_every_shipped_config_round_trips_exactly(name):
    document = load(os.path.join(CONFIG, name))
    xml, text, back = round_trip(document)
    assert btcpp.digest(back) == btcpp.digest(document)
    assert len(back.trees) == len(document.trees)
    # exporting the imported file gives the same XML (but for the provenance)
    again = btcpp.export_xml(back)
    strip = re.compile(r', "files": \[[^\]]*\]')
    assert strip.sub('', again) == strip.sub('', xml)


def test_the_patrol_covers_the_included_mission_and_its_sections():
    document = load(os.path.join(CONFIG, 'patrol_reverse.yaml'))
    _, text, back = round_trip(document)
    assert {'Patrol', 'EmergencyStop', 'Recharge', 'NextWaypoint'} <= set(back.trees)
    assert back.blackboard['waypoints'].data[0] == {'x': 0.0, 'y': 2.0}  # the override
    assert back.sections['subscriptions'][0].plain()[1]['key'] == 'estop'
    assert 'include' not in text  # includes are resolved into one self-contained file


def test_every_tree_example_in_the_docs_round_trips():
    checked = 0
    for name, text in doc_examples():
        try:
            document = load_text(text)
        except TreeError:
            continue  # a fragment (e.g. including a file that does not exist)
        _, _, back = round_trip(document)
        assert btcpp.digest(back) == btcpp.digest(document), name
        checked += 1
    assert checked >= 3


TRICKY = """
description: "top -- level, with a double dash"
main: Main
blackboard: {price: $$5, braces: '{x}', json: 'json:1', n: 3, none: null,
             deep: {list: [1, 'two', {three: 3.0}]}, text: '42'}
subscriptions: [{topic: t, type: std_msgs/msg/Bool, key: flag}]
trees:
  Main:
   description: the main tree
   root:
    Sequence:
      - Sequence plain memory: {memory: true, children: [Success]}
      - Sequence no memory: {memory: false, children: [Success]}
      - ActiveSelector: [Failure, Success]
      - Selector: {memory: true, children: [Failure, Success]}
      - Selector explicit: {memory: false, children: [Success]}
      - Parallel one: {success: one, children: [Success, Success]}
      - Parallel all: {success: all, synchronise: true, children: [Success]}
      - Parallel free: {synchronise: false, children: [Success]}
      - Wait: 1.5
      - Wait odd: 0.0005
      - Timeout: {seconds: 2, Success: }
      - Delay: {seconds: 0.25, Success: }
      - OneShot: {'on': success, Success: }
      - OneShot done: {Success: }
      - SuccessIsRunning: [Failure]
      - Repeat: {times: 2, Success: }
      - While: [Success, Failure]
      - SetBlackboard s1: {key: a, value: 1}
      - SetBlackboard s2: {key: a, value: '1'}
      - SetBlackboard s3: {key: a, value: $$lit}
      - SetBlackboard s4: {key: a, value: $other}
      - SetBlackboard s5: {key: a.b, value: 1}
      - SetBlackboard s6: {key: a, value: '{x}'}
      - SetBlackboard s7: {key: a, value: 1, overwrite: true}
      - SetBlackboard s8: {key: a, value: [1, $b, '$$c']}
      - SetBlackboard s9: {key: a, value: true}
      - SetBlackboard s10: {key: a, value: 'json:{}'}
      - SetBlackboard s11: {key: a, value: 2.5e-07}
      - UnsetBlackboard: a
      - UnsetBlackboard nested: a.b
      - Log: {message: null}
      - Log two: {message: 'line one

          line two -- with <xml> & "quotes"'}
      - Log three: {message: "tab\\there"}
      - Condition: 'true'
      - Condition c2: true
      - Condition c3: '${a > 1}'
      - Condition c4: $flag
      - Subtree: {tree: Sub, speed: 2, target: {x: $pose.x, y: 1}}
      - Subtree call two: {tree: Sub, target: $pose, speed: '${speed + 1}'}
      - Success "quoted name"
      - type: Success
        name: 'new

          line'
      - Success ünïcödé ✓
      - Success #hash
      - Running
      - Failure
  Sub:
    params: {speed: 0.1, target: null, ref: $pose, structured: [1, {a: b}]}
    root:
      Sequence:
        - Timeout: {seconds: $speed, Success: }
        - Retry: {attempts: 2, Wait: 0}
        - Action: {type: a/action/B, server: b, goal: {x: $target.x, s: '$$1', e: ''}}
"""


def test_a_document_full_of_edge_cases_round_trips_exactly(tmp_path):
    path = tmp_path / 'tricky.yaml'
    path.write_text(TRICKY, encoding='utf-8')  # the top-level description is read from it
    document = load(str(path))
    xml, text, back = round_trip(document)
    assert btcpp.digest(back) == btcpp.digest(document)
    assert back.trees['Main'].doc == 'the main tree'
    assert '-->' in xml and xml.count('<!--') == 1
    assert 'description: top -- level, with a double dash' in text


def test_mapped_nodes_use_bt_cpp_built_ins_and_markers_keep_the_spelling():
    xml = btcpp.export_xml(load_text(TRICKY))
    lines = [line.strip() for line in xml.splitlines()]
    assert '<Sequence name="plain memory" _bte_memory="true">' in lines
    assert ('<ReactiveSequence name="no memory" _bte_type="Sequence" _bte_memory="false">'
            in lines)
    assert '<ReactiveFallback _bte_type="ActiveSelector">' in lines
    assert '<Fallback>' in lines
    assert '<ReactiveFallback name="explicit" _bte_memory="false">' in lines
    assert '<Parallel name="all" success_count="-1" failure_count="1" _bte_success="all" ' \
        '_bte_synchronise="true">' in lines
    assert '<Sleep msec="1500" />' in lines
    assert '<Timeout msec="2000">' in lines and '<Delay delay_msec="250">' in lines
    assert '<RunOnce name="done" then_skip="false">' in lines
    assert '<KeepRunningUntilFailure>' in lines
    assert '<Repeat num_cycles="2">' in lines
    assert '<SetBlackboard name="s1" output_key="a" value="1" />' in lines
    assert '<SetBlackboard name="s11" output_key="a" value="2.5e-07" />' in lines
    assert '<SetBlackboard name="s9" output_key="a" value="true" />' in lines
    assert '<UnsetBlackboard key="a" />' in lines
    assert '<AlwaysSuccess name="quoted name" />' in lines


def test_nodes_without_an_exact_built_in_keep_their_own_id():
    xml = btcpp.export_xml(load_text(TRICKY))
    lines = [line.strip() for line in xml.splitlines()]
    # no BT.CPP equivalent, or parameters BT.CPP cannot express: our own ID, with a prefix
    # where the plain name is a BT.CPP built-in or an XML keyword
    assert '<bte_Parallel name="one" success="one">' in lines
    assert '<bte_Parallel name="free" synchronise="false">' in lines
    assert '<Wait name="odd" seconds="0.0005" />' in lines
    assert '<OneShot on="success">' in lines
    assert '<While>' in lines
    assert '<bte_SetBlackboard name="s2" key="a" value="json:&quot;1&quot;" />' in lines
    assert '<bte_SetBlackboard name="s3" key="a" value="$$lit" />' in lines
    assert '<bte_SetBlackboard name="s4" key="a" value="{other}" />' in lines
    assert '<bte_SetBlackboard name="s5" key="a.b" value="1" />' in lines
    assert '<bte_SetBlackboard name="s6" key="a" value="json:&quot;{x}&quot;" />' in lines
    assert '<bte_SetBlackboard name="s7" key="a" value="1" overwrite="true" />' in lines
    assert '<bte_UnsetBlackboard name="nested" key="a.b" />' in lines
    assert '<bte_Condition name="c3" expr="${a &gt; 1}" />' in lines
    assert '<bte_Timeout seconds="{speed}">' in lines
    assert '<bte_Action type="a/action/B" server="b" goal="json:{&quot;x&quot;: ' \
        '&quot;$target.x&quot;, &quot;s&quot;: &quot;$$1&quot;, &quot;e&quot;: &quot;' \
        '&quot;}" />' in lines
    assert '<Running />' in lines
    assert re.search(r'<Log name="two" message="line one&#10;line two -- with &lt;xml&gt; '
                     r'&amp; &quot;quotes&quot;" />', xml)


def test_subtree_calls_remap_and_declare_tree_parameters():
    xml = btcpp.export_xml(load_text(TRICKY))
    lines = [line.strip() for line in xml.splitlines()]
    assert ('<SubTree ID="Sub" speed="2" target="json:{&quot;x&quot;: &quot;$pose.x&quot;, '
            '&quot;y&quot;: 1}" ref="{pose}" structured="json:[1, {&quot;a&quot;: '
            '&quot;b&quot;}]" _autoremap="true" _bte_defaults="ref structured" />') in lines
    assert ('<SubTree ID="Sub" name="call two" target="{pose}" speed="${speed + 1}" '
            'ref="{pose}" structured="json:[1, {&quot;a&quot;: &quot;b&quot;}]" '
            '_autoremap="true" _bte_defaults="ref structured" />') in lines
    model = xml[xml.index('<SubTree ID="Sub">'):]
    model = model[:model.index('</SubTree>')]
    assert '<input_port name="speed" default="0.1" />' in model
    assert '<input_port name="target" />' in model
    assert '<input_port name="ref" default="{pose}" />' in model


def test_tree_nodes_model_declares_our_node_types_and_their_ports():
    xml = btcpp.export_xml(load(os.path.join(CONFIG, 'patrol.yaml')))
    models = xml[xml.index('<TreeNodesModel>'):]
    assert '<Condition ID="bte_Condition">' in models
    assert ('<input_port name="expr" type="std::string">expression, e.g. '
            'battery.percentage &lt; 0.2 (a bt_executive expression)</input_port>') in models
    assert '<Action ID="TopicAction">' in models
    assert '<input_port name="server_timeout" type="double" default="10.0">' in models
    assert '<input_port name="status_qos" type="std::string" default="reliable">QoS of ' \
        'the status subscription (one of: reliable, sensor_data, latched)' in models
    assert 'ID="Sequence"' not in models  # built-ins are BT.CPP's to describe
    everything = btcpp.export_xml(load_text(TRICKY), all_models=True)
    models = everything[everything.index('<TreeNodesModel>'):]
    for node_type in default_registry().types():
        if node_type.name != 'Subtree':
            assert f'ID="{btcpp.own_id(node_type.name)}"' in models, node_type.name
    assert '<Control ID="Race" />' in models
    assert '<Decorator ID="Limit">' in models


def test_export_of_one_tree_takes_the_trees_it_calls():
    document = load(os.path.join(CONFIG, 'patrol.yaml'))
    xml = btcpp.export_xml(document, tree_name='Recharge')
    assert 'main_tree_to_execute="Recharge"' in xml
    trees = re.findall(r'<BehaviorTree ID="(\w+)">', xml)
    assert trees == ['Recharge', 'Navigate', 'Dock']   # undocking is LeaveDock's
    with pytest.raises(TreeError, match="no tree named 'Nope'"):
        btcpp.export_xml(document, tree_name='Nope')


@pytest.mark.parametrize('text, message', [
    ("""
        main: Main
        trees:
          Main: {Subtree: {tree: Greet, name: Bob}}
          Greet:
            params: {name: null}
            root: {Log: $name}
        """, "argument 'name' cannot be a BT.CPP port"),
    ("""
        main: Main
        trees:
          Main: {Subtree: {tree: Pick, which: Leaf}}
          Pick:
            params: {which: null}
            root: {Subtree: $which}
          Leaf: Success
        """, 't.yaml:7:12: Pick/Subtree: a Subtree whose tree is a parameter cannot be written'),
], ids=['a tree parameter called name', 'a subtree calling a tree parameter'])
def test_tree_parameters_bt_cpp_cannot_express_are_reported(text, message):
    document = load_text(text)
    with pytest.raises(TreeError, match=message):
        btcpp.export_xml(document)


def test_values_xml_cannot_carry_are_reported_not_lost():
    document = load_text("""
        trees:
          Main:
            Sequence:
              - {type: Success, name: "bell\\a"}
              - Log: {message: "bell\\a"}
        """)
    with pytest.raises(TreeError) as info:
        btcpp.export_xml(document)
    # the message prints the control character escaped: it never reaches the terminal
    assert [str(d) for d in info.value.diagnostics] == [
        "t.yaml:5:16: Main/Sequence/bell\\x07: 'name' holds a control character that XML "
        'cannot carry']


# ---- values --------------------------------------------------------------------------------

_scalars = st.one_of(st.none(), st.booleans(), st.integers(-10 ** 12, 10 ** 12),
                     st.floats(allow_nan=False), st.text(max_size=20))
_values = st.recursive(_scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)),
    max_leaves=8)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(value=_values, kind=st.sampled_from([ParamType.ANY, ParamType.STRING,
                                            ParamType.FLOAT, ParamType.INT]))
def test_any_literal_value_survives_encoding_and_decoding(value, kind):
    text = btcpp.encode_value(value, kind)
    assert btcpp.canonical(btcpp.decode_value(text, kind)) == \
        btcpp.canonical(btcpp.yamlish(value))
    assert not re.search('[\x00-\x08\x0b\x0c\x0e-\x1f]', text)


def test_hand_written_port_values_read_naturally():
    assert btcpp.decode_value('3', ParamType.INT) == 3
    assert btcpp.decode_value('2', ParamType.FLOAT) == 2
    assert btcpp.decode_value('0.5', ParamType.FLOAT) == 0.5
    assert btcpp.decode_value('True', ParamType.BOOL) is True
    assert btcpp.decode_value('42', ParamType.STRING) == '42'
    assert btcpp.decode_value('42', ParamType.ANY) == 42
    assert btcpp.decode_value('{battery}', ParamType.ANY) == '$battery'
    assert btcpp.decode_value('{=}', ParamType.ANY, 'speed') == '$speed'
    assert btcpp.decode_value('json:[1, 2]', ParamType.LIST) == [1, 2]
    for text, kind, message in [('x', ParamType.INT, 'expected an integer'),
                                ('1.5.2', ParamType.FLOAT, 'expected a number'),
                                ('maybe', ParamType.BOOL, 'expected true or false'),
                                ('{no key}', ParamType.ANY, 'must name a key'),
                                ('json:{', ParamType.ANY, 'bad JSON')]:
        with pytest.raises(ValueError, match=message):
            btcpp.decode_value(text, kind)


# ---- import of BT.CPP files ------------------------------------------------------------------

GROOT_STYLE = """<?xml version="1.0" encoding="UTF-8"?>
<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    <Sequence name="main">
      <Fallback>
        <AlwaysFailure/>
        <Action ID="AlwaysSuccess" name="generic form"/>
      </Fallback>
      <Repeat num_cycles="-1"><AlwaysFailure/></Repeat>
      <RetryUntilSuccessful num_attempts="-1"><AlwaysSuccess/></RetryUntilSuccessful>
      <Sleep msec="1500"/>
      <Timeout msec="{limit}"><AlwaysSuccess/></Timeout>
      <SubTree ID="Child" speed="{=}" target="{pose}" _autoremap="false"/>
      <Condition ID="bte_Condition" expr="battery.percentage &lt; 0.2"/>
      <Log message="hello" level="warning"/>
    </Sequence>
  </BehaviorTree>
  <BehaviorTree ID="Child">
    <Parallel success_count="2"><AlwaysSuccess/><AlwaysSuccess/></Parallel>
  </BehaviorTree>
  <TreeNodesModel>
    <SubTree ID="Child">
      <input_port name="speed" default="0.5"/>
      <input_port name="target"/>
      <input_port name="_autoremap" default="false"/>
    </SubTree>
    <Action ID="Log"><input_port name="message"/></Action>
  </TreeNodesModel>
</root>
"""


def test_import_of_a_hand_written_bt_cpp_file():
    xml = GROOT_STYLE.replace('<Timeout msec="{limit}"><AlwaysSuccess/></Timeout>', '')
    text, document = btcpp.import_document(xml, name='groot.xml')
    main = document.trees['Main'].root
    assert [(n.type, n.name) for n in main.children] == [
        ('Selector', 'Selector'), ('SuccessIsRunning', 'SuccessIsRunning'),
        ('UntilSuccess', 'UntilSuccess'), ('Wait', 'Wait'), ('Subtree', 'Subtree'),
        ('Condition', 'Condition'), ('Log', 'Log')]
    selector = main.children[0]
    assert selector.params['memory'].data is True
    assert [c.name for c in selector.children] == ['Failure', 'generic form']
    assert main.children[3].params['seconds'].data == 1.5
    call = main.children[4].params
    assert call['speed'].data.text == '$speed' and call['target'].data.text == '$pose'
    assert document.trees['Child'].params['speed'].data == 0.5
    assert document.trees['Child'].params['target'] is None
    assert document.trees['Child'].root.type == 'Parallel'
    assert main.children[6].params['level'].data == 'warning'
    assert text.startswith('# Imported from groot.xml (BehaviorTree.CPP v4 XML) by '
                           "'bt-executive import'.\n")
    built = build(document, registry=default_registry())  # and it builds
    assert built.name == 'Main' and built.nodes.path(built.root).startswith('Main/')


def test_import_takes_subtree_ports_from_the_calls_and_remaps_the_ports_a_call_leaves_out():
    xml = """<root BTCPP_format="4" main_tree_to_execute="Main">
  <BehaviorTree ID="Main">
    <Sequence>
      <SubTree ID="Work" result="{work_result}" label="first"/>
      <SubTree ID="Work" label="second" _autoremap="true"/>
      <SubTree ID="Modeled"/>
    </Sequence>
  </BehaviorTree>
  <BehaviorTree ID="Work"><SetBlackboard output_key="result" value="done"/></BehaviorTree>
  <BehaviorTree ID="Modeled"><SetBlackboard output_key="answer" value="42"/></BehaviorTree>
  <TreeNodesModel>
    <SubTree ID="Modeled"><output_port name="answer"/></SubTree>
  </TreeNodesModel>
</root>"""
    py_trees.blackboard.Blackboard.clear()
    text, document = btcpp.import_document(xml, name='hand.xml')
    body = text.split('\n', 1)[1]
    assert body == """main: Main
trees:
  Main:
    Sequence:
    - Subtree: {tree: Work, result: $work_result, label: first}
    - Subtree: {tree: Work, label: second, result: $result}
    - Subtree: {tree: Modeled, answer: $answer}
  Work:
    params: {result: null, label: null}
    root:
      SetBlackboard: {key: result, value: done}
  Modeled:
    params: {answer: null}
    root:
      SetBlackboard: {key: answer, value: 42}
"""
    root = build(document, registry=default_registry()).root
    root.tick_once()
    storage = py_trees.blackboard.Blackboard.storage
    assert {key: storage[key] for key in ('/work_result', '/result', '/answer')} == {
        '/work_result': 'done', '/result': 'done', '/answer': 42}
    assert '/label' not in storage
    py_trees.blackboard.Blackboard.clear()


def test_unknown_node_ids_are_reported_with_element_and_line():
    errors = import_error('<root BTCPP_format="4">\n<BehaviorTree ID="A">\n<Sequence>\n'
                          '  <Wiat seconds="1"/>\n  <MyRobotAction/>\n</Sequence>\n'
                          '</BehaviorTree>\n</root>')
    assert errors == [
        "bad.xml:4:3: element <Wiat>: unknown node ID 'Wiat' (did you mean 'Wait'?): "
        "expected a BT.CPP built-in or a bt_executive node type (run 'bt-executive nodes')",
        "bad.xml:5:3: element <MyRobotAction>: unknown node ID 'MyRobotAction' (did you mean "
        "'Action'?): expected a BT.CPP built-in or a bt_executive node type (run "
        "'bt-executive nodes')"]


@pytest.mark.parametrize('xml, expected', [
    ('<root BTCPP_format="4"><BehaviorTree><AlwaysSuccess/></BehaviorTree></root>',
     "bad.xml:1:24: element <BehaviorTree>: a <BehaviorTree> needs the attribute 'ID'"),
    ('<root BTCPP_format="4"><BehaviorTree ID="A"><Action name="x"/></BehaviorTree></root>',
     "bad.xml:1:45: element <Action>: <Action> needs the attribute 'ID' (the node type)"),
    ('<root BTCPP_format="4"><BehaviorTree ID="A"><SubTree/></BehaviorTree></root>',
     "bad.xml:1:45: element <SubTree>: <SubTree> needs the attribute 'ID'"),
    ('<root BTCPP_format="3"><BehaviorTree ID="A"><AlwaysSuccess/></BehaviorTree></root>',
     'bad.xml:1:1: element <root>: BTCPP_format="3" is not supported: only version 4 XML'),
    ('<tree/>', 'bad.xml:1:1: element <tree>: expected <root BTCPP_format="4">'),
    ('<root BTCPP_format="4">\n<BehaviorTree ID="A">\n<Sequence>\n</BehaviorTree></root>',
     'bad.xml:4:3: malformed XML: mismatched tag'),
    ('', 'bad.xml:1:1: malformed XML: no element found'),
    ('<root BTCPP_format="4"><BehaviorTree ID="A"><SequenceWithMemory><AlwaysSuccess/>'
     '</SequenceWithMemory></BehaviorTree></root>',
     'element <SequenceWithMemory>: BT.CPP node SequenceWithMemory has no bt_executive '
     'equivalent: it keeps its place after a FAILURE'),
    ('<root BTCPP_format="4"><BehaviorTree ID="A"><Script code="a:=1"/></BehaviorTree>'
     '</root>', 'element <Script>: BT.CPP node Script has no bt_executive equivalent'),
    ('<root BTCPP_format="4"><BehaviorTree ID="A"><AlwaysSuccess _skipIf="a"/>'
     '</BehaviorTree></root>', "'_skipIf' is a BT.CPP script pre/post-condition"),
    ('<root BTCPP_format="4"><BehaviorTree ID="A"><Inverter foo="1"><AlwaysSuccess/>'
     '</Inverter></BehaviorTree></root>', "unknown port 'foo' for Inverter (ports: none)"),
    ('<root BTCPP_format="4"><BehaviorTree ID="A"><RetryUntilSuccessful num_attempts="x">'
     '<AlwaysSuccess/></RetryUntilSuccessful></BehaviorTree></root>',
     "expected an integer, got 'x'"),
    ('<root BTCPP_format="4"><BehaviorTree ID="A"><Sleep msec="{t}"/></BehaviorTree></root>',
     'msec must be a whole number of milliseconds'),
    ('<root BTCPP_format="4"><BehaviorTree ID="A"><RunOnce><AlwaysSuccess/></RunOnce>'
     '</BehaviorTree></root>', 'RunOnce with then_skip="true" returns SKIPPED'),
    ('<root BTCPP_format="4"><BehaviorTree ID="A"><Parallel success_count="1">'
     '<AlwaysSuccess/><AlwaysSuccess/></Parallel></BehaviorTree></root>',
     'Parallel with success_count=1 failure_count=1 has no equivalent'),
    ('<root BTCPP_format="4"><include path="x.xml"/><BehaviorTree ID="A"><AlwaysSuccess/>'
     '</BehaviorTree></root>', '<include> is not supported'),
    ('<root BTCPP_format="4"><BehaviorTree ID="A"><Publish topc="x" type="std_msgs/msg/Bool"'
     '/></BehaviorTree></root>', "unknown port 'topc' for Publish (did you mean 'topic'?)"),
])
def test_bad_input_gives_one_clear_located_error(xml, expected):
    errors = import_error(xml)
    assert any(expected in error for error in errors), errors
    assert all(error.startswith('bad.xml') for error in errors)


def test_loader_errors_point_at_the_xml_element():
    xml = ('<root BTCPP_format="4" main_tree_to_execute="A">\n'
           '  <BehaviorTree ID="A">\n'
           '    <Sequence>\n'
           '      <bte_Condition name="check"/>\n'
           '      <Inverter/>\n'
           '    </Sequence>\n'
           '  </BehaviorTree>\n'
           '</root>\n')
    errors = import_error(xml)
    assert "bad.xml:4:7: element <bte_Condition>: Condition needs parameter 'expr' " \
        '(expression: expression, e.g. battery.percentage < 0.2)' in errors
    assert 'bad.xml:5:7: element <Inverter>: Inverter takes exactly 1 child, got 0' in errors
    errors = import_error(xml.replace('<Inverter/>', '<SubTree ID="Nowhere" name="go"/>')
                          .replace('name="check"', 'expr="true"'))
    assert errors == ["bad.xml:5:7: element <SubTree>: unknown tree 'Nowhere' (trees: A)"]


def test_dtd_and_entities_are_refused():
    laughs = ('<?xml version="1.0"?>\n<!DOCTYPE root [\n <!ENTITY a "aaaaaaaaaa">\n'
              ' <!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">\n]>\n'
              '<root BTCPP_format="4"><BehaviorTree ID="A"><SetBlackboard output_key="k" '
              'value="&b;"/></BehaviorTree></root>')
    errors = import_error(laughs)
    assert len(errors) == 1 and errors[0].startswith('bad.xml:2:')
    assert errors[0].endswith(': a DOCTYPE (DTD) is not allowed in tree files')
    external = ('<?xml version="1.0"?>\n<!DOCTYPE root SYSTEM "file:///etc/passwd">\n'
                '<root BTCPP_format="4"/>')
    errors = import_error(external)
    assert len(errors) == 1 and errors[0].startswith('bad.xml:2:')
    assert errors[0].endswith(': a DOCTYPE (DTD) is not allowed in tree files')
    undeclared = '<root BTCPP_format="4" x="&ext;"/>'
    assert 'undefined entity' in import_error(undeclared)[0]


def test_huge_and_deep_files_are_refused():
    huge = '<root BTCPP_format="4"><!--' + 'x' * btcpp.MAX_XML_BYTES + '--></root>'
    assert import_error(huge) == ['bad.xml: file is larger than 4 MiB']
    deep = ('<root BTCPP_format="4"><BehaviorTree ID="A">' + '<Inverter>' * 200
            + '<AlwaysSuccess/>' + '</Inverter>' * 200 + '</BehaviorTree></root>')
    assert import_error(deep) == [
        'bad.xml:1:1025: element <Inverter>: elements nested deeper than 100']
    wide = ('<root BTCPP_format="4"><BehaviorTree ID="A"><Sequence>'
            + '<AlwaysSuccess/>' * (btcpp.MAX_XML_ELEMENTS + 1) + '</Sequence>'
            '</BehaviorTree></root>')
    assert 'more than 20000 elements' in import_error(wide)[0]


def test_the_metadata_comment_is_checked():
    xml = btcpp.export_xml(load(os.path.join(CONFIG, 'robot_sim.yaml')))
    broken = xml.replace('<!-- bt_executive {"version": 1', '<!-- bt_executive {"version": 1,,')
    assert 'bad bt_executive comment' in import_error(broken)[0]
    future = xml.replace('{"version": 1', '{"version": 9')
    assert 'unsupported bt_executive comment (expected version 1)' in import_error(future)[0]
    # a file without the comment imports too (sections are simply absent)
    plain = re.sub(r'<!--.*?-->', '', xml)
    assert 'subscriptions' not in btcpp.import_xml(plain)


# ---- uids and the Groot2 form -------------------------------------------------------------

def test_uids_follow_bt_cpp_creation_order_with_subtrees_inlined():
    document = load(os.path.join(CONFIG, 'patrol.yaml'))
    uids = btcpp.uid_map(build(document, registry=default_registry()))
    assert uids == btcpp.spec_uid_map(document)
    assert sorted(uids.values()) == list(range(1, len(uids) + 1))
    assert uids['Patrol/root'] == 1
    assert uids['Patrol/root/emergency stop'] == 2
    assert uids['Patrol/root/emergency stop/EmergencyStop/ReactiveSequence'] == 3
    assert uids['Patrol/root/recharge'] == 7


def test_the_groot2_form_has_one_behavior_tree_per_subtree_instance():
    document = load(os.path.join(CONFIG, 'patrol.yaml'))
    uids = btcpp.uid_map(build(document, registry=default_registry()))
    xml = btcpp.export_xml(document, uids=uids)
    root = btcpp.parse_xml(xml)
    assert 'main_tree_to_execute' not in root.attrs
    instances = [(t.attrs['ID'], t.attrs['_fullpath']) for t in root.children
                 if t.tag == 'BehaviorTree']
    assert instances == [
        ('Patrol', ''), ('EmergencyStop', 'emergency stop'), ('Recharge', 'recharge'),
        ('Navigate', 'recharge/go to dock'), ('Dock', 'recharge/dock'),
        ('LeaveDock', 'leave the dock'), ('Undock', 'leave the dock/undock'),
        ('NextWaypoint', 'patrol'), ('Navigate', 'patrol/navigate')]
    seen = []

    def walk(element):
        seen.append(int(element.attrs['_uid']))
        if element.tag == 'SubTree':
            assert '_fullpath' in element.attrs and 'name' not in element.attrs
        else:
            assert 'name' in element.attrs
        for child in element.children:
            walk(child)

    for tree in root.children[:-1]:
        walk(tree.children[0])
    assert sorted(seen) == list(range(1, len(uids) + 1))
    assert root.children[-1].tag == 'TreeNodesModel'
    with pytest.raises(ValueError, match="no uid for node 'Patrol/root'"):
        btcpp.export_xml(document, uids={})


def test_unnamed_subtree_instances_get_bt_cpp_style_paths():
    document = load_text("""
        main: Main
        trees:
          Main:
            Sequence: [{Subtree: Leaf}, {Subtree: Leaf}, {Subtree x: Leaf}, {Subtree x: Leaf}]
          Leaf: Success
        """)
    uids = btcpp.spec_uid_map(document)
    root = btcpp.parse_xml(btcpp.export_xml(document, uids=uids))
    paths = [t.attrs['_fullpath'] for t in root.children if t.tag == 'BehaviorTree']
    assert paths == ['', 'Leaf::2', 'Leaf::4', 'x', 'x::8']


# ---- docs and the command line ---------------------------------------------------------------

def test_docs_carry_the_mapping_table():
    with open(os.path.join(ROOT, 'docs', 'btcpp.md'), encoding='utf-8') as stream:
        docs = stream.read()
    assert btcpp.mapping_table() in docs, \
        'docs/btcpp.md is stale: paste bt_executive.formats.btcpp.mapping_table() into it'
    for name in btcpp.NOT_MAPPED:
        assert f'`{name}`' in docs


def test_readme_lists_the_commands():
    with open(os.path.join(ROOT, 'README.md'), encoding='utf-8') as stream:
        readme = stream.read()
    assert 'bt-executive export FILE' in readme and 'bt-executive import FILE.xml' in readme
    assert 'docs/btcpp.md' in readme


def test_cli_export_and_import(tmp_path):
    patrol = os.path.join(CONFIG, 'patrol.yaml')
    result = run('export', patrol, '--format', 'btcpp')
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<root '
                                    'BTCPP_format="4" main_tree_to_execute="Patrol">')
    xml = tmp_path / 'patrol.xml'
    result = run('export', patrol, '--tree', 'EmergencyStop', '-o', str(xml))
    assert result.returncode == 0 and result.stdout == '', result.stderr
    assert 'main_tree_to_execute="EmergencyStop"' in xml.read_text()
    result = run('import', str(xml))
    assert result.returncode == 0, result.stderr
    assert 'EmergencyStop:\n    ReactiveSequence:\n    - Condition estop pressed: estop\n' \
        in result.stdout
    out = tmp_path / 'back.yaml'
    result = run('import', str(xml), '-o', str(out))
    assert result.returncode == 0 and result.stdout == ''
    result = run('validate', str(out))
    assert result.returncode == 0, result.stderr


def test_cli_errors_exit_one(tmp_path):
    bad = tmp_path / 'bad.xml'
    bad.write_text('<root BTCPP_format="4">\n  <BehaviorTree ID="A">\n    <Nope/>\n'
                   '  </BehaviorTree>\n</root>\n')
    result = run('import', 'bad.xml', cwd=str(tmp_path))
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        "bad.xml:3:5: element <Nope>: unknown node ID 'Nope': expected a BT.CPP built-in or "
        "a bt_executive node type (run 'bt-executive nodes')", 'bad.xml: 1 error']
    result = run('import', 'missing.xml', cwd=str(tmp_path))
    assert result.returncode == 1 and 'missing.xml: file not found' in result.stderr
    result = run('export', 'missing.yaml', cwd=str(tmp_path))
    assert result.returncode == 1 and 'missing.yaml: file not found' in result.stderr
    result = run('export', os.path.join(CONFIG, 'patrol.yaml'), '--format', 'json')
    assert result.returncode == 2 and "invalid choice: 'json'" in result.stderr
