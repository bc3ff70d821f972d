"""Kernel source from Python: one self-contained module text per kernel.

The Rust frontend compiles a module of Warp's language but cannot see the
Python process. This module captures a kernel's source (``inspect``, as
Warp does) and resolves what it refers to on the Python side: the warp
module under any alias, ``wp.func``s and ``wp.struct``s (from any module,
also through ``mod.name`` attributes), ``wp.constant``s, numbers, vectors
and type aliases from globals or closures. It returns one module text:
imports, constants, type aliases, structs, funcs, then the kernel.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import linecache
import textwrap
import types as pytypes

import numpy as _np

from . import types as _t


class CodegenError(RuntimeError):
    pass


# file -> (its lines, {first line of a def or class (its first decorator's
# line when decorated): its node}): each file is parsed once per process.
_FILE_DEFS = {}


def _defs_of(file, lines):
    got = _FILE_DEFS.get(file)
    if got is not None and got[0] is lines:
        return got[1]
    defs = {}
    # Statements only (a def is one): a walk of every expression node
    # would be most of the time.
    todo = list(ast.parse("".join(lines)).body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            first = node.decorator_list[0].lineno if node.decorator_list else node.lineno
            defs.setdefault(first, node)
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            sub = getattr(node, field, None)
            if isinstance(sub, list):
                todo.extend(sub)
    _FILE_DEFS[file] = (lines, defs)
    return defs


def remember_source(fn):
    """Keeps the lines of ``fn``'s file as they are now, when ``fn`` is
    defined (as Warp reads a kernel's source at definition): a kernel
    compiled later still has its source if the file changed or went away
    (a module imported from a temporary file). The lines are linecache's
    list, shared by every function of the file."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return
    try:
        lines = linecache.getlines(code.co_filename, fn.__globals__)
    except Exception:  # noqa: BLE001 (only a fallback for later)
        return
    if lines:
        try:
            fn.__weft_lines__ = lines
        except (AttributeError, TypeError):
            pass


def _source_lines(fn):
    """(the source lines of function ``fn``, its first line) from its
    file's syntax tree (parsed once per file): ``inspect.getsourcelines``
    tokenizes the file for each function, and its first use compiles
    ``tokenize``'s patterns (~3 ms of a first launch). None when the code
    object does not lead to a def in a readable file (then ``inspect``)."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return None
    kept = getattr(fn, "__weft_lines__", None)
    if kept is not None:
        file, lines = code.co_filename, kept
    else:
        file = inspect.getsourcefile(fn)
        lines = linecache.getlines(file, fn.__globals__) if file else None
    if not lines:
        return None
    try:
        node = _defs_of(file, lines).get(code.co_firstlineno)
    except (SyntaxError, ValueError):
        return None
    if node is None or node.name != code.co_name or node.end_lineno is None:
        return None
    return lines[code.co_firstlineno - 1 : node.end_lineno], code.co_firstlineno


def function_source(fn):
    """(dedented source without decorators, first line number, file)."""
    got = _source_lines(fn)
    if got is None:
        try:
            got = inspect.getsourcelines(fn)
        except (OSError, TypeError) as e:
            raise CodegenError(f"cannot read the source of {fn.__qualname__}: {e}") from e
    lines, first = got
    src = textwrap.dedent("".join(lines))
    file = getattr(getattr(fn, "__code__", None), "co_filename", None) if hasattr(fn, "__weft_lines__") else None
    tree = ast.parse(src)
    node = tree.body[0]
    start = (node.decorator_list[0].lineno if node.decorator_list else node.lineno) - 1
    body_start = node.lineno - 1
    src_lines = src.splitlines(keepends=True)
    # Keep the line count (blank lines for the decorators) so that
    # diagnostics' line numbers stay close to the file's.
    kept = ["\n"] * (body_start - start) + src_lines[body_start:]
    return "".join(kept), first, file or inspect.getsourcefile(fn) or "<unknown>"


def _literal(v):
    """Source text of a constant value, or None."""
    if isinstance(v, builtins.bool):
        return "True" if v else "False"
    if isinstance(v, (builtins.int, builtins.float)):
        return repr(v)
    if isinstance(v, _t._Scalar):
        return f"wp.{type(v)._wp_name}({v.value!r})"
    if isinstance(v, _t._Composite):
        # the type needs a name first (Builder.emit makes one)
        return None
    try:
        import numpy as np

        if isinstance(v, np.generic) and v.dtype.kind in "fiub":
            name = {"f": "float", "i": "int", "u": "uint", "b": "bool"}[v.dtype.kind]
            bits = "" if name == "bool" else str(v.dtype.itemsize * 8)
            return f"wp.{name}{bits}({v.item()!r})"
    except ImportError:
        pass
    return None


def _type_expr(t):
    """Source text of a Warp type (NumPy scalar types are Warp's)."""
    t = _t._PY.get(t, t)
    if isinstance(t, type) and issubclass(t, _np.generic):
        try:
            t = _t.dtype_from_numpy(t)
        except TypeError:
            return None
    if isinstance(t, type) and issubclass(t, _t._Scalar):
        return f"wp.{t._wp_name}"
    if isinstance(t, type) and issubclass(t, _t._Composite):
        st = f"wp.{t._wp_scalar_type_.__name__}"
        if t._kind == "vec":
            return f"wp.types.vector(length={t._shape_[0]}, dtype={st})"
        if t._kind == "mat":
            return f"wp.types.matrix(shape=({t._shape_[0]}, {t._shape_[1]}), dtype={st})"
        if t._kind == "quat":
            return f"wp.types.quaternion(dtype={st})"
        return f"wp.types.transformation(dtype={st})"
    return None


class _Builder:
    def __init__(self, warp_module):
        self.wp = warp_module
        self.header = ["import warp as wp\n"]
        self.consts = []
        self.structs = []
        self.funcs = []
        # (file, first line) of each func's source, by its text, to put it
        # at its own lines when it can (`text`).
        self.lines = {}
        self.names = {}  # emitted name -> value id
        self.done = set()  # ids of emitted funcs/structs
        self.emitted = {}  # id of an emitted func/struct -> its name in the module

    def unique(self, name, value):
        """The module-level name for ``value`` known as ``name``."""
        key = id(value)
        if self.names.get(name, key) == key:
            self.names[name] = key
            return name
        i = 1
        while self.names.get(f"{name}__{i}", key) != key:
            i += 1
        self.names[f"{name}__{i}"] = key
        return f"{name}__{i}"

    def resolve(self, fn, extra_scope=None, annotations=None):
        """The source of ``fn`` with its free names resolved (emitting what
        they refer to); ``annotations`` override some of its parameters'
        (a generic kernel's instance)."""
        src, _, _ = function_source(fn)
        scope = dict(fn.__globals__)
        if fn.__closure__:
            for name, cell in zip(fn.__code__.co_freevars, fn.__closure__):
                try:
                    scope[name] = cell.cell_contents
                except ValueError:
                    pass
        if extra_scope:
            scope.update(extra_scope)
        ann = getattr(fn, "__annotations__", None)
        if annotations:
            ann = {**(ann or {}), **annotations}
        return self.rewrite(src, scope, ann)

    def annotation(self, a, name="T"):
        """Source text of an evaluated annotation, or None."""
        import typing

        from .array import array

        if _t._is_any(a):  # typing.Any, or a TypeVar (wp.Float, ...): instantiated as Any
            return self.emit("Any", typing.Any)
        if isinstance(a, array):
            d = self.annotation(a.dtype)
            return None if d is None else f"wp.array(dtype={d}, ndim={a.ndim})"
        if isinstance(a, _t._GenericType):
            args = [self.annotation(x) if not isinstance(x, (int, tuple)) else repr(x) for x in a.args]
            if None in args:
                return None
            if a.kind == "vector":
                return f"wp.types.vector(length={args[0]}, dtype={args[1]})"
            if a.kind == "matrix":
                return f"wp.types.matrix(shape={args[0]}, dtype={args[1]})"
            return f"wp.types.{a.kind}(dtype={args[0]})"
        if a is builtins.float or a is builtins.int or a is builtins.bool:
            return a.__name__
        te = _type_expr(a)
        if te is not None:
            return te
        if getattr(a, "_weft_struct", False):
            return self.emit(a.__name__, a)
        return None

    def rewrite(self, src, scope, annotations=None):
        tree = ast.parse(src)
        node = tree.body[0]
        local = set()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for a in node.args.args + node.args.kwonlyargs:
                local.add(a.arg)
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                local.add(n.id)
        lines = src.splitlines(keepends=True)
        offsets = [0]
        for ln in lines:
            offsets.append(offsets[-1] + len(ln))
        edits = []

        def pos(lineno, col):
            # ast columns are UTF-8 byte offsets
            line = lines[lineno - 1]
            return offsets[lineno - 1] + len(line.encode()[:col].decode(errors="ignore"))

        def visit(n, in_annotation=False):
            # attribute chains rooted at a module other than warp: mod.f
            if isinstance(n, ast.Attribute):
                chain = []
                cur = n
                while isinstance(cur, ast.Attribute):
                    chain.append(cur.attr)
                    cur = cur.value
                if isinstance(cur, ast.Name) and cur.id not in local and cur.id in scope:
                    root = scope[cur.id]
                    if isinstance(root, pytypes.ModuleType) and root is not self.wp and not _is_warp_like(root):
                        v = root
                        for a in reversed(chain):
                            v = getattr(v, a, None)
                        name = self.emit(chain[0], v)
                        if name is not None:
                            edits.append((pos(n.lineno, n.col_offset), pos(n.end_lineno, n.end_col_offset), name))
                            return
                    elif root is self.wp or _is_warp_like(root):
                        if cur.id != "wp":
                            edits.append((pos(cur.lineno, cur.col_offset), pos(cur.end_lineno, cur.end_col_offset), "wp"))
                        return
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                if (n.id not in local or in_annotation) and n.id in scope:
                    v = scope[n.id]
                    if v is self.wp or _is_warp_like(v):
                        if n.id != "wp":
                            edits.append((pos(n.lineno, n.col_offset), pos(n.end_lineno, n.end_col_offset), "wp"))
                        return
                    if v is builtins.float or v is builtins.int or v is builtins.bool:
                        return
                    name = self.emit(n.id, v)
                    if name is not None and name != n.id:
                        edits.append((pos(n.lineno, n.col_offset), pos(n.end_lineno, n.end_col_offset), name))
                return
            for field, child in ast.iter_fields(n):
                ann = in_annotation or field in ("annotation", "returns")
                if isinstance(child, list):
                    for c in child:
                        if isinstance(c, ast.AST):
                            visit(c, ann)
                elif isinstance(child, ast.AST):
                    visit(child, ann)

        if annotations and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            # Evaluated annotations (what Python computed at `def` time, from
            # the enclosing scope) replace the annotation text.
            for a in node.args.args:
                if a.annotation is None or a.arg not in annotations:
                    continue
                text = self.annotation(annotations[a.arg])
                if text is not None:
                    edits.append((pos(a.annotation.lineno, a.annotation.col_offset), pos(a.annotation.end_lineno, a.annotation.end_col_offset), text))
                    a.annotation = None
        visit(node)
        text = src
        for start, end, rep in sorted(edits, reverse=True):
            text = text[:start] + rep + text[end:]
        return text

    def emit(self, name, v):
        """Emits the definition ``v`` refers to; its name in the module,
        or None when it is nothing the kernel language knows (left to the
        frontend)."""
        from .context import Function, Kernel, NativeFunction

        import typing

        if isinstance(v, NativeFunction):
            raise v._unsupported()

        if v is typing.Any:
            if "from typing import Any\n" not in self.header:
                self.header.append("from typing import Any\n")
            return "Any"
        lit = _literal(v)
        if lit is not None:
            n = self.unique(name, ("const", lit))
            if ("const", n) not in self.done:
                self.done.add(("const", n))
                self.consts.append(f"{n} = wp.constant({lit})\n")
            return n
        if isinstance(v, _t._Composite):
            tn = self._alias(f"_T_{type(v).__name__}", type(v), _type_expr(type(v)))
            lit = f"{tn}({', '.join(repr(x) for x in v._data)})"
            n = self.unique(name, ("const", lit))
            if ("const", n) not in self.done:
                self.done.add(("const", n))
                self.consts.append(f"{n} = wp.constant({lit})\n")
            return n
        te = _type_expr(v)
        if te is not None:
            return self._alias(name, v, te)
        if isinstance(v, Function):
            if id(v) in self.emitted:  # referred to under another name too
                return self.emitted[id(v)]
            n = self.unique(name, v)
            self.emitted[id(v)] = n
            if id(v) not in self.done:
                self.done.add(id(v))
                for ov in v.overloads():
                    body = self.resolve(ov.func)
                    body = _rename_def(body, n)
                    self.funcs.append("@wp.func\n" + body)
                    self._remember_lines(self.funcs[-1], ov.func)
                for i, (kind, fn) in enumerate(getattr(v, "_custom", ())):
                    body = _rename_def(self.resolve(fn), f"{n}__{kind}{i}")
                    self.funcs.append(f"@wp.func_{kind}({n})\n" + body)
                    self._remember_lines(self.funcs[-1], fn)
            return n
        if getattr(v, "_weft_struct", False):
            if id(v) in self.emitted:
                return self.emitted[id(v)]
            n = self.unique(name, v)
            self.emitted[id(v)] = n
            if id(v) not in self.done:
                self.done.add(id(v))
                body = self.resolve_class(v)
                body = _rename_def(body, n)
                self.structs.append("@wp.struct\n" + body)
            return n
        if isinstance(v, Kernel):
            return None
        return None

    def _alias(self, name, v, te):
        n = self.unique(name, v)
        if ("alias", n) not in self.done:
            self.done.add(("alias", n))
            self.consts.append(f"{n} = {te}\n")
        return n

    def resolve_class(self, cls):
        cls = getattr(cls, "_weft_source_cls", cls)
        src, _, _ = function_source(cls)
        import sys

        mod = sys.modules.get(cls.__module__)
        scope = dict(vars(mod)) if mod else {}
        scope.update(getattr(cls, "_weft_scope", {}))
        return self.rewrite_class(src, scope)

    def rewrite_class(self, src, scope):
        # A class body: resolve the names in its annotations.
        tree = ast.parse(src)
        cls = tree.body[0]
        lines = src.splitlines(keepends=True)
        out = src
        edits = []
        offsets = [0]
        for ln in lines:
            offsets.append(offsets[-1] + len(ln))
        for stmt in cls.body:
            if isinstance(stmt, ast.AnnAssign):
                ann_src = ast.get_source_segment(src, stmt.annotation)
                fake = f"def _f(x: {ann_src}):\n    pass\n"
                new = self.rewrite(fake, scope)
                new_ann = new[len("def _f(x: ") : new.index("):\n")]
                a = stmt.annotation
                start = offsets[a.lineno - 1] + a.col_offset
                end = offsets[a.end_lineno - 1] + a.end_col_offset
                edits.append((start, end, new_ann))
        for start, end, rep in sorted(edits, reverse=True):
            out = out[:start] + rep + out[end:]
        return out

    def _remember_lines(self, text, obj):
        try:
            _, first, file = function_source(obj)
        except CodegenError:
            return
        self.lines[text] = (file, first)

    def text(self, kernel_src, first_line=1, file=None):
        """The module: imports, the kernel, then the constants, structs and
        funcs it uses (the frontend resolves names module-wide). The kernel
        is moved down with blank lines so that its lines have the numbers
        they have in its file (``first_line`` is its decorator's), and the
        diagnostics point at the user's own lines; when the imports are
        longer than that, it follows them. The funcs of the kernel's
        ``file`` written above it there go at their own lines too, where
        they fit in order (a diagnostic in a func then names its line); the
        others follow the kernel. Only in a module without structs: a
        func's signature needs the structs it names written before it, and
        they stay after the kernel, in the order they depend on each
        other."""
        head = "".join(self.header)
        if not head.endswith("\n"):
            head += "\n"
        out = [head]
        line = head.count("\n") + 1  # the next line's number
        kernel_at = first_line - 1  # where the kernel's text starts
        placed = set()
        above = []
        for i, t in enumerate(self.funcs):
            f, first = self.lines.get(t, (None, 0))
            if not self.structs and file is not None and f == file and first - 1 < kernel_at:
                above.append((first - 1, i, t))
        for at, i, t in sorted(above):
            body = t if t.endswith("\n") else t + "\n"
            end = at + body.count("\n")
            if at >= line and end <= kernel_at:
                out.append("\n" * (at - line) + body)
                line = end
                placed.add(i)
        out.append("\n" * max(0, kernel_at - line))
        rest = [t for i, t in enumerate(self.funcs) if i not in placed]
        deps = "".join(self.consts) + "\n" + "\n".join(self.structs + rest)
        return "".join(out) + kernel_src + "\n\n" + deps


def _is_warp_like(v):
    return isinstance(v, pytypes.ModuleType) and getattr(v, "__name__", "").split(".")[0] in ("warp",) and hasattr(
        v, "_weft_compat"
    )


def _rename_def(src, name):
    tree = ast.parse(src)
    node = tree.body[0]
    if node.name == name:
        return src
    lines = src.splitlines(keepends=True)
    ln = lines[node.lineno - 1]
    kw = "class " if isinstance(node, ast.ClassDef) else "def "
    i = ln.index(kw + node.name) + len(kw)
    lines[node.lineno - 1] = ln[:i] + name + ln[i + len(node.name) :]
    return "".join(lines)


def kernel_module(kernel, warp_module):
    """The module text of ``kernel`` (a ``Kernel``) and its file name."""
    b = _Builder(warp_module)
    body = b.resolve(kernel.func, annotations=kernel._arg_types)
    body = _rename_def(body, kernel.key_name)
    options = ""
    if not kernel.enable_backward:
        options = "(enable_backward=False)"
    _, first, file = function_source(kernel.func)
    text = b.text(f"@wp.kernel{options}\n" + body, first, file)
    return text, file
