"""Repositories of the sources the Windows build compiles with MinGW-w64.

Debian ships no MinGW binaries of our dependencies, so the Windows build
compiles them from Debian's own sources:

  com_google_absl   Debian's abseil source (with Abseil's own BUILD files)
  mingw_zstd        Debian's libzstd source, built by zstd.BUILD
  mingw_googletest  /usr/src/googletest (Debian's `googletest`)
  mingw_msgpack     Debian's msgpack-c++ headers, alone on an include path

`tools/ci/install_windows_deps.sh` unpacks the first two into
`$LOADERX_CACHE/mingw/src/` (default `/var/tmp/loaderx-cache`); nothing is
downloaded at build time. Only Windows targets depend on these
repositories (through the `select()`s in bazel/system_libs.BUILD), so a
Linux build never fetches them and works without the cache. Like
`loaderx_repositories`, each is declared only if the workspace has no
repository of that name yet, and labels are `Label()`s, so a workspace that
uses loaderx as an external repository gets them too.
"""

load("@bazel_tools//tools/build_defs/repo:utils.bzl", "maybe")

_INSTALL_HINT = "run `bash tools/ci/install_deps.sh --windows` first"

def _cache_dir(ctx):
    root = ctx.os.environ.get("LOADERX_CACHE", "/var/tmp/loaderx-cache")
    return ctx.path(root + "/mingw")

def _link_children(ctx, source, skip):
    for child in source.readdir():
        if child.basename not in skip:
            ctx.symlink(child, child.basename)

def _mingw_source_impl(ctx):
    source = _cache_dir(ctx).get_child("src").get_child(ctx.attr.source)
    if not source.get_child(".loaderx-complete").exists:
        fail("%s: no unpacked %s source at %s; %s" %
             (ctx.name, ctx.attr.source, source, _INSTALL_HINT))
    overlay = ctx.attr.build_file
    _link_children(ctx, source, ["BUILD", "BUILD.bazel"] if overlay else [])
    if overlay:
        ctx.symlink(overlay, "BUILD.bazel")
    if not ctx.path("WORKSPACE").exists:
        ctx.file("WORKSPACE", "workspace(name = \"%s\")\n" % ctx.name)

# `local`: the source directory is outside Bazel's view, so the links are
# re-checked on every fetch (they are cheap to make).
mingw_source_repository = repository_rule(
    implementation = _mingw_source_impl,
    attrs = {
        "source": attr.string(mandatory = True),
        "build_file": attr.label(allow_single_file = True),
    },
    environ = ["LOADERX_CACHE"],
    local = True,
)

def _system_headers_impl(ctx):
    for path in ctx.attr.paths:
        target = ctx.path(path)
        if not target.exists:
            fail("%s: %s is missing; %s" % (ctx.name, path, _INSTALL_HINT))
        ctx.symlink(target, "include/" + target.basename)
    ctx.symlink(ctx.attr.build_file, "BUILD.bazel")
    ctx.file("WORKSPACE", "workspace(name = \"%s\")\n" % ctx.name)

# Header-only libraries from /usr/include, linked one by one into a
# directory of their own: /usr/include itself (glibc's headers) must stay
# off the MinGW compiler's search path.
system_headers_repository = repository_rule(
    implementation = _system_headers_impl,
    attrs = {
        "paths": attr.string_list(mandatory = True),
        "build_file": attr.label(allow_single_file = True, mandatory = True),
    },
    local = True,
)

def loaderx_mingw_repositories():
    maybe(
        mingw_source_repository,
        name = "com_google_absl",
        source = "abseil",
    )
    maybe(
        mingw_source_repository,
        name = "mingw_zstd",
        source = "zstd",
        build_file = Label("//bazel/mingw:zstd.BUILD"),
    )
    maybe(
        native.new_local_repository,
        name = "mingw_googletest",
        path = "/usr/src/googletest",
        build_file = str(Label("//bazel/mingw:googletest.BUILD")),
    )
    maybe(
        system_headers_repository,
        name = "mingw_msgpack",
        paths = ["/usr/include/msgpack.hpp", "/usr/include/msgpack"],
        build_file = Label("//bazel/mingw:msgpack.BUILD"),
    )
