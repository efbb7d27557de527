"""A small AST mutator for the checkers' references: one mutant per mutation site.

Why not mutmut or cosmic-ray: they rewrite the module where it lives, and several checkers use
the library's own function as their oracle (`check_summarize` counts with `count_stop_reasons`,
`check_calibrate` asks `calibrate`), so the oracle would move with the mutant and every such
mutant would survive. Here each mutant is compiled into a COPY of its module's namespace: the
library is never touched, and the mutant reaches the checker as a learner's function would,
through `cafe.course.compare`. (`benchmarks/checker_mutmut.py` runs mutmut all the same, on
copies of the same targets in a scratch project, so a maintained tool's figure stands beside this.)

A bank names what to mutate (`Bank.mutation_module`, `Bank.mutation_targets`: the entry function
first, then the helpers that belong to the exercise). The operators (`OPERATORS`): comparison
swaps, arithmetic and boolean operator swaps, dropping `not` or a unary minus, negating a test,
dropping a comprehension filter, changing a constant, `return x` -> `return None`, deleting a
statement, `break` <-> `continue`, `any` <-> `all`, `min` <-> `max`. Docstrings, annotations, the
text inside f-strings and `raise` messages are left alone; a mutant that unparses to the same
program as the original or an earlier mutant is dropped.
"""

from __future__ import annotations
import __future__

import ast
import contextlib
import copy
import importlib
import inspect
import io
import signal
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Literal

from banks.harness import Bank
from cafe import course

__all__ = ["OPERATORS", "MUTANT_SECONDS", "Mutant", "Fate", "mutants", "namespace", "judge"]

# A mutant running longer than this is stopped and counted as killed (a learner sees a hang).
MUTANT_SECONDS = 20

_CMP: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}
_BIN: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Div,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Mult,
    ast.Mod: ast.FloorDiv,
    ast.Pow: ast.Mult,
    ast.BitOr: ast.BitAnd,
    ast.BitAnd: ast.BitOr,
}
_NAMES = {"any": "all", "all": "any", "min": "max", "max": "min"}
OPERATORS = (
    "compare",
    "binop",
    "boolop",
    "unary_drop",
    "negate_test",
    "drop_filter",
    "constant",
    "return_none",
    "delete_statement",
    "break_continue",
    "swap_builtin",
)
Fate = Literal["killed", "survived", "crashed", "timeout"]


@dataclass(frozen=True)
class Mutant:
    """One mutation of one target function: where, what changed, and the mutated source."""

    function: str
    line: int  # within the function: 1 is its `def` line
    operator: str
    before: str
    after: str
    source: str = field(repr=False)

    @property
    def key(self) -> str:
        """How survivors are listed and excused: function, line, operator, before and after."""
        return f"{self.function}:{self.line}: {self.operator}: `{self.before}` -> `{self.after}`"


# --- finding the sites ------------------------------------------------------------------------


def _docstring(node: ast.AST) -> ast.AST | None:
    body = getattr(node, "body", None)
    if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
        value = body[0].value
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            return body[0]
    return None


def _skipped(tree: ast.AST) -> set[int]:
    """Nodes not worth mutating: docstrings, annotations, f-string text, raise messages."""
    skip: set[int] = set()
    for node in ast.walk(tree):
        whole: list[ast.AST | None] = [_docstring(node)]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            arguments = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
            arguments += [node.args.vararg, node.args.kwarg]
            whole += [node.returns] + [a.annotation for a in arguments if a is not None]
        if isinstance(node, ast.AnnAssign):
            whole.append(node.annotation)
        if isinstance(node, ast.Raise):
            whole.append(node.exc)
        if isinstance(node, ast.JoinedStr):
            skip.update(id(v) for v in node.values if isinstance(v, ast.Constant))
        for part in whole:
            if part is not None:
                skip.update(id(n) for n in ast.walk(part))
    return skip


def _is_mutable_constant(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and not (
        isinstance(node.value, bytes) or node.value is None or node.value is Ellipsis
    )


def _sites_of(node: ast.AST) -> Iterator[tuple[str, int]]:
    """(operator, variant) for every mutation this node allows."""
    if isinstance(node, ast.Compare):
        yield from (("compare", j) for j, op in enumerate(node.ops) if type(op) in _CMP)
    elif isinstance(node, (ast.BinOp, ast.AugAssign)) and type(node.op) in _BIN:
        yield "binop", 0
    if isinstance(node, ast.BoolOp):
        yield "boolop", 0
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub)):
        yield "unary_drop", 0
    if isinstance(node, (ast.If, ast.While, ast.IfExp)):
        yield "negate_test", 0
    if isinstance(node, ast.comprehension):
        yield from (("drop_filter", j) for j in range(len(node.ifs)))
    if _is_mutable_constant(node):
        yield "constant", 0
    if isinstance(node, ast.Return) and node.value is not None:
        if not (isinstance(node.value, ast.Constant) and node.value.value is None):
            yield "return_none", 0
    if isinstance(node, ast.AugAssign) or (
        isinstance(node, ast.Expr) and not isinstance(node.value, ast.Constant)
    ):
        yield "delete_statement", 0
    if isinstance(node, (ast.Break, ast.Continue)):
        yield "break_continue", 0
    if isinstance(node, ast.Name) and node.id in _NAMES and isinstance(node.ctx, ast.Load):
        yield "swap_builtin", 0


# --- applying one -----------------------------------------------------------------------------

_Parents = dict[int, tuple[ast.AST, str, "int | None"]]


def _parents(tree: ast.AST) -> _Parents:
    found: _Parents = {}
    for parent in ast.walk(tree):
        for name, value in ast.iter_fields(parent):
            if isinstance(value, ast.AST):
                found[id(value)] = (parent, name, None)
            elif isinstance(value, list):
                for i, item in enumerate(value):
                    if isinstance(item, ast.AST):
                        found[id(item)] = (parent, name, i)
    return found


def _replace(parents: _Parents, old: ast.AST, new: ast.AST) -> None:
    parent, name, index = parents[id(old)]
    if index is None:
        setattr(parent, name, new)
    else:
        getattr(parent, name)[index] = new


def _mutated_constant(value: Any) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value + 1.0 if value not in (0.0, 1.0) else 1.0 - value
    if isinstance(value, str):
        return f"XX{value}XX" if value else "XX"
    return value


def _mutate(node: Any, operator: str, variant: int, parents: _Parents) -> ast.AST:
    """Change `node` in place (or swap it in its parent); return the node now standing there."""
    if operator == "compare":
        node.ops[variant] = _CMP[type(node.ops[variant])]()
    elif operator == "binop":
        node.op = _BIN[type(node.op)]()
    elif operator == "boolop":
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
    elif operator == "negate_test":
        node.test = ast.UnaryOp(ast.Not(), node.test)
    elif operator == "drop_filter":
        del node.ifs[variant]
    elif operator == "constant":
        node.value = _mutated_constant(node.value)
    elif operator == "return_none":
        node.value = ast.Constant(None)
    elif operator == "swap_builtin":
        node.id = _NAMES[node.id]
    else:
        replacement = {
            "unary_drop": lambda: node.operand,
            "delete_statement": ast.Pass,
            "break_continue": lambda: (
                ast.Continue() if isinstance(node, ast.Break) else ast.Break()
            ),
        }[operator]()
        _replace(parents, node, replacement)
        return replacement
    return node


def _show(node: ast.AST) -> str:
    try:
        text = " ".join(ast.unparse(node).split())
    except Exception:  # a bare operator node has no source of its own
        text = type(node).__name__
    return text if len(text) <= 70 else text[:67] + "..."


def _line_of(node: ast.AST, parents: _Parents) -> int:
    while not hasattr(node, "lineno") and id(node) in parents:
        node = parents[id(node)][0]
    return int(getattr(node, "lineno", 0))


def _source(module: Any, name: str) -> str:
    return textwrap.dedent(inspect.getsource(getattr(module, name)))


def mutants(bank: Bank) -> Iterator[Mutant]:
    """Every distinct mutant of the bank's mutation targets, in source order."""
    module = importlib.import_module(bank.mutation_module)
    for name in bank.mutation_targets:
        tree = ast.parse(_source(module, name))
        skip, parents, seen = _skipped(tree), _parents(tree), {ast.unparse(tree)}
        for index, node in enumerate(ast.walk(tree)):
            if id(node) in skip:
                continue
            for operator, variant in _sites_of(node):
                mutated = copy.deepcopy(tree)
                target = list(ast.walk(mutated))[index]
                before = _show(target)
                after = _mutate(target, operator, variant, _parents(mutated))
                code = ast.unparse(ast.fix_missing_locations(mutated))
                if code not in seen:  # not the original, nor a mutant made already
                    seen.add(code)
                    line = _line_of(node, parents)
                    yield Mutant(name, line, operator, before, _show(after), code)


# --- running one ------------------------------------------------------------------------------


class MutantTimeout(BaseException):
    """Raised by the alarm: a BaseException, so no checker's `except Exception` swallows it."""


def _on_alarm(signum: int, frame: Any) -> None:
    raise MutantTimeout()


def namespace(bank: Bank, mutant: Mutant | None = None) -> dict[str, Any]:
    """A copy of the reference module's globals with every target compiled from its source (the
    mutated one from `mutant`), so the targets call each other's copies, never the library's."""
    module = importlib.import_module(bank.mutation_module)
    copied = dict(vars(module))
    for name in bank.mutation_targets:
        own = mutant is not None and mutant.function == name
        source = mutant.source if mutant is not None and own else _source(module, name)
        flags = __future__.annotations.compiler_flag
        code = compile(source, f"<mutant of {module.__name__}.{name}>", "exec", flags=flags)
        exec(code, copied)  # the reference's own source, mutated: nothing from outside
    return copied


def judge(bank: Bank, mutant: Mutant | None, seconds: int = MUTANT_SECONDS) -> Fate:
    """What the checker makes of one mutant (None: the unmutated copy of the reference).

    killed: compare said failed or not attempted; survived: passed; crashed: an exception
    escaped compare (a checker bug, counted as killed); timeout: ran past `seconds`.
    """
    try:
        fn = bank.learner_function(namespace(bank, mutant))
    except Exception:  # a mutant that cannot even be defined never reaches the learner's cell
        return "killed"
    previous = signal.signal(signal.SIGALRM, _on_alarm)
    signal.alarm(seconds)
    quiet = io.StringIO()
    try:
        with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
            result = course.compare(fn, check=bank.check)
    except MutantTimeout:
        return "timeout"
    except Exception:
        return "crashed"
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    return "survived" if result.status == "passed" else "killed"
