# Copyright 2026 bt_executive developers
# SPDX-License-Identifier: Apache-2.0
"""The expression language rejects what it cannot take: parse errors, limits, evaluation errors."""

from __future__ import annotations

import pickle
from typing import Any

from bt_executive.core.expressions import EvaluationError
from bt_executive.core.expressions import ExpressionError
from bt_executive.core.expressions import MAX_LENGTH
from bt_executive.core.expressions import MAX_NESTING
from bt_executive.core.expressions import parse
from bt_executive.core.expressions import referenced_names
from expression_helpers import lookup_from
import pytest


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
