"""Wrappers around the C++ rules: compiler flags live here and nowhere else.

Every loaderx target is built as C++20 with `-Wall -Wextra -Werror` (`-Werror`
only in loaderx's own workspace). System headers are exempt from the warnings
because they come through the compiler's default (system) search path.
"""

LOADERX_COPTS = [
    "-std=c++20",
    "-Wall",
    "-Wextra",
    "-Werror",
    "-Wno-unused-parameter",
]

def _copts():
    # Warnings fail the build in loaderx's own workspace only: a workspace
    # that uses loaderx may build it with a compiler that warns about more.
    if native.repository_name() == "@":
        return LOADERX_COPTS
    return [copt for copt in LOADERX_COPTS if copt != "-Werror"]

def _merge(kwargs, key, values):
    kwargs[key] = values + kwargs.pop(key, [])

def loaderx_cc_library(name, **kwargs):
    _merge(kwargs, "copts", _copts())
    native.cc_library(name = name, **kwargs)

def loaderx_cc_binary(name, **kwargs):
    _merge(kwargs, "copts", _copts())
    native.cc_binary(name = name, **kwargs)

def loaderx_cc_test(name, deps = [], **kwargs):
    """A gtest binary: links gtest and gtest_main unless `main = False`."""
    _merge(kwargs, "copts", _copts())
    if kwargs.pop("main", True):
        deps = deps + ["@system_libs//:gtest_main"]
    kwargs.setdefault("size", "small")
    native.cc_test(
        name = name,
        deps = deps + ["@system_libs//:gtest"],
        **kwargs
    )

def loaderx_py_test(name, test_file, deps = [], python_package = "//swig:python", **kwargs):
    """A pytest file run against the real build (`tests/python/run_pytest.py`).

    `python_package` is the loaderx package it imports: `//swig:python`, or
    one built with more plugins (`//bazel:python_package.bzl`). Tagged
    `no_sanitizer`: the sanitizer configurations instrument C++ that an
    uninstrumented interpreter cannot load.
    """
    native.py_test(
        name = name,
        size = kwargs.pop("size", "small"),
        srcs = [test_file, "//tests/python:run_pytest.py"],
        args = ["$(location %s)" % test_file] + kwargs.pop("args", []),
        main = "//tests/python:run_pytest.py",
        python_version = "PY3",
        tags = ["no_sanitizer"] + kwargs.pop("tags", []),
        deps = deps + [python_package],
        **kwargs
    )

def loaderx_oracle_test(name, test_file, deps = [], **kwargs):
    """A pytest file that compares loaderx with the published loaderx 1.7.7.

    The reference runs in a cached venv outside the sandbox
    (`tests/oracle/reference.py`), so these tests run unsandboxed, may
    reach PyPI the first time, and get a generous timeout.
    """
    loaderx_py_test(
        name = name,
        test_file = test_file,
        deps = deps + ["//tests/oracle:reference"],
        size = kwargs.pop("size", "medium"),
        tags = ["no-sandbox", "requires-network", "oracle"] + kwargs.pop("tags", []),
        **kwargs
    )
