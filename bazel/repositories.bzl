"""Repository definitions for an offline build on Debian 12.

Bazel 4.2.3 (Debian's `bazel-bootstrap`) runs in WORKSPACE mode and would
download `rules_cc`, `rules_java`, `platforms`, `bazel_skylib` and
`remote_coverage_tools`. Each is declared here from a local path instead:
Debian's rule packages where they work with Bazel 4, small stand-ins under
`bazel/` where they do not. System libraries come from `/usr` through
`bazel/system_libs.BUILD`; `python_headers` asks the interpreter for its
include directory. The Windows build's dependencies are compiled from
Debian's sources (`bazel/mingw/repositories.bzl`).
"""

load("//bazel:python_headers.bzl", "python_headers_repository")
load("//bazel/mingw:repositories.bzl", "loaderx_mingw_repositories")

def loaderx_repositories():
    native.local_repository(
        name = "platforms",
        path = "/usr/share/bazel/tools/platforms",
    )
    native.local_repository(
        name = "bazel_skylib",
        path = "/usr/share/bazel/tools/skylib",
    )
    native.local_repository(
        name = "rules_java",
        path = "/usr/share/bazel/rules/java",
    )

    # Debian's bazel-rules-cc 0.0.4 needs a newer Bazel; this stand-in
    # re-exports the native rules.
    native.local_repository(
        name = "rules_cc",
        path = "bazel/rules_cc",
    )

    # Every test rule depends on these labels even without coverage.
    native.local_repository(
        name = "remote_coverage_tools",
        path = "bazel/remote_coverage_tools",
    )

    native.new_local_repository(
        name = "system_libs",
        path = "/usr",
        build_file = "//bazel:system_libs.BUILD",
    )

    python_headers_repository(name = "python_headers")
    loaderx_jdk_repository()

    # Windows only: the dependencies built from source with MinGW-w64.
    loaderx_mingw_repositories()

def loaderx_jdk_repository():
    """The JDK's JNI headers, for the Java binding's native library."""
    native.new_local_repository(
        name = "jdk_headers",
        path = "/usr/lib/jvm/default-java",
        build_file_content = """
package(default_visibility = ["//visibility:public"])

cc_library(
    name = "jni",
    hdrs = glob(["include/*.h", "include/linux/*.h"]),
    includes = ["include", "include/linux"],
)
""",
    )
