"""Reads the notebooks' cells (JSON on stdin) and prints, as JSON, the names
two stage files both define at top level, and the names a cell uses that no
cell before it (nor it) defines: the notebook's cell order is the contract
between the stage files, which all run in the kernel's one namespace.

Input: {"files": {name: source}, "notebooks": {name: [[cell label, source], ...]},
"provided": [names the kernel defines]}."""
import ast
import builtins
import json
import sys
import symtable


def top_level_definitions(source):
    """The functions and classes a file defines at top level (in an if or try there too)."""
    names, stack = set(), list(ast.parse(source).body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.If, ast.Try, ast.With)):
            stack.extend(node.body + getattr(node, "orelse", []) + getattr(node, "finalbody", []))
            stack.extend(n for h in getattr(node, "handlers", []) for n in h.body)
    return names


def defined_and_used(source, label):
    """The global names the cell binds, and those it reads: at top level, or in any of its
    functions, comprehensions and classes as globals."""
    table = symtable.symtable(source, label, "exec")
    defined, used = set(), set()
    for symbol in table.get_symbols():
        if symbol.is_assigned() or symbol.is_imported() or symbol.is_namespace():
            defined.add(symbol.get_name())
        elif symbol.is_referenced():
            used.add(symbol.get_name())
    stack = list(table.get_children())
    while stack:
        scope = stack.pop()
        stack.extend(scope.get_children())
        for symbol in scope.get_symbols():
            if not symbol.is_global():
                continue
            if symbol.is_declared_global() and symbol.is_assigned():
                defined.add(symbol.get_name())
            elif symbol.is_referenced():
                used.add(symbol.get_name())
    return defined, used


def main():
    given = json.load(sys.stdin)
    owners = {}
    for name, source in sorted((given["files"] or {}).items()):
        for defined in top_level_definitions(source):
            owners.setdefault(defined, []).append(name)
    duplicates = {name: files for name, files in sorted(owners.items()) if len(files) > 1}
    known = set(dir(builtins)) | set(given["provided"])
    undefined = []
    for notebook, cells in sorted((given["notebooks"] or {}).items()):
        defined = set(known)
        for label, source in cells:
            binds, reads = defined_and_used(source, label)
            defined |= binds
            for name in sorted(reads - defined):
                undefined.append({"notebook": notebook, "cell": label, "name": name})
    json.dump({"duplicates": duplicates, "undefined": undefined}, sys.stdout)


main()
