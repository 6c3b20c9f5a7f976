"""Seed sentence templates as plain Python functions: the same words as Jinja's sandbox, cheaper.

A sentence template (``seeds/<game>/text/<language>.yaml``, see :mod:`services.common.sentences`)
is parsed by the sandboxed Jinja environment that renders it, and when every node of it is one this
module knows, it is also turned into one Python function.  The function does, step by step, what
the code Jinja generates for the template does, minus the machinery a sentence never needs: no
``Context`` object, no merged globals, the speaker's helpers called directly rather than through
the sandbox's call check (they are our own methods), and a dict's key read without first failing
``getattr`` on it.  Everything else is Jinja's own: missing values are the environment's
``StrictUndefined``, output is ``str()`` of each value (no autoescape, no finalize), filters and
tests are the environment's functions, other calls go through the sandbox's ``is_safe_callable``,
and attribute or item reads on anything but a plain dict or list go through the sandbox's
``getattr``/``getitem``.  Whitespace control (``trim_blocks``, ``lstrip_blocks``) is done by
Jinja's lexer before the tree this module reads, so the literal text is already Jinja's.

What this module does not know (macros, blocks, ``{% set %}`` whose name is read again except
at the top level, loops with ``else`` or a filter, keyword arguments, pass-context filters such
as ``reject``, the environment's globals such as ``range``, …) raises :class:`Unsupported`, and
that template stays on Jinja.  A function that raises at render time is not trusted either:
the caller renders the template with Jinja, which gives the sentence or the error in its own
words (a template has no effects outside its own locals, so running it twice is harmless).
``tests/words/test_sentence_code.py`` checks, for every template of every seed and language,
that both paths print the same bytes on generated payloads and on the events of played games.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import count
from typing import Any

from jinja2 import nodes
from jinja2.sandbox import SandboxedEnvironment, SecurityError
from jinja2.utils import _PassArg

# Names the renderer puts into every template's context besides the speaker's helpers.
CONTEXT_NAMES = ("e", "actor", "viewer")
# Names Jinja itself gives a meaning (``self`` is the template): such templates stay on Jinja.
_SPECIAL = frozenset({"self", "loop", "caller", "varargs", "kwargs"})
# ``loop.<attribute>`` inside a for loop, as Python over the loop's index, list and length.
_LOOP = {
    "index0": "{i}",
    "index": "({i} + 1)",
    "first": "({i} == 0)",
    "last": "({i} == {n} - 1)",
    "length": "{n}",
    "revindex": "({n} - {i})",
    "revindex0": "({n} - {i} - 1)",
}
_COUNTED = {"last", "length", "revindex", "revindex0"}  # loop attributes that need the list's length
_BINARY = {"Add": "+", "Sub": "-", "Mul": "*", "Div": "/", "FloorDiv": "//", "Mod": "%", "Pow": "**"}
_UNARY = {"Neg": "-", "Pos": "+", "Not": "not "}
_COMPARE = {"eq": "==", "ne": "!=", "gt": ">", "gteq": ">=", "lt": "<", "lteq": "<=", "in": "in", "notin": "not in"}
_CONST_TYPES = (str, int, bool, type(None))

Sentence = Callable[[Any, Any, Any, Any], str]


class Unsupported(Exception):
    """The template uses something this module does not turn into Python: it stays on Jinja."""


class _Loop:
    """A for loop's ``loop`` as the generated code holds it: its index and length variables."""

    def __init__(self, index: str, length: str) -> None:
        self.index, self.length = index, length


def _reads(env: SandboxedEnvironment) -> dict[str, Any]:
    """Attribute and item reads: the sandbox's, except a plain dict's key or a list's item read directly."""
    undefined, env_getattr, env_getitem = env.undefined, env.getattr, env.getitem
    dict_names = frozenset(dir(dict))

    def getattr_(obj: Any, attribute: str) -> Any:
        # The sandbox tries getattr first and the key second: for a plain dict and a name no dict
        # attribute has, the getattr always fails, so go straight to the key.
        if type(obj) is dict and attribute not in dict_names:
            try:
                return obj[attribute]
            except KeyError:
                return undefined(obj=obj, name=attribute)
        return env_getattr(obj, attribute)

    def getitem(obj: Any, argument: Any) -> Any:
        if type(obj) in (dict, list, tuple):
            try:
                return obj[argument]
            except (TypeError, LookupError):
                pass  # the sandbox's answer: an attribute of that name, or undefined
        return env_getitem(obj, argument)

    return {"_ga": getattr_, "_gi": getitem, "_undefined": undefined}


def _calls(env: SandboxedEnvironment) -> dict[str, Any]:
    """Calls of anything but the speaker's helpers, checked as the sandbox checks them, and ``~``."""
    undefined = env.undefined

    def call(function: Any, *args: Any) -> Any:
        wants = _PassArg.from_obj(function) or (callable(function) and _PassArg.from_obj(function.__call__))
        if wants:
            raise Unsupported("a call that wants the context")  # at render time: Jinja renders it
        if not env.is_safe_callable(function):
            raise SecurityError(f"{function!r} is not safely callable")
        try:
            return function(*args)
        except StopIteration:
            return undefined("value was undefined because a callable raised a StopIteration exception")

    def str_join(items: tuple[Any, ...]) -> str:
        return "".join(map(str, items))

    return {"_call": call, "_join": str_join}


def _loop_attributes(body: list[nodes.Node]) -> set[str]:
    """The ``loop.<attribute>`` names a loop body reads of its own loop (not of loops nested in it)."""
    found: set[str] = set()
    pending: list[nodes.Node] = list(body)
    while pending:
        node = pending.pop()
        if isinstance(node, nodes.Getattr) and isinstance(node.node, nodes.Name) and node.node.name == "loop":
            found.add(node.attr)
        if isinstance(node, nodes.For):
            pending.append(node.iter)  # the nested loop's own body has its own ``loop``
            continue
        pending.extend(node.iter_child_nodes())
    return found


class _Compiler:
    """One template's tree as the source of one function ``sentence(e, actor, viewer, s)``."""

    def __init__(self, env: SandboxedEnvironment, helpers: frozenset[str], tree: nodes.Template) -> None:
        self.env, self.helpers = env, helpers
        self.lines: list[str] = []
        self.scopes: list[dict[str, Any]] = [{}]
        self.names = count()
        self.constants: dict[str, Any] = {}
        self.callables: dict[str, Any] = {}
        self.read = {node.name for node in tree.find_all(nodes.Name) if node.ctx == "load"}
        self.set_names = {n.target.name for n in tree.find_all(nodes.Assign) if isinstance(n.target, nodes.Name)}
        self.nesting = 0  # inside an if or a for: a name set there may not be read again

    def new(self, prefix: str) -> str:
        return f"_{prefix}{next(self.names)}"

    def emit(self, line: str) -> None:
        self.lines.append("    " * (len(self.scopes) + self.nesting) + line)

    def source(self, tree: nodes.Template) -> str:
        self.emit("_o = []")
        self.emit("_w = _o.append")
        self.block(tree.body)
        self.emit('return "".join(_o)')
        return "def sentence(e, actor, viewer, s):\n" + "\n".join(self.lines) + "\n"

    # ---- statements ------------------------------------------------------------------

    def block(self, body: list[nodes.Node]) -> None:
        if not body:
            self.emit("pass")
        for node in body:
            handler = getattr(self, f"stmt_{type(node).__name__}", None)
            if handler is None:
                raise Unsupported(type(node).__name__)
            handler(node)

    def stmt_Output(self, node: nodes.Output) -> None:
        parts = [repr(child.data) if isinstance(child, nodes.TemplateData) else f"str({self.expr(child)})"
                 for child in node.nodes]  # fmt: skip
        if parts:
            self.emit(f"_w({parts[0]})" if len(parts) == 1 else f"_w(''.join(({', '.join(parts)},)))")

    def stmt_If(self, node: nodes.If) -> None:
        self.nesting += 1
        branches = [node, *node.elif_]
        for position, branch in enumerate(branches):
            self.nesting -= 1
            self.emit(f"{'if' if position == 0 else 'elif'} {self.expr(branch.test)}:")
            self.nesting += 1
            self.block(branch.body)
        if node.else_:
            self.nesting -= 1
            self.emit("else:")
            self.nesting += 1
            self.block(node.else_)
        self.nesting -= 1

    def stmt_Assign(self, node: nodes.Assign) -> None:
        if not isinstance(node.target, nodes.Name) or self._reserved(node.target.name):
            raise Unsupported("assignment to something but a new plain name")
        value = self.expr(node.node)
        if node.target.name not in self.read:  # kept for its effect (``home.append``) only
            self.emit(value)
            return
        if self.nesting or len(self.scopes) > 1:
            raise Unsupported("a name set inside an if or a loop and read again")
        variable = self.new("v")
        self.emit(f"{variable} = {value}")
        self.scopes[-1][node.target.name] = variable

    def stmt_For(self, node: nodes.For) -> None:
        if node.else_ or node.test is not None or node.recursive:
            raise Unsupported("a for loop with else, a filter or recursion")
        targets = [node.target] if isinstance(node.target, nodes.Name) else getattr(node.target, "items", None)
        if not targets or not all(isinstance(t, nodes.Name) and not self._reserved(t.name) for t in targets):
            raise Unsupported("a loop target other than plain names")
        scope: dict[str, Any] = {t.name: self.new("l") for t in targets}
        bound = ", ".join(scope[t.name] for t in targets) + ("," if len(targets) > 1 else "")
        iterable = self.expr(node.iter)
        index, length = self.new("i"), self.new("n")
        if _loop_attributes(node.body) & _COUNTED:
            # Jinja counts the list when asked, live; the copy counts the same unless the body
            # may change the list (a call that is not one of the speaker's helpers).
            if any(not self._helper_call(call) for child in node.body for call in child.find_all(nodes.Call)):
                raise Unsupported("a loop's length while its body calls something that may change the list")
            items = self.new("s")
            self.emit(f"{items} = list({iterable})")
            self.emit(f"{length} = len({items})")
            iterable = items
        self.emit(f"for {index}, ({bound}) in enumerate({iterable}):")
        scope["loop"] = _Loop(index, length)
        self.scopes.append(scope)
        self.block(node.body)
        self.scopes.pop()

    def _helper_call(self, call: nodes.Call) -> bool:
        return isinstance(call.node, nodes.Name) and call.node.name in self.helpers

    def _reserved(self, name: str) -> bool:
        return name in CONTEXT_NAMES or name in self.helpers or name in self.env.globals or name in _SPECIAL

    # ---- expressions -----------------------------------------------------------------

    def expr(self, node: nodes.Node) -> str:
        kind = type(node).__name__
        if kind in _BINARY:
            return f"({self.expr(node.left)} {_BINARY[kind]} {self.expr(node.right)})"  # type: ignore[attr-defined]
        if kind in _UNARY:
            return f"({_UNARY[kind]}{self.expr(node.node)})"  # type: ignore[attr-defined]
        handler = getattr(self, f"expr_{kind}", None)
        if handler is None:
            raise Unsupported(kind)
        return str(handler(node))

    def expr_Const(self, node: nodes.Const) -> str:
        if type(node.value) in _CONST_TYPES:
            return repr(node.value)
        name = self.new("k")
        self.constants[name] = node.value
        return name

    def expr_Name(self, node: nodes.Name) -> str:
        for scope in reversed(self.scopes):
            if node.name in scope:
                found = scope[node.name]
                if isinstance(found, _Loop):
                    raise Unsupported("loop used other than as loop.<attribute>")
                return str(found)
        if node.name in CONTEXT_NAMES:
            return node.name
        if node.name in self.helpers:
            return f"s.{node.name}"
        if node.name in self.env.globals or (node.name in _SPECIAL and node.name != "loop"):
            raise Unsupported(f"the global or special name {node.name!r}")
        if node.name in self.set_names:
            raise Unsupported(f"{node.name!r} read where it is not set")
        return f"_undefined(name={node.name!r})"

    def expr_Getattr(self, node: nodes.Getattr) -> str:
        if isinstance(node.node, nodes.Name) and node.node.name == "loop":
            loop = next((s["loop"] for s in reversed(self.scopes) if "loop" in s), None)
            if loop is not None:
                if node.attr not in _LOOP:
                    raise Unsupported(f"loop.{node.attr}")
                return _LOOP[node.attr].format(i=loop.index, n=loop.length)
        return f"_ga({self.expr(node.node)}, {node.attr!r})"

    def expr_Getitem(self, node: nodes.Getitem) -> str:
        if isinstance(node.arg, nodes.Slice):
            raise Unsupported("a slice")
        return f"_gi({self.expr(node.node)}, {self.expr(node.arg)})"

    def expr_Call(self, node: nodes.Call) -> str:
        if node.kwargs or node.dyn_args is not None or node.dyn_kwargs is not None:
            raise Unsupported("a call with keyword or star arguments")
        args = [self.expr(arg) for arg in node.args]
        callee = self.expr(node.node)
        if callee.startswith("s."):  # one of the speaker's helpers: our own method, called as Jinja would
            return f"{callee}({', '.join(args)})"
        return f"_call({', '.join([callee, *args])})"

    def _function(self, table: dict[str, Any], kind: str, node: nodes.Filter | nodes.Test) -> str:
        function = table.get(node.name)
        if function is None or _PassArg.from_obj(function) is not None:
            raise Unsupported(f"the {kind} {node.name!r}")
        if node.kwargs or node.dyn_args is not None or node.dyn_kwargs is not None or node.node is None:
            raise Unsupported(f"the {kind} {node.name!r} with keyword or star arguments")
        name = self.new(kind[0])
        self.callables[name] = function
        return f"{name}({', '.join([self.expr(node.node), *(self.expr(arg) for arg in node.args)])})"

    def expr_Filter(self, node: nodes.Filter) -> str:
        return self._function(self.env.filters, "filter", node)

    def expr_Test(self, node: nodes.Test) -> str:
        return self._function(self.env.tests, "test", node)

    def expr_Compare(self, node: nodes.Compare) -> str:
        parts = [self.expr(node.expr)]
        for operand in node.ops:
            parts += [_COMPARE[operand.op], self.expr(operand.expr)]
        return f"({' '.join(parts)})"

    def expr_And(self, node: nodes.And) -> str:
        return f"({self.expr(node.left)} and {self.expr(node.right)})"

    def expr_Or(self, node: nodes.Or) -> str:
        return f"({self.expr(node.left)} or {self.expr(node.right)})"

    def expr_CondExpr(self, node: nodes.CondExpr) -> str:
        if node.expr2 is None:
            raise Unsupported("an inline if without else")
        return f"({self.expr(node.expr1)} if {self.expr(node.test)} else {self.expr(node.expr2)})"

    def expr_Concat(self, node: nodes.Concat) -> str:
        return f"_join(({''.join(self.expr(item) + ', ' for item in node.nodes)}))"

    def expr_List(self, node: nodes.List) -> str:
        return f"[{', '.join(self.expr(item) for item in node.items)}]"

    def expr_Tuple(self, node: nodes.Tuple) -> str:
        return f"({''.join(self.expr(item) + ', ' for item in node.items)})"

    def expr_Dict(self, node: nodes.Dict) -> str:
        return "{" + ", ".join(f"{self.expr(p.key)}: {self.expr(p.value)}" for p in node.items) + "}"


def compile_sentence(env: SandboxedEnvironment, source: str, helpers: frozenset[str]) -> Sentence:
    """``source`` (a template ``env`` compiles) as one function ``(e, actor, viewer, speaker) -> str``
    printing what Jinja prints, the speaker's methods standing for ``helpers``; raises
    :class:`Unsupported` when the template uses something this module does not turn into Python."""
    tree = env.parse(source)
    compiler = _Compiler(env, helpers, tree)
    code = compiler.source(tree)
    namespace = {**_reads(env), **_calls(env), **compiler.constants, **compiler.callables}
    exec(compile(code, f"<sentence {source[:40]!r}>", "exec"), namespace)  # our own generated code
    function: Sentence = namespace["sentence"]
    return function
