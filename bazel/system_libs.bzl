"""`system_library`: one dependency, for Linux and for Windows.

On Linux a library is Debian's binary package under /usr (its headers are
in the compiler's default search path, its `-l` flags in `linkopts`). On
Windows (`--config=mingw`) the same library is compiled from Debian's
sources by the MinGW-w64 toolchain (bazel/mingw/), so the target depends on
those repositories instead. Every BUILD file keeps naming
`@system_libs//:NAME` whichever platform it is built for.
"""

_WINDOWS = "@platforms//os:windows"

def system_library(
        name,
        hdrs = [],
        linkopts = [],
        windows_deps = [],
        windows_linkopts = [],
        linux_only = False,
        **kwargs):
    """A Debian library on Linux; its MinGW build from source on Windows.

    Args:
      name: the target name.
      hdrs: Linux headers, for dependency tracking.
      linkopts: the Linux link flags.
      windows_deps: the targets that provide the library on Windows.
      windows_linkopts: the Windows system libraries it needs that its own
        BUILD files name only for MSVC.
      linux_only: the library has no Windows build; targets that depend on
        it are skipped on Windows.
      **kwargs: passed to `cc_library` (e.g. shared `deps`, `defines`).
    """
    if linux_only:
        kwargs["target_compatible_with"] = select({
            _WINDOWS: ["@platforms//:incompatible"],
            "//conditions:default": [],
        })
    deps = kwargs.pop("deps", [])
    native.cc_library(
        name = name,
        hdrs = select({_WINDOWS: [], "//conditions:default": hdrs}),
        linkopts = select({
            _WINDOWS: windows_linkopts,
            "//conditions:default": linkopts,
        }),
        deps = select({
            _WINDOWS: windows_deps,
            "//conditions:default": deps,
        }),
        **kwargs
    )
