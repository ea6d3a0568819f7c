"""Repository definitions for an offline build on Debian 12.

Bazel 4.2.3 (Debian's `bazel-bootstrap`) runs in WORKSPACE mode and would
download `rules_cc`, `rules_java`, `platforms`, `bazel_skylib` and
`remote_coverage_tools`. Each is declared here from a local path instead:
Debian's rule packages where they work with Bazel 4, small stand-ins under
`bazel/` where they do not. System libraries come from `/usr` through
`bazel/system_libs.BUILD`. The Windows build's dependencies are compiled from
Debian's sources (`bazel/mingw/repositories.bzl`).

These macros serve loaderx's own WORKSPACE and any workspace that uses
loaderx as an external repository, so every label here is a `Label()`,
which resolves against the repository holding this file, not the caller's
workspace. Each repository is declared only if the caller has not declared
one of that name already, so a consumer can override any of them by
declaring it first.
"""

load("@bazel_tools//tools/build_defs/repo:utils.bzl", "maybe")
load("//bazel:python_headers.bzl", "python_headers_repository")
load("//bazel/mingw:repositories.bzl", "loaderx_mingw_repositories")

def _stand_in_repository_impl(ctx):
    # A path in a `local_repository` resolves against the main workspace, so
    # a directory inside loaderx is found through a file in it instead.
    directory = ctx.path(ctx.attr.workspace_file).dirname
    for entry in directory.readdir():
        ctx.symlink(entry, entry.basename)

_stand_in_repository = repository_rule(
    implementation = _stand_in_repository_impl,
    attrs = {
        "workspace_file": attr.label(
            allow_single_file = True,
            doc = "The WORKSPACE file of the directory to expose.",
        ),
    },
    local = True,
    doc = "Exposes a directory of the loaderx repository as a repository.",
)

def loaderx_repositories():
    """Everything the C++ library needs: rule repositories, system libraries."""
    maybe(
        native.local_repository,
        name = "platforms",
        path = "/usr/share/bazel/tools/platforms",
    )
    maybe(
        native.local_repository,
        name = "bazel_skylib",
        path = "/usr/share/bazel/tools/skylib",
    )
    maybe(
        native.local_repository,
        name = "rules_java",
        path = "/usr/share/bazel/rules/java",
    )

    # Debian's bazel-rules-cc 0.0.4 needs a newer Bazel; this stand-in
    # re-exports the native rules.
    maybe(
        _stand_in_repository,
        name = "rules_cc",
        workspace_file = Label("//bazel/rules_cc:WORKSPACE"),
    )

    # Every test rule depends on these labels even without coverage.
    maybe(
        _stand_in_repository,
        name = "remote_coverage_tools",
        workspace_file = Label("//bazel/remote_coverage_tools:WORKSPACE"),
    )

    maybe(
        native.new_local_repository,
        name = "system_libs",
        path = "/usr",
        build_file = str(Label("//bazel:system_libs.BUILD")),
    )

    # Windows only (fetched by `--config=mingw` builds alone): the
    # dependencies compiled from Debian's sources with MinGW-w64.
    loaderx_mingw_repositories()

def loaderx_binding_repositories():
    """What the Python and Java bindings build against.

    Separate from `loaderx_repositories` so that a C++-only workspace needs
    neither a Python with numpy nor a JDK.
    """
    maybe(python_headers_repository, name = "python_headers")
    loaderx_jdk_repository()

def _jdk_repository_impl(ctx):
    # `JAVA_HOME` if set, else the JDK whose `javac` is on PATH (through
    # Debian's alternatives symlinks to the real directory).
    home = ctx.os.environ.get("JAVA_HOME", "")
    if not home:
        javac = ctx.which("javac")
        if javac == None:
            fail("jdk: no JAVA_HOME and no javac on PATH; install a JDK " +
                 "(tools/ci/install_deps.sh installs default-jdk-headless)")
        result = ctx.execute(["readlink", "-f", str(javac)])
        if result.return_code != 0:
            fail("jdk: cannot resolve %s: %s" % (javac, result.stderr))
        home = str(ctx.path(result.stdout.strip()).dirname.dirname)
    for required in ["bin/javac", "bin/jar", "bin/java", "include/jni.h"]:
        if not ctx.path(home + "/" + required).exists:
            fail("jdk: %s has no %s (a JRE, not a JDK?)" % (home, required))
    for entry in ["bin", "include"]:
        ctx.symlink(home + "/" + entry, entry)
    ctx.file("BUILD", """
package(default_visibility = ["//visibility:public"])

# The JDK at %s.
exports_files(["bin/javac", "bin/jar", "bin/java"])

cc_library(
    name = "jni",
    hdrs = glob(["include/*.h", "include/linux/*.h"]),
    includes = ["include", "include/linux"],
)
""" % home)

jdk_repository = repository_rule(
    implementation = _jdk_repository_impl,
    environ = ["JAVA_HOME", "PATH"],
    local = True,
    doc = "The JDK the Java binding is built with: `JAVA_HOME`, else the " +
          "one whose `javac` is on PATH. Its tools (`:bin/javac`, " +
          "`:bin/jar`, `:bin/java`) and JNI headers (`:jni`).",
)

def loaderx_jdk_repository():
    """The JDK for the Java binding: its tools and JNI headers (`@loaderx_jdk`)."""
    maybe(jdk_repository, name = "loaderx_jdk")
