# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""Tests for the safe expression language (bt_executive.core.expressions)."""

from __future__ import annotations

import collections
import copy
import dataclasses
import math
import pickle
import re
import time
from typing import Any, Callable, Mapping

from bt_executive.core.expressions import DEFAULT_FUNCTIONS
from bt_executive.core.expressions import EvaluationError
from bt_executive.core.expressions import Expression
from bt_executive.core.expressions import ExpressionError
from bt_executive.core.expressions import literal
from bt_executive.core.expressions import MAX_LENGTH
from bt_executive.core.expressions import MAX_NESTING
from bt_executive.core.expressions import parse
from bt_executive.core.expressions import referenced_names
from hypothesis import given
from hypothesis import HealthCheck
from hypothesis import settings
from hypothesis import strategies as st
import pytest


def lookup_from(env: Mapping[str, Any]) -> Callable[[str], Any]:
    """Return a lookup function reading ``env`` (KeyError for missing names)."""
    def lookup(name: str) -> Any:
        return env[name]
    return lookup


def evaluate(text: str, env: Mapping[str, Any] | None = None) -> Any:
    """Parse and evaluate ``text`` against ``env``."""
    return parse(text).evaluate(lookup_from(env or {}))


@dataclasses.dataclass
class Pose:
    """A dataclass blackboard value."""

    x: float
    y: float
    secret: str = dataclasses.field(default='s3cret', repr=False)
    unlisted = 'class attribute, not a field'

    def norm(self) -> float:
        """Return the length."""
        return math.hypot(self.x, self.y)


class FakeMessage:
    """A class shaped like a generated ROS 2 message."""

    __slots__ = ('_x', '_data', 'secret')

    _fields_and_field_types = {'x': 'double', 'data': 'sequence<int32>'}

    def __init__(self, x: float, data: list[int]) -> None:
        self._x = x
        self._data = data
        self.secret = 'not a field'

    @classmethod
    def get_fields_and_field_types(cls) -> dict[str, str]:
        """Return the field names and types, like rosidl does."""
        return dict(cls._fields_and_field_types)

    @property
    def x(self) -> float:
        """Return x."""
        return self._x

    @property
    def data(self) -> list[int]:
        """Return data."""
        return self._data

    def method(self) -> str:
        """Return something a method would."""
        return 'called'


Point = collections.namedtuple('Point', ['x', 'y'])


class Plain:
    """An object with attributes but no declared fields."""

    def __init__(self) -> None:
        self.x = 1


ENV: dict[str, Any] = {
    'battery': {'percentage': 0.1, 'cells': [3.7, 3.8]},
    'estop': False,
    'goal': {'x': 4, 'y': -2.5, 'name': 'dock'},
    'pose': Pose(3.0, 4.0),
    'msg': FakeMessage(1.5, [10, 20, 30]),
    'point': Point(7, 8),
    'items': [1, 2, 3],
    'word': 'robot',
    'n': 5,
    'zero': 0,
    'nothing': None,
    'tags': {'a', 'b'},
}


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


# --------------------------------------------------------------------------- parse errors

PARSE_ERRORS = [
    ('', 1, 'empty expression'),
    ('   ', 1, 'empty expression'),
    ('a and', 6, "expected an operand after 'and'"),
    ('a &&', 5, "expected an operand after '&&'"),
    ('a +', 4, "expected an operand after '+'"),
    ('a + * b', 5, "expected an operand after '+'"),
    ('not', 4, "expected an operand after 'not'"),
    ('a not in', 9, "expected an operand after 'not in'"),
    ('()', 2, "expected an operand after '('"),
    ('abs(,)', 5, "expected an operand after '('"),
    (')', 1, "unexpected ')'"),
    ('a )', 3, "unexpected ')'"),
    ('and', 1, "unexpected 'and'"),
    ('a not b', 3, "unexpected 'not'"),
    ('a else b', 3, "unexpected 'else'"),
    ('a b', 3, "unexpected name 'b' (expected an operator)"),
    ("a 'b'", 3, "unexpected string 'b' (expected an operator)"),
    ('1 2', 3, 'unexpected number 2 (expected an operator)'),
    ('(a', 3, "expected ')' to close '(' at column 1"),
    ('(a b)', 4, "expected ')' to close '(' at column 1"),
    ('x[1', 4, "expected ']' to close '[' at column 2"),
    ('[1, 2', 6, "expected ',' or ']' to close '[' at column 1"),
    ('[x for x in y]', 4, "expected ',' or ']' to close '[' at column 1"),
    ('abs(1 2)', 7, "expected ',' or ')' to close '(' at column 4"),
    ("{'a': 1", 8, "expected ',' or '}' to close '{' at column 1"),
    ("{'a'", 5, "expected ':' after the dict key string 'a'"),
    ("{'a' 1}", 6, "expected ':' after the dict key string 'a'"),
    ('{1: 2}', 2, 'dict keys must be strings, got number 1'),
    ('{a: 2}', 2, "dict keys must be strings, got name 'a'"),
    ("{'a': 1, 'a': 2}", 10, "duplicate dict key 'a'"),
    ("'abc", 1, 'unterminated string'),
    ("a + 'abc", 5, 'unterminated string'),
    ("'abc\\", 1, 'unterminated string'),
    ("'\\q'", 2, "unknown escape '\\q'"),
    ("'\\x4'", 2, "invalid escape '\\x' (expected 2 hex digits)"),
    ("'\\uZZZZ'", 2, "invalid escape '\\u' (expected 4 hex digits)"),
    ("'\\UFFFFFFFF'", 2, "invalid escape '\\UFFFFFFFF'"),
    ('a ** 2', 3, "'**' is not supported"),
    ('a = 1', 3, "unknown operator '=' (did you mean '==')"),
    ('a === 1', 5, "unknown operator '=' (did you mean '==')"),
    ('a & b', 3, "unknown operator '&' (did you mean '&&' or 'and')"),
    ('a | b', 3, "unknown operator '|' (did you mean '||' or 'or')"),
    ('a @ b', 3, "unexpected character '@'"),
    ('a; b', 2, "unexpected character ';'"),
    ('~a', 1, "unexpected character '~'"),
    ('caf\u00e9', 4, "unexpected character '\u00e9'"),
    ('a\x00', 2, "unexpected character '\\x00'"),
    ('a is None', 3, "'is' is not supported (use '==' or '!=')"),
    ('lambda: 1', 1, 'lambda expressions are not supported'),
    ('a if b', 7, "expected 'else' to complete the 'if' at column 3"),
    ('a if', 5, "expected an operand after 'if'"),
    ('a if b else', 12, "expected an operand after 'else'"),
    ('foo(1)', 1, "unknown function 'foo' (known: abs, bool, clamp, float, int, len, max, "
                  'min, round, str)'),
    ('1 + x()', 5, "unknown function 'x'"),
    ('eval("1")', 1, "unknown function 'eval'"),
    ('__import__("os")', 1, "names starting with '_' are not accessible"),
    ('1 + _hidden', 5, "names starting with '_' are not accessible"),
    ('a.', 3, "expected a field name after '.'"),
    ('a.1', 2, 'unexpected number .1 (expected an operator)'),
    ('a.(b)', 3, "expected a field name after '.'"),
    ('(a)(1)', 4, "only functions can be called: '(' must follow a function name"),
    ('a.b(1)', 4, "only functions can be called: '(' must follow a function name"),
    ('items[0](1)', 9, 'only functions can be called'),
    ('abs(x=1)', 6, "unknown operator '=' (did you mean '==')"),
    ('1e', 1, "invalid number '1e'"),
    ('1e+', 1, "invalid number '1e+'"),
    ('12abc', 1, "invalid number '12abc'"),
    ('0x', 1, "invalid number '0x'"),
    ('0b102', 1, "invalid number '0b102'"),
    ('1_000', 1, "invalid number '1_000'"),
    ('1 if x else 2', 0, ''),
    ('1e999', 1, "number '1e999' is too large"),
    ('-1e999', 2, "number '1e999' is too large"),
    ('a ) + (b', 3, "unexpected ')'"),
    (") + 'unterminated", 1, "unexpected ')'"),
]


@pytest.mark.parametrize(('text', 'column', 'message'), PARSE_ERRORS)
def test_parse_error(text: str, column: int, message: str) -> None:
    if not message:
        parse(text)  # a control: this one is valid
        return
    with pytest.raises(ExpressionError) as info:
        parse(text)
    error = info.value
    assert error.message.startswith(message)
    assert error.column == column
    assert error.text == text
    assert str(error) == f'column {column}: {error.message}'


def test_expression_error_is_a_value_error_and_pickles() -> None:
    with pytest.raises(ValueError):
        parse('a +')
    error = ExpressionError('bad', 3, 'a b')
    copy_ = pickle.loads(pickle.dumps(error))
    assert (copy_.message, copy_.column, copy_.text) == ('bad', 3, 'a b')
    assert str(copy_) == 'column 3: bad'


def test_unknown_function_without_functions() -> None:
    with pytest.raises(ExpressionError, match=r"unknown function 'abs' \(known: none\)"):
        parse('abs(1)', functions={})


def test_custom_functions() -> None:
    functions = {'twice': lambda value: 2 * value}
    expression = parse('twice(x) + 1', functions=functions)
    assert expression.evaluate(lookup_from({'x': 4})) == 9
    assert referenced_names('twice(x)', functions=functions) == {'x'}
    with pytest.raises(ExpressionError, match="unknown function 'abs'"):
        parse('abs(x)', functions=functions)


# --------------------------------------------------------------------------- limits

def _nesting_error(text: str) -> ExpressionError:
    with pytest.raises(ExpressionError) as info:
        parse(text)
    assert 'nested too deeply' in info.value.message
    return info.value


@pytest.mark.parametrize('text', [
    'not ' * 10000 + 'x',
    '(' * 10000,
    '-' * 10000 + '1',
    '[' * 5000 + ']' * 5000,
    'x' * (MAX_LENGTH + 1),
])
def test_too_long(text: str) -> None:
    with pytest.raises(ExpressionError) as info:
        parse(text)
    assert info.value.column == MAX_LENGTH + 1
    assert info.value.message.startswith(f'expression is too long ({len(text)} characters')


def test_longest_accepted_text() -> None:
    text = 'x' * MAX_LENGTH
    assert parse(text).names == {text}


@pytest.mark.parametrize(('opening', 'closing', 'offset'), [
    ('(', ')', 1),
    ('[', ']', 1),
    ('abs(', ')', 4),
    ('x[', ']', 2),
    ("{'k': ", '}', 1),
    ('not ', '', 1),
    ('!', '', 1),
    ('-', '', 1),
    ('+', '', 1),
    ('1 + (', ')', 5),
    ('a if b else ', '', 8),
])
def test_nesting_limit(opening: str, closing: str, offset: int) -> None:
    def build(levels: int) -> str:
        return opening * levels + 'x' + closing * levels

    parse(build(MAX_NESTING))
    error = _nesting_error(build(MAX_NESTING + 1))
    assert error.column == len(opening) * MAX_NESTING + offset
    text = build(1000)
    if len(text) <= MAX_LENGTH:
        _nesting_error(text)


def test_nesting_limit_of_field_chains() -> None:
    parse('a' + '.b' * MAX_NESTING)
    text = 'a' + '.b' * (MAX_NESTING + 1)
    assert _nesting_error(text).column == len(text)
    _nesting_error('a' + '.b' * 999)
    _nesting_error('a' + '[0]' * 600)


def test_deepest_expression_evaluates_and_renders() -> None:
    text = '(' * (MAX_NESTING - 1) + '-x' + ')' * (MAX_NESTING - 1)
    _nesting_error('(' + text + ')')
    expression = parse(text)
    assert expression.evaluate(lookup_from({'x': 2})) == -2
    text = '-(' * (MAX_NESTING // 2) + 'x' + ')' * (MAX_NESTING // 2)
    expression = parse(text)
    assert expression.evaluate(lookup_from({'x': 2})) == 2
    assert parse(str(expression)) == expression


# --------------------------------------------------------------------------- evaluation errors

class Boom:
    """A blackboard value whose truth value fails (like a numpy array)."""

    def __bool__(self) -> bool:
        raise ValueError('ambiguous')


EVALUATION_ERRORS = [
    ('battery', {}, "no blackboard key 'battery'"),
    ('x and y', {'x': 1}, "no blackboard key 'y'"),
    ('a.b', {'a': {}}, "no field 'b' in dict (keys: none)"),
    ("'a' < 1", {}, "cannot compare str and int with '<'"),
    ('null >= 1', {}, "cannot compare null and int with '>='"),
    ('[1] < 1', {}, "cannot compare list and int with '<'"),
    ('1 / 0', {}, "division by zero in '/'"),
    ('1 // 0', {}, "division by zero in '//'"),
    ('1 % 0', {}, "division by zero in '%'"),
    ('1.0 / 0.0', {}, "division by zero in '/'"),
    ('n / zero', {'n': 1, 'zero': 0}, "division by zero in '/'"),
    ("'a' - 1", {}, "'-' needs two numbers, got str and int"),
    ("'a' * 3", {}, "'*' needs two numbers, got str and int"),
    ("3 * 'a'", {}, "'*' needs two numbers, got int and str"),
    ("'%s' % 1", {}, "'%' needs two numbers, got str and int"),
    ('[1] * 2', {}, "'*' needs two numbers, got list and int"),
    ("'a' + 1", {}, 'cannot add str and int'),
    ("[1] + 'a'", {}, 'cannot add list and str'),
    ("-'a'", {}, "unary '-' needs a number, got str"),
    ('+null', {}, "unary '+' needs a number, got null"),
    ('[1, 2][5]', {}, 'index 5 is out of range for list of length 2'),
    ("[1, 2]['a']", {}, 'index must be an integer, got str'),
    ('[1, 2][1.0]', {}, 'index must be an integer, got float'),
    ('[1, 2][true]', {}, 'index must be an integer, got bool'),
    ("{'a': 1}['b']", {}, "no key 'b' in dict"),
    ("{'a': 1}[[1]]", {}, 'cannot use list as a key of dict'),
    ('5[0]', {}, 'cannot index int'),
    ('s[0]', {'s': {1, 2}}, 'cannot index set'),
    ('1 in 5', {}, "'in' needs a string, list, tuple, dict or set on the right, got int"),
    ("1 in 'abc'", {}, 'cannot look for int in str'),
    ("abs('x')", {}, "abs() failed: bad operand type for abs(): 'str'"),
    ('abs()', {}, 'abs() failed'),
    ('max()', {}, 'max() failed'),
    ('len(5)', {}, 'len() failed'),
    ('clamp(1, 3, 0)', {}, 'clamp() failed: low (3) is above high (0)'),
    ("clamp('a', 0, 1)", {}, 'clamp() failed'),
    ("int('x')", {}, 'int() failed'),
    ("float('x')", {}, 'float() failed'),
    ('round(x)', {'x': float('nan')}, 'round() failed'),
    ('int(x)', {'x': float('inf')}, 'int() failed'),
    ('round(5, -1000000000)', {}, 'round() failed: ndigits must be between -400 and 400'),
    ('x', {'x': 1}, ''),
    ('not x', {'x': Boom()}, 'cannot use Boom as a condition: ambiguous'),
    ('x or 1', {'x': Boom()}, 'cannot use Boom as a condition'),
    ('1 if x else 2', {'x': Boom()}, 'cannot use Boom as a condition'),
]


@pytest.mark.parametrize(('text', 'env', 'message'), EVALUATION_ERRORS)
def test_evaluation_error(text: str, env: dict[str, Any], message: str) -> None:
    expression = parse(text)
    if not message:
        expression.evaluate(lookup_from(env))  # a control: this one works
        return
    with pytest.raises(EvaluationError) as info:
        expression.evaluate(lookup_from(env))
    assert str(info.value).startswith(message)
    assert info.value.message == str(info.value)


def test_failing_lookup_is_wrapped() -> None:
    def lookup(name: str) -> Any:
        raise RuntimeError('blackboard offline')

    with pytest.raises(EvaluationError, match="cannot read blackboard key 'x': blackboard"):
        parse('x + 1').evaluate(lookup)


def test_failing_custom_function_is_wrapped() -> None:
    def explode() -> None:
        raise OSError('disk on fire')

    expression = parse('explode()', functions={'explode': explode})
    with pytest.raises(EvaluationError, match=r'^explode\(\) failed: disk on fire'):
        expression.evaluate(lookup_from({}))


def test_failing_field_declaration_is_wrapped() -> None:
    class Broken:
        def get_fields_and_field_types(self) -> dict[str, str]:
            raise RuntimeError('broken')

    with pytest.raises(EvaluationError, match='RuntimeError: broken'):
        parse('b.x').evaluate(lookup_from({'b': Broken()}))


# --------------------------------------------------------------------------- security

def _fast_evaluation_error(text: str, env: Mapping[str, Any] | None = None) -> str:
    start = time.perf_counter()
    with pytest.raises(EvaluationError) as info:
        evaluate(text, env)
    assert time.perf_counter() - start < 0.5
    return info.value.message


BIG = 10 ** 5000


@pytest.mark.parametrize(('text', 'env', 'message'), [
    ("'a' * 1000000000", {}, "'*' needs two numbers"),
    ('[0] * 1000000000', {}, "'*' needs two numbers"),
    ("1000000000 * 'a'", {}, "'*' needs two numbers"),
    ("'%999999999d' % 1", {}, "'%' needs two numbers"),
    ('9 * ' * 400 + '9', {}, "result of '*' is too large (magnitude above 1e+300)"),
    ('999999999999 * ' * 120 + '1', {}, "result of '*' is too large"),
    ('1e300 * 10', {}, "result of '*' is too large"),
    ('1e300 + 1e300', {}, "result of '+' is too large"),
    ('-1e300 - 1e300', {}, "result of '-' is too large"),
    ('1e300 / 1e-300', {}, "result of '/' is too large"),
    ('x * x', {'x': BIG}, "result of '*' is too large (more than 4300 digits)"),
    ('x * 10', {'x': BIG // 100}, "result of '*' is too large (more than 4300 digits)"),
    ('x + x', {'x': BIG - 1}, "result of '+' is too large (more than 4300 digits)"),
    ('x / 3', {'x': BIG}, "'/' failed"),
    ('s + s', {'s': 'a' * 60000}, "result of '+' is too long (120000 items"),
    ('s + s', {'s': [0] * 60000}, "result of '+' is too long"),
    ('str(x)', {'x': BIG}, 'str() failed: integer is too large'),
    ('int(s)', {'s': '1' * 5000}, 'int() failed: text is too long'),
    ('round(x, -1000000000)', {'x': 5}, 'round() failed'),
    ('float(x)', {'x': BIG}, 'float() failed'),
])
def test_resource_limits(text: str, env: dict[str, Any], message: str) -> None:
    assert _fast_evaluation_error(text, env).startswith(message)


def test_non_finite_inputs_propagate() -> None:
    inf = float('inf')
    assert evaluate('x + 1', {'x': inf}) == inf
    assert evaluate('x * 2 > 1e300', {'x': 1e301}) is True
    assert math.isnan(evaluate('x - x', {'x': inf}))
    assert evaluate('r < 0.5', {'r': inf}) is False


@pytest.mark.parametrize('text', [
    '__import__("os")',
    '__import__("os").system("true")',
    'x.__class__',
    'x.__class__.__bases__[0].__subclasses__()',
    '"".__class__',
    'x._secret',
    'getattr(x, "y")',
    'open("/etc/passwd")',
    'exec("1")',
    'x()',
    'x.y()',
    '(lambda: 1)()',
    'lambda: 1',
    'x if y else z()',
    'a := 1',
    'import os',
    '2 ** 10',
    'f"{x}"',
    'x[1:2]',
])
def test_unsafe_text_is_rejected(text: str) -> None:
    with pytest.raises(ExpressionError):
        parse(text)


def test_blackboard_callables_cannot_be_called() -> None:
    env = {'f': print, 'd': {'get': 1}, 'l': [1]}
    assert evaluate('d.get', env) == 1
    assert _fast_evaluation_error('l.append', env).startswith("cannot read field 'append'")
    assert _fast_evaluation_error('f.x', env).startswith("cannot read field 'x' of")
    assert evaluate('f', env) is print


INJECTIONS = [
    ('__import__("os").system("id")', "names starting with '_' are not accessible"),
    ('__builtins__', "names starting with '_' are not accessible"),
    ('abs.__call__(1)', "field names starting with '_' are not accessible"),
    ('max.__self__', "field names starting with '_' are not accessible"),
    ('x.__class__.__mro__', "field names starting with '_' are not accessible"),
    ('\uff3f\uff3fimport\uff3f\uff3f("os")', "unexpected character '\uff3f'"),
    ('getattr(x, "__class__")', "unknown function 'getattr'"),
    ('eval("1")', "unknown function 'eval'"),
    ('open("/etc/passwd")', "unknown function 'open'"),
    ('pow(10, 10 ** 9)', "unknown function 'pow'"),
    ('x.system("id")', "only functions can be called: '(' must follow a function name"),
    ('(lambda: 1)()', 'lambda expressions are not supported'),
    ('import os', "unexpected name 'os' (expected an operator)"),
    ('x; y', "unexpected character ';'"),
    ('x = 1', "unknown operator '=' (did you mean '==')"),
    ('10 ** 10 ** 10', "'**' is not supported"),
    ('9' * 4 + ' ** 99999', "'**' is not supported"),
    ('(' * (MAX_NESTING + 1) + '1' + ')' * (MAX_NESTING + 1),
     f'expression is nested too deeply (more than {MAX_NESTING} levels)'),
    ('not ' * (MAX_NESTING + 1) + 'x',
     f'expression is nested too deeply (more than {MAX_NESTING} levels)'),
    ('x' + '[0]' * (MAX_NESTING + 1),
     f'expression is nested too deeply (more than {MAX_NESTING} levels)'),
    ('1' + ' + 1' * MAX_LENGTH, 'expression is too long'),
]


@pytest.mark.parametrize(('text', 'message'), INJECTIONS)
def test_injection_attempts_are_refused_with_a_reason(text: str, message: str) -> None:
    start = time.perf_counter()
    with pytest.raises(ExpressionError) as info:
        parse(text)
    assert time.perf_counter() - start < 0.5
    assert info.value.message.startswith(message), info.value.message
    assert 1 <= info.value.column <= len(text) + 1


def test_blackboard_text_is_data_never_code() -> None:
    payload = '__import__("os").system("touch /tmp/pwned")'
    env = {'s': payload, 'd': {'__class__': 'a key like any other'}, 'l': [1]}
    assert evaluate('s', env) == payload
    assert evaluate('str(s) + ""', env) == payload
    assert evaluate('d["__class__"]', env) == 'a key like any other'
    assert _fast_evaluation_error('l["__class__"]', env).startswith('index must be an integer')
    assert _fast_evaluation_error('s.format', env).startswith("cannot read field 'format'")
    assert _fast_evaluation_error('"".join', env).startswith("cannot read field 'join'")


_HOSTILE_TOKENS = ['__import__', '__class__', '_x', 'x', 'os', 'system', '.', '(', ')', '[',
                   ']', '"id"', "'os'", ',', '**', '*', '+', 'lambda', ':', 'import', 'eval',
                   'exec', 'getattr', 'abs', 'max', 'str', 'int', '9' * 300, '1e308', ' not ',
                   ' if ', ' else ', '{', '}', '@', ';', '=', '==', '\\', '\n']


@settings(max_examples=300, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(_HOSTILE_TOKENS), max_size=80).map(''.join),
       st.dictionaries(st.sampled_from(['x', 'os', 'system']),
                       st.sampled_from([1, 'text', [1, 2], {'a': 1}, print, object()])))
def test_hostile_token_soup_raises_only_expression_errors_quickly(
        text: str, env: dict[str, Any]) -> None:
    start = time.perf_counter()
    try:
        expression = parse(text)
        expression.evaluate(lookup_from(env))
    except (ExpressionError, EvaluationError):
        pass
    assert time.perf_counter() - start < 0.5


# --------------------------------------------------------------------------- numpy

def test_numpy_values() -> None:
    np = pytest.importorskip('numpy')
    env = {
        'f': np.float32(0.25), 'i': np.int64(7), 'arr': np.array([1.5, 2.5, 3.5]),
        'b': np.bool_(True), 'ints': np.array([1, 2, 3], dtype=np.int32),
    }
    assert evaluate('f < 0.5 and i > 5', env)
    assert evaluate('f * 4 + i', env) == 8
    assert evaluate('i // 2 == 3', env)
    assert evaluate('arr[1] + 1', env) == 3.5
    assert evaluate('arr[-1] >= 3.5', env)
    assert evaluate('len(arr)', env) == 3
    assert evaluate('2 in ints', env)
    assert evaluate('max(ints) == 3', env)
    assert evaluate('1 if b else 2', env) == 1
    assert evaluate('arr[ints[0]]', env) == 2.5
    with pytest.raises(EvaluationError, match='cannot use ndarray as a condition'):
        evaluate('arr and 1', env)
    with pytest.raises(EvaluationError, match="'\\*' needs two numbers, got ndarray and int"):
        evaluate('arr * 2', env)
    with pytest.raises(EvaluationError, match='index 3 is out of range for ndarray of length 3'):
        evaluate('arr[3]', env)
    with pytest.raises(EvaluationError, match="division by zero in '/'"):
        evaluate('f / (i - 7)', env)
    assert str(literal(np.float64(1.5))) == '1.5'
    assert str(literal([np.int32(3)])) == '[3]'


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


# --------------------------------------------------------------------------- properties

_NAMES = ['a', 'b', 'c', 'msg']
_BINARY = ['+', '-', '*', '/', '//', '%', '<', '<=', '==', '!=', '>', '>=', 'in',
           'not in', 'and', 'or', '&&', '||']


def _join(parts: tuple[str, ...]) -> str:
    return ''.join(parts)


_leaves = st.one_of(
    st.sampled_from(_NAMES),
    st.integers(-10 ** 20, 10 ** 20).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.text(max_size=4).map(lambda value: str(literal(value))),
    st.sampled_from(['true', 'false', 'null', '[]', '{}', '0', '0.0', "''"]),
)


def _extend(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.tuples(children, st.sampled_from(_BINARY), children).map(
            lambda t: f'{t[0]} {t[1]} {t[2]}'),
        st.tuples(st.sampled_from(['-', '+', 'not ', '!']), children).map(_join),
        children.map(lambda s: f'({s})'),
        st.lists(children, max_size=3).map(lambda xs: '[' + ', '.join(xs) + ']'),
        st.tuples(children, children).map(lambda t: f'{t[0]}[{t[1]}]'),
        st.tuples(children, st.sampled_from(['x', 'y', 'a'])).map(lambda t: f'{t[0]}.{t[1]}'),
        st.tuples(st.sampled_from(sorted(DEFAULT_FUNCTIONS)), st.lists(children, max_size=3)
                  ).map(lambda t: f'{t[0]}(' + ', '.join(t[1]) + ')'),
        st.tuples(children, children, children).map(lambda t: f'{t[0]} if {t[1]} else {t[2]}'),
        st.dictionaries(st.text(max_size=2).map(lambda k: str(literal(k))), children,
                        max_size=2).map(
            lambda d: '{' + ', '.join(f'{k}: {v}' for k, v in d.items()) + '}'),
    )


expressions = st.recursive(_leaves, _extend, max_leaves=16)
_values = st.one_of(
    st.integers(), st.integers(-3, 3), st.floats(), st.text(max_size=3),
    st.lists(st.integers(-3, 3), max_size=3),
    st.fixed_dictionaries({'x': st.integers(), 'y': st.text(max_size=2)}),
)
_FAST = settings(max_examples=100, deadline=None, database=None,
                 suppress_health_check=[HealthCheck.too_slow])


@_FAST
@given(st.text(max_size=200))
def test_parse_arbitrary_text_raises_only_expression_error(text: str) -> None:
    try:
        parse(text)
    except ExpressionError as error:
        assert 1 <= error.column <= len(text) + 1


@_FAST
@given(st.lists(st.sampled_from(list("ab_1.0xe+-*/%<>=!&|()[]{},:'\"\\ ") + [
    'not ', 'and ', 'or ', 'in ', 'if ', 'else ', 'abs', 'true']), max_size=120).map(''.join))
def test_parse_token_soup_raises_only_expression_error(text: str) -> None:
    try:
        expression = parse(text)
    except ExpressionError as error:
        assert 1 <= error.column <= len(text) + 1
    else:
        assert parse(str(expression)) == expression


@_FAST
@given(expressions, st.dictionaries(st.sampled_from(_NAMES), _values), st.integers())
def test_generated_expressions(text: str, env: dict[str, Any], default: int) -> None:
    try:
        expression = parse(text)
    except ExpressionError:
        return
    assert expression.names <= set(_NAMES)
    canonical = str(expression)
    if len(canonical) <= MAX_LENGTH:
        assert parse(canonical) == expression
    values = dict.fromkeys(_NAMES, default)
    values.update(env)
    for lookup in (lookup_from(values), lookup_from(env)):
        try:
            expression.evaluate(lookup)
        except EvaluationError:
            pass


@_FAST
@given(st.integers(-10 ** 30, 10 ** 30), st.integers(-10 ** 30, 10 ** 30),
       st.sampled_from(['+', '-', '*', '//', '%', '<', '<=', '==', '!=']))
def test_integer_semantics_match_python(left: int, right: int, op: str) -> None:
    expected = {
        '+': lambda: left + right, '-': lambda: left - right, '*': lambda: left * right,
        '//': lambda: left // right, '%': lambda: left % right, '<': lambda: left < right,
        '<=': lambda: left <= right, '==': lambda: left == right, '!=': lambda: left != right,
    }[op]
    expression = parse(f'l {op} r')
    env = {'l': left, 'r': right}
    if op in ('//', '%') and right == 0:
        with pytest.raises(EvaluationError):
            expression.evaluate(lookup_from(env))
    else:
        assert expression.evaluate(lookup_from(env)) == expected()


_json = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(),
              st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=5)),
    lambda children: st.one_of(st.lists(children, max_size=3),
                               st.dictionaries(st.text(max_size=3), children, max_size=3)),
    max_leaves=10,
)


@_FAST
@given(_json)
def test_literal_round_trips(value: Any) -> None:
    expression = literal(value)
    assert parse(str(expression)) == expression
    assert expression.evaluate(lookup_from({})) == value
