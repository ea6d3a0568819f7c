"""The C++ toolchain for Windows x86-64: Debian's MinGW-w64 cross compiler.

`x86_64-w64-mingw32-gcc-posix` compiles (the `-posix` variant: C++ threads
over winpthreads), `x86_64-w64-mingw32-g++-posix` links so the C++ runtime
comes last on the command line, and every executable is linked `-static`:
a test `.exe` needs no MinGW DLLs next to it to run under Wine or on
Windows. The toolchain declares no dynamic linker, so Bazel links every
library statically. Bazel's legacy features supply the rest (include paths,
defines, dependency files, archiving).

Compilation modes: `fastbuild` (the default) is `-O1` without debug
information, `opt` is `-O2 -DNDEBUG`, `dbg` is `-O0 -g`. The Windows test
pass (`--config=mingw_test`) compiles everything but zstd at `-O0`, which
compiles fastest; zstd keeps `-O1`, which its level-19 compression in the
codec tests needs.
"""

load("@bazel_tools//tools/build_defs/cc:action_names.bzl", "ACTION_NAMES")
load(
    "@bazel_tools//tools/cpp:cc_toolchain_config_lib.bzl",
    "action_config",
    "artifact_name_pattern",
    "feature",
    "flag_group",
    "flag_set",
    "tool",
    "tool_path",
    "with_feature_set",
)

_PREFIX = "/usr/bin/x86_64-w64-mingw32-"

_COMPILE_ACTIONS = [
    ACTION_NAMES.c_compile,
    ACTION_NAMES.cpp_compile,
    ACTION_NAMES.cpp_header_parsing,
    ACTION_NAMES.cpp_module_compile,
    ACTION_NAMES.preprocess_assemble,
    ACTION_NAMES.assemble,
]

_LINK_ACTIONS = [
    ACTION_NAMES.cpp_link_executable,
    ACTION_NAMES.cpp_link_dynamic_library,
    ACTION_NAMES.cpp_link_nodeps_dynamic_library,
]

def _flags(actions, flags, features = None):
    return flag_set(
        actions = actions,
        flag_groups = [flag_group(flags = flags)],
        with_features = [with_feature_set(features = features)] if features else [],
    )

def _impl(ctx):
    tool_paths = [
        tool_path(name = "gcc", path = _PREFIX + "gcc-posix"),
        tool_path(name = "cpp", path = _PREFIX + "cpp-posix"),
        tool_path(name = "ar", path = _PREFIX + "ar"),
        tool_path(name = "ld", path = _PREFIX + "ld"),
        tool_path(name = "nm", path = _PREFIX + "nm"),
        tool_path(name = "objcopy", path = _PREFIX + "objcopy"),
        tool_path(name = "objdump", path = _PREFIX + "objdump"),
        tool_path(name = "strip", path = _PREFIX + "strip"),
        tool_path(name = "gcov", path = _PREFIX + "gcov-posix"),
    ]

    # Linking through the C++ driver puts libstdc++ after every object.
    action_configs = [
        action_config(
            action_name = name,
            enabled = True,
            tools = [tool(path = _PREFIX + "g++-posix")],
        )
        for name in _LINK_ACTIONS
    ]

    features = [
        feature(name = "dbg"),
        feature(name = "opt"),
        feature(name = "fastbuild"),
        feature(
            name = "default_compile_flags",
            enabled = True,
            flag_sets = [
                # Bazel checks every header against the declared inputs by
                # the path the dependency file names; GCC would otherwise
                # resolve the symlinks of system headers (the repositories
                # link into /usr and the cache) to their targets.
                _flags(_COMPILE_ACTIONS, ["-pipe", "-fno-canonical-system-headers"]),
                _flags(_COMPILE_ACTIONS, ["-O1", "-g0"], ["fastbuild"]),
                _flags(_COMPILE_ACTIONS, ["-O2", "-DNDEBUG", "-g0"], ["opt"]),
                _flags(_COMPILE_ACTIONS, ["-O0", "-g"], ["dbg"]),
            ],
        ),
        feature(
            name = "default_link_flags",
            enabled = True,
            flag_sets = [
                _flags(_LINK_ACTIONS, ["-static", "-pthread"]),
                _flags(_LINK_ACTIONS, ["-s"], ["fastbuild"]),
                _flags(_LINK_ACTIONS, ["-s"], ["opt"]),
            ],
        ),
    ]

    return cc_common.create_cc_toolchain_config_info(
        ctx = ctx,
        features = features,
        action_configs = action_configs,
        artifact_name_patterns = [
            artifact_name_pattern(
                category_name = "executable",
                prefix = "",
                extension = ".exe",
            ),
        ],
        cxx_builtin_include_directories = [
            "/usr/lib/gcc/x86_64-w64-mingw32",
            "/usr/x86_64-w64-mingw32/include",
            "/usr/share/mingw-w64/include",
        ],
        toolchain_identifier = "mingw-w64-x86_64-posix",
        host_system_name = "x86_64-linux-gnu",
        target_system_name = "x86_64-w64-mingw32",
        target_cpu = "x64_windows",
        target_libc = "mingw",
        compiler = "mingw-gcc",
        abi_version = "local",
        abi_libc_version = "local",
        tool_paths = tool_paths,
    )

mingw_cc_toolchain_config = rule(
    implementation = _impl,
    attrs = {},
    provides = [CcToolchainConfigInfo],
)
