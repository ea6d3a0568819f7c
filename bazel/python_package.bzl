"""The loaderx Python package with C++ plugins of one's own linked in.

loaderx's plugins are static: a VFS, codec or typed owner registers itself
from a static initialiser in its `alwayslink` target, and a binary gets the
plugins it links. The Python extension is such a binary: `//swig:python`
links loaderx's own plugins. `loaderx_python_package` builds the same
package with more plugins linked into its `_loaderx_native.so`:

    load("@loaderx//bazel:python_package.bzl", "loaderx_python_package")

    loaderx_python_package(
        name = "python_with_my_owner",
        plugins = [":my_owner"],       # alwayslink cc_libraries
    )

The result is a `py_library` whose `loaderx` package (the same Python
files, found under `<name>/loaderx`) finds the plugins by name like
loaderx's own. A program or test depends on it instead of `//swig:python`,
never on both: two `loaderx` packages cannot be imported into one process.
"""

load("@python_headers//:defs.bzl", "PYTHON_EXTENSION_COPTS")

def _package_sources_impl(ctx):
    outputs = []
    for source in ctx.files.srcs:
        output = ctx.actions.declare_file(
            "%s/%s" % (ctx.attr.directory, source.basename),
        )
        ctx.actions.symlink(output = output, target_file = source)
        outputs.append(output)
    return [DefaultInfo(files = depset(outputs))]

_package_sources = rule(
    implementation = _package_sources_impl,
    attrs = {
        "srcs": attr.label_list(allow_files = [".py", "py.typed"]),
        "directory": attr.string(mandatory = True),
    },
    doc = "The package's Python files (and py.typed), placed under `directory`.",
)

def loaderx_python_package(name, plugins, **kwargs):
    """The `loaderx` Python package with `plugins` linked into its extension.

    Args:
      name: the `py_library`; the package lives in `<name>/loaderx`.
      plugins: `alwayslink` cc_library targets that register plugins.
      **kwargs: passed to every rule (`testonly`, `visibility`, `tags`).
    """
    directory = name + "/loaderx"
    _package_sources(
        name = name + "_sources",
        srcs = [Label("//swig:python_sources")],
        directory = directory,
        **kwargs
    )
    _package_sources(
        name = name + "_typed_marker",
        srcs = [Label("//swig:python/loaderx/py.typed")],
        directory = directory,
        **kwargs
    )
    native.cc_binary(
        name = directory + "/_loaderx_native.so",
        srcs = [Label("//swig:python_wrap.cxx")],
        copts = ["-std=c++20", "-w"] + PYTHON_EXTENSION_COPTS,
        linkshared = 1,
        deps = [
            Label("//swig:binding"),
            Label("//tools/cli:cli"),  # `python -m loaderx`.
            Label("@python_headers"),
        ] + plugins,
        **kwargs
    )
    native.py_library(
        name = name,
        srcs = [":" + name + "_sources"],
        data = [
            ":" + directory + "/_loaderx_native.so",
            ":" + name + "_typed_marker",
        ],
        imports = [name],
        **kwargs
    )
