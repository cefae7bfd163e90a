# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Tests for the safe expression language (bt_executive.core.expressions): what it computes."""

from __future__ import annotations

import copy
import pickle
import re
from typing import Any

from bt_executive.core.expressions import DEFAULT_FUNCTIONS
from bt_executive.core.expressions import EvaluationError
from bt_executive.core.expressions import Expression
from bt_executive.core.expressions import ExpressionError
from bt_executive.core.expressions import literal
from bt_executive.core.expressions import MAX_LENGTH
from bt_executive.core.expressions import MAX_NESTING
from bt_executive.core.expressions import parse
from bt_executive.core.expressions import referenced_names
from expression_helpers import ENV
from expression_helpers import evaluate
from expression_helpers import lookup_from
from expression_helpers import Plain
from expression_helpers import Pose
import pytest


# --------------------------------------------------------------------------- values

VALUE_CASES = [
    # arithmetic and precedence
    ('1 + 2 * 3', 7),
    ('(1 + 2) * 3', 9),
    ('10 - 4 - 3', 3),
    ('10 - (4 - 3)', 9),
    ('2 * 3 % 4', 2),
    ('7 / 2', 3.5),
    ('7 // 2', 3),
    ('-7 // 2', -4),
    ('7 % -3', -2),
    ('-2 * 3', -6),
    ('--2', 2),
    ('-+-2', 2),
    ('- n', -5),
    ('-n * 2', -10),
    ('+n', 5),
    ('true + true', 2),
    ('0.5 * 4', 2.0),
    ('1e-3', 0.001),
    ('1E3', 1000.0),
    ('2.5e+2', 250.0),
    ('.5', 0.5),
    ('1.', 1.0),
    ('0x1F', 31),
    ('0XfF', 255),
    ('0o17', 15),
    ('0b101', 5),
    ('007', 7),
    # comparisons, chained like Python
    ('1 < 2 < 3', True),
    ('3 > 2 > 2', False),
    ('1 < 3 > 2', True),
    ('1 <= 1 >= 1', True),
    ('1 == 1.0', True),
    ('1 != 2', True),
    ("'a' == 1", False),
    ("'a' != 1", True),
    ("'abc' < 'abd'", True),
    ('[1, 2] < [1, 3]', True),
    ('null == None', True),
    ('nothing == null', True),
    ("'a' in 'cat'", True),
    ("'x' not in 'cat'", True),
    ('3 not in [1, 2]', True),
    ('2 in items', True),
    ("'k' in {'k': 1}", True),
    ("'a' in tags", True),
    ('1 < n in items', False),
    # boolean logic
    ('not 1 == 2', True),
    ('not not 0', False),
    ('!true', False),
    ('! !word', True),
    ('true and false or true', True),
    ('true or false and false', True),
    ('(true or false) and false', False),
    ('1 and 2', 2),
    ("0 or 'x'", 'x'),
    ("'' or [] or 0", 0),
    ('true && false || true', True),
    ('True and not False', True),
    ('not estop and battery.percentage < 0.2', True),
    ('battery.percentage < 0.2 and not estop', True),
    # conditional expression
    ('1 if true else 2', 1),
    ('1 if 0 else 2 if 0 else 3', 3),
    ("'low' if battery.percentage < 0.2 else 'ok'", 'low'),
    ('(1 if false else 2) + 1', 3),
    ('1 if false else 2 + 1', 3),
    # strings and containers
    ("'it\\'s'", "it's"),
    ('"a\\"b"', 'a"b'),
    ('"it\'s"', "it's"),
    ("'\\n\\t\\r\\\\'", '\n\t\r\\'),
    ("'\\x41\\u00e9\\U0001F600'", 'A\u00e9\U0001F600'),
    ("'ab' + 'cd'", 'abcd'),
    ('[1] + [2, 3]', [1, 2, 3]),
    ('[]', []),
    ('[1, 2,]', [1, 2]),
    ('{}', {}),
    ("{'a': 1, \"b\": [n, 2],}", {'a': 1, 'b': [5, 2]}),
    ('[1, 2, 3][-1]', 3),
    ("{'a': {'b': [10, 20]}}.a.b[1]", 20),
    ("{'a': 1}['a']", 1),
    ('word[0]', 'r'),
    # fields
    ('battery.cells[1]', 3.8),
    ('goal.name', 'dock'),
    ('goal.x + 1', 5),
    ('goal["y"]', -2.5),
    ('pose.x * pose.y', 12.0),
    ('pose.secret', 's3cret'),
    ('msg.x', 1.5),
    ('msg.data[2] - msg.data[0]', 20),
    ('len(msg.data)', 3),
    ('point.y', 8),
    ('point[0]', 7),
    # functions
    ('abs(-3)', 3),
    ('abs(-2.5)', 2.5),
    ('min(3, 1, 2)', 1),
    ('max(items)', 3),
    ("len('abc')", 3),
    ('len(goal)', 3),
    ('round(2.567, 2)', 2.57),
    ('round(2.5)', 2),
    ('round(1234, -2)', 1200),
    ("int('42')", 42),
    ('int(3.9)', 3),
    ("float('1.5')", 1.5),
    ('str(5)', '5'),
    ('bool(0)', False),
    ('bool(items)', True),
    ('clamp(5, 0, 3)', 3),
    ('clamp(-1, 0, 3)', 0),
    ('clamp(n, 0, 10)', 5),
    ('max(abs(-4), min(2, 9))', 4),
]


@pytest.mark.parametrize(('text', 'expected'), VALUE_CASES)
def test_value(text: str, expected: Any) -> None:
    result = evaluate(text, ENV)
    assert result == expected
    assert type(result) is type(expected)


def test_long_flat_chains_do_not_nest() -> None:
    text = ' + '.join(['1'] * 500)
    assert len(text) <= MAX_LENGTH
    assert evaluate(text) == 500
    assert evaluate(' and '.join(['n'] * 300), ENV) == 5
    assert evaluate(' < '.join(str(i) for i in range(300))) is True
    assert evaluate(' and '.join(['not zero'] * 150), ENV) is True
    assert evaluate(' or '.join(['-n'] * 150), ENV) == -5


SHORT_CIRCUIT_CASES = [
    ('false and missing_key', False),
    ('0 && missing_key', 0),
    ('true or missing_key', True),
    ("'x' || missing_key", 'x'),
    ('missing_key if false else 5', 5),
    ('5 if true else missing_key', 5),
    ('2 < 1 < missing_key', False),
    ('not (true or missing_key)', False),
]


@pytest.mark.parametrize(('text', 'expected'), SHORT_CIRCUIT_CASES)
def test_short_circuit(text: str, expected: Any) -> None:
    seen: list[str] = []

    def lookup(name: str) -> Any:
        seen.append(name)
        raise KeyError(name)

    assert parse(text).evaluate(lookup) == expected
    assert seen == []


# --------------------------------------------------------------------------- names

NAMES_CASES = [
    ('battery.percentage < 0.2 and not estop', {'battery', 'estop'}),
    ('a[b].c + d', {'a', 'b', 'd'}),
    ('abs(x) + len(y)', {'x', 'y'}),
    ('1 + 2', set()),
    ("{'a': b, 'c': [d]}", {'b', 'd'}),
    ('x.y.z', {'x'}),
    ('a if b else c', {'a', 'b', 'c'}),
    ('true and null', set()),
    ('len', {'len'}),
    ("'name' in names", {'names'}),
]


@pytest.mark.parametrize(('text', 'names'), NAMES_CASES)
def test_names(text: str, names: set[str]) -> None:
    expression = parse(text)
    assert expression.names == frozenset(names)
    assert isinstance(expression.names, frozenset)
    assert expression.is_constant == (not names)
    assert referenced_names(text) == frozenset(names)


# --------------------------------------------------------------------------- fields

FIELD_REFUSALS = [
    ('pose.norm', "no field 'norm' in Pose"),
    ('pose.unlisted', "no field 'unlisted' in Pose"),
    ('msg.secret', "no field 'secret' in FakeMessage (fields: data, x)"),
    ('msg.method', "no field 'method' in FakeMessage"),
    ('msg.get_fields_and_field_types', "no field 'get_fields_and_field_types'"),
    ('point.count', "no field 'count' in Point"),
    ('goal.keys', "no field 'keys' in dict (keys: name, x, y)"),
    ('word.upper', "cannot read field 'upper' of str"),
    ('n.real', "cannot read field 'real' of int"),
    ('nothing.x', "cannot read field 'x' of null"),
    ('plain.x', "cannot read field 'x' of Plain"),
    ('cls.x', "cannot read field 'x' of type"),
]


@pytest.mark.parametrize(('text', 'message'), FIELD_REFUSALS)
def test_field_refusals(text: str, message: str) -> None:
    env = dict(ENV, plain=Plain(), cls=Pose)
    with pytest.raises(EvaluationError, match='^' + re.escape(message)):
        evaluate(text, env)


@pytest.mark.parametrize('text', [
    'msg.__class__', 'msg._x', 'pose.__dict__', 'goal.__class__.__bases__', 'x._fields',
])
def test_underscore_fields_are_parse_errors(text: str) -> None:
    with pytest.raises(ExpressionError) as info:
        parse(text)
    assert info.value.message == "field names starting with '_' are not accessible"
    assert info.value.column == text.index('.') + 2


# --------------------------------------------------------------------------- rendering

ROUND_TRIP_CASES = [
    ('a+b*c', 'a + b * c'),
    ('(a+b)*c', '(a + b) * c'),
    ('a-(b-c)', 'a - (b - c)'),
    ('(a-b)-c', '(a - b) - c'),
    ('a - b - c', 'a - b - c'),
    ('a && b || !c', 'a and b or not c'),
    ('not (a and b)', 'not (a and b)'),
    ('(not a) == b', '(not a) == b'),
    ('not a == b', 'not a == b'),
    ('-(a + b)', '-(a + b)'),
    ('-(-a)', '--a'),
    ('- 5', '-5'),
    ('-(5)', '-5'),
    ('(-5).x', '(-5).x'),
    ('(5).x', '(5).x'),
    ('(1.5).x', '(1.5).x'),
    ('(-5)[0]', '(-5)[0]'),
    ('-x[0]', '-x[0]'),
    ('(-x)[0]', '(-x)[0]'),
    ('a < b < c', 'a < b < c'),
    ('(a < b) < c', '(a < b) < c'),
    ('a not in b', 'a not in b'),
    ('x if c else y if d else z', 'x if c else y if d else z'),
    ('(x if c else y) if d else z', '(x if c else y) if d else z'),
    ('x if (c if d else e) else y', 'x if (c if d else e) else y'),
    ('(a or b) if c else d', 'a or b if c else d'),
    ('(a if b else c) or d', '(a if b else c) or d'),
    ('[a if b else c, (d)]', '[a if b else c, d]'),
    ('{"k": 1, \'j\': [2]}', "{'k': 1, 'j': [2]}"),
    ("'it\\'s'", "'it\\'s'"),
    ('"say \\"hi\\""', '\'say "hi"\''),
    ("'\\x00\\x7f\\u2028'", "'\\x00\\x7f\\u2028'"),
    ('True or None', 'true or null'),
    ('0x10 + 1e3 + .5', '16 + 1000.0 + 0.5'),
    ('abs( x , )', 'abs(x)'),
    ('max(a, b)[0].c', 'max(a, b)[0].c'),
    ('x.if.in', 'x.if.in'),
]


@pytest.mark.parametrize(('text', 'canonical'), ROUND_TRIP_CASES)
def test_canonical_rendering(text: str, canonical: str) -> None:
    expression = parse(text)
    assert str(expression) == canonical
    assert expression.text == text
    again = parse(str(expression))
    assert again == expression
    assert hash(again) == hash(expression)
    assert str(again) == canonical


def test_equality_and_hash_are_structural() -> None:
    assert parse('a+b') == parse(' a + b ')
    assert parse('a && b') == parse('a and b')
    assert len({parse('a+b'), parse('a + b'), parse('b + a')}) == 2
    assert parse('1') != parse('1.0')
    assert parse('1') != parse('true')
    assert parse('x') != 'x'
    assert parse('abs(x)') != parse('abs(x)', functions={'abs': lambda v: v})


def test_expression_is_immutable() -> None:
    expression = parse('a + 1')
    with pytest.raises(AttributeError):
        expression.text = 'b'  # type: ignore[misc]
    with pytest.raises(AttributeError):
        expression.foo = 1  # type: ignore[attr-defined]
    assert copy.copy(expression) is expression
    assert copy.deepcopy(expression) is expression
    restored = pickle.loads(pickle.dumps(parse('abs(a.b) + c[0]')))
    assert restored == parse('abs(a.b) + c[0]')
    assert restored.evaluate(lookup_from({'a': {'b': -2}, 'c': [1]})) == 3
    assert repr(expression) == "Expression('a + 1')"


def test_syntax_tree_is_immutable() -> None:
    root = parse('a + 1').root
    with pytest.raises(AttributeError):
        root.first = None  # type: ignore[attr-defined]
    assert not hasattr(root, '__dict__')


def test_parse_rejects_non_strings() -> None:
    with pytest.raises(TypeError):
        parse(5)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- substitute

def test_substitute_parameter() -> None:
    expression = parse('target * 2').substitute({'target': parse('goal.x + 1')})
    assert isinstance(expression, Expression)
    assert expression.names == {'goal'}
    assert expression.evaluate(lookup_from(ENV)) == 10
    assert str(expression) == '(goal.x + 1) * 2'
    assert expression.text == str(expression)
    assert parse(str(expression)) == expression


SUBSTITUTE_CASES = [
    ('a + b', {'a': '1'}, '1 + b', {'b'}),
    ('-x', {'x': '-5'}, '5', set()),
    ('-x', {'x': 'y'}, '-y', {'y'}),
    ('x.y', {'x': "{'y': 3}"}, "{'y': 3}.y", set()),
    ('x.y', {'x': '5'}, '(5).y', set()),
    ('x[0]', {'x': '-5'}, '(-5)[0]', set()),
    ('x * 2', {'x': '-5'}, '-5 * 2', set()),
    ('not x', {'x': 'a and b'}, 'not (a and b)', {'a', 'b'}),
    ('x and c', {'x': 'a and b'}, '(a and b) and c', {'a', 'b', 'c'}),
    ('x if x else y', {'x': 'p or q', 'y': 'r if s else t'},
     'p or q if p or q else r if s else t', {'p', 'q', 'r', 's', 't'}),
    ('abs(x) + [x, {"k": x}][0]', {'x': 'y - 1'},
     "abs(y - 1) + [y - 1, {'k': y - 1}][0]", {'y'}),
    ('a < x', {'x': 'b < c'}, 'a < (b < c)', {'a', 'b', 'c'}),
    ('x', {'x': 'x + 1'}, 'x + 1', {'x'}),
    ('x', {'unused': '1'}, 'x', {'x'}),
]


@pytest.mark.parametrize(('text', 'bindings', 'canonical', 'names'), SUBSTITUTE_CASES)
def test_substitute(text: str, bindings: dict[str, str], canonical: str,
                    names: set[str]) -> None:
    result = parse(text).substitute({k: parse(v) for k, v in bindings.items()})
    assert str(result) == canonical
    assert result.names == names
    assert result.is_constant == (not names)
    assert parse(str(result)) == result


def test_substitute_evaluates_like_the_inlined_text() -> None:
    env = {'y': 3, 'p': 0, 'q': 2}
    result = parse('x * x - z').substitute({'x': parse('y + 1'), 'z': literal(-1)})
    assert result.evaluate(lookup_from(env)) == 17
    assert result.evaluate(lookup_from(env)) == parse(str(result)).evaluate(lookup_from(env))


def test_substitute_without_effect_returns_self() -> None:
    expression = parse('a + b')
    assert expression.substitute({}) is expression
    assert expression.substitute({'c': literal(1)}) is expression
    assert expression.text == 'a + b'


def test_substitute_rejects_non_expressions() -> None:
    with pytest.raises(TypeError, match="binding for 'a' must be an Expression"):
        parse('a').substitute({'a': 1})  # type: ignore[dict-item]


def test_repeated_substitution_is_bounded() -> None:
    expression = parse('x')
    step = parse('-x')
    with pytest.raises(ExpressionError, match='nest the expression more than'):
        for _ in range(1000):
            expression = step.substitute({'x': expression})
    assert expression.evaluate(lookup_from({'x': 1})) in (1, -1)
    assert hash(expression) == hash(expression)


# --------------------------------------------------------------------------- literal

LITERAL_CASES = [
    None, True, False, 0, -5, 12345678901234567890, 3.25, -0.5, 1e-300, -1e300, 1e16,
    '', 'plain', "it's", 'say "hi"', 'back\\slash', 'tab\tnew\nline\rcr', '\x00\x7f\x9f',
    '\u00e9 \u2603', '\U0001f600', '\U000e0001', '\ud800', 'not a keyword and 1',
    [], {}, [1, [2, [3, []]]], {'a': [1, {'b': 'c'}], 'd': None, "q'uote": True},
    {'': {'': ''}},
]


@pytest.mark.parametrize('value', LITERAL_CASES)
def test_literal_round_trip(value: Any) -> None:
    expression = literal(value)
    assert expression.is_constant
    assert expression.names == frozenset()
    assert expression.text == str(expression)
    again = parse(str(expression))
    assert again == expression
    result = again.evaluate(lookup_from({}))
    assert result == value
    assert type(result) is type(value)


def test_literal_conversions() -> None:
    assert literal((1, (2,))).evaluate(lookup_from({})) == [1, [2]]
    assert str(literal(-0.0)) == '-0.0'
    assert parse(str(literal(-0.0))) == literal(-0.0)
    assert literal(1) != literal(1.0) != literal(True)
    assert literal({'a': 1}) == parse("{'a': 1}")
    assert str(literal({'a': 1})) == "{'a': 1}"
    assert literal('x').evaluate(lookup_from({})) == 'x'


@pytest.mark.parametrize(('value', 'error'), [
    (float('inf'), ValueError),
    (float('nan'), ValueError),
    pytest.param(10 ** 5000, ValueError, id='huge-int'),
    (object(), TypeError),
    ({1: 2}, TypeError),
    ({'a': {1, 2}}, TypeError),
    (b'bytes', TypeError),
    (complex(1, 2), TypeError),
])
def test_literal_rejects(value: Any, error: type[Exception]) -> None:
    with pytest.raises(error):
        literal(value)


def test_literal_rejects_deep_nesting() -> None:
    value: Any = 1
    for _ in range(MAX_NESTING + 1):
        value = [value]
    with pytest.raises(ValueError, match='nested'):
        literal(value)


# --------------------------------------------------------------------------- functions

def test_default_functions() -> None:
    assert sorted(DEFAULT_FUNCTIONS) == [
        'abs', 'bool', 'clamp', 'float', 'int', 'len', 'max', 'min', 'round', 'str']
    with pytest.raises(TypeError):
        DEFAULT_FUNCTIONS['evil'] = eval  # type: ignore[index]
