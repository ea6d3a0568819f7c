#!/usr/bin/env python3
"""Fails, naming them, if any public name of the loaderx package lacks a docstring.

Public: every module of the package whose name does not start with `_`
(and the package itself), every name in a module's `__all__` (or, without
one, every name not starting with `_` that the module defines), and every
public method and property of a public class. Run against the built package
(its directory on PYTHONPATH); the docs test runs it.
"""

import importlib
import inspect
import pkgutil
import sys

import loaderx


def public_names(module):
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n, v in vars(module).items()
                 if not n.startswith("_") and
                 getattr(v, "__module__", None) == module.__name__]
    return names


def missing_in_class(qualname, cls):
    """(names checked, names without a docstring) among cls's public members."""
    missing, checked = [], 0
    for name, member in vars(cls).items():
        if name.startswith("_"):
            continue
        target = member.fget if isinstance(member, property) else member
        if isinstance(target, (staticmethod, classmethod)):
            target = target.__func__
        if not (inspect.isfunction(target) or isinstance(member, property)):
            continue
        checked += 1
        if not inspect.getdoc(target):
            missing.append(f"{qualname}.{name}")
    return checked, missing


def main():
    modules = [loaderx]
    for info in pkgutil.iter_modules(loaderx.__path__):
        if not info.name.startswith("_") and info.name != "loaderx_native":
            modules.append(importlib.import_module("loaderx." + info.name))
    missing, checked = [], 0
    for module in modules:
        checked += 1
        if not module.__doc__:
            missing.append(module.__name__)
        for name in public_names(module):
            value = getattr(module, name)
            if inspect.ismodule(value):
                continue
            qualname = f"{module.__name__}.{name}"
            checked += 1
            if not inspect.getdoc(value):
                missing.append(qualname)
            if inspect.isclass(value) and value.__module__ == module.__name__:
                members, lacking = missing_in_class(qualname, value)
                checked += members
                missing += lacking
    for name in missing:
        print(f"no docstring: {name}", file=sys.stderr)
    print(f"docstrings: {checked} public names checked, {len(missing)} missing")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
