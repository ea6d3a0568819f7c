"""`loaderx_installer`: installs a C++ library for builds without Bazel.

`bazel run -c opt //:install -- PREFIX` lays out

    PREFIX/include/loaderx/...              the public headers and the SPI
    PREFIX/lib/libloaderx.a                 the engine and every plugin
    PREFIX/lib/pkgconfig/loaderx.pc
    PREFIX/lib/cmake/loaderx/loaderxConfig.cmake (+ ConfigVersion)
    PREFIX/bin/loaderx                      the command-line tool

The archive is every static library of `deps` merged into one. The plugins
register themselves from static initialisers (`alwayslink = 1` in Bazel),
which a linker drops from an ordinary archive because nothing refers to
them, so both package files link it whole (`--whole-archive`, CMake's
`$<LINK_LIBRARY:WHOLE_ARCHIVE>`) instead of making users call a
registration function the Bazel build does not need.

The system libraries in the package files are derived from the link flags
of `deps` (`-labsl_status` is pkg-config's `absl_status` and CMake's
`absl::status`), so they cannot drift from what the Bazel build links; a
flag with no known equivalent fails the build.
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")
load("//bazel:version.bzl", "LOADERX_VERSION")

# Non-Abseil link flags: (pkg-config module or None, extra `Libs`, CMake target).
_SYSTEM_LINK_FLAGS = {
    "-lzstd": ("libzstd", "", "zstd::libzstd_shared"),
    # Debian's libxxhash-dev has a pkg-config module but no CMake package:
    # CMake links the library by name.
    "-lxxhash": ("libxxhash", "", "xxhash"),
    "-pthread": (None, "-pthread", "Threads::Threads"),
}

def _package_dependencies(link_flags):
    """Maps link flags to pkg-config `Requires`, `Libs` and CMake targets."""
    requires, libs, targets = [], [], []
    for flag in link_flags:
        if flag.startswith("-labsl_"):
            requires.append(flag[len("-l"):])
            targets.append("absl::" + flag[len("-labsl_"):])
        elif flag in _SYSTEM_LINK_FLAGS:
            module, lib, target = _SYSTEM_LINK_FLAGS[flag]
            if module:
                requires.append(module)
            if lib:
                libs.append(lib)
            targets.append(target)
        else:
            fail("no pkg-config/CMake equivalent of link flag %r: add one to _SYSTEM_LINK_FLAGS in bazel/install/install.bzl" % flag)
    return struct(requires = requires, libs = libs, cmake_targets = targets)

def _unique(items):
    seen = {}
    for item in items:
        seen[item] = True
    return seen.keys()

def _link_inputs(cc_info, workspace_name):
    """This repository's static libraries (PIC where built) and the link flags."""
    archives, flags = [], []
    for linker_input in cc_info.linking_context.linker_inputs.to_list():
        flags.extend(linker_input.user_link_flags)
        for library in linker_input.libraries:
            archive = library.pic_static_library or library.static_library
            if not archive:
                continue
            if archive.owner.workspace_name != workspace_name:
                fail("%s is not part of loaderx and cannot go into libloaderx.a" % archive.owner)
            archives.append(archive)
    return _unique(archives), _unique(flags)

def _merge_archives(ctx, archives):
    """One `ar` archive holding every object of `archives` (an MRI script)."""
    cc_toolchain = find_cpp_toolchain(ctx)
    output = ctx.actions.declare_file(ctx.label.name + "/libloaderx.a")
    script = ctx.actions.declare_file(ctx.label.name + "/libloaderx.mri")
    ctx.actions.write(script, "\n".join(
        ["CREATE " + output.path] +
        ["ADDLIB " + archive.path for archive in archives] +
        ["SAVE", "END", ""],
    ))
    ctx.actions.run_shell(
        inputs = depset([script] + archives, transitive = [cc_toolchain.all_files]),
        outputs = [output],
        command = '"$1" -M < "$2"',
        arguments = [cc_toolchain.ar_executable, script.path],
        mnemonic = "LoaderxArchive",
        progress_message = "Merging %d archives into libloaderx.a" % len(archives),
    )
    return output

def _expand(ctx, template, name, substitutions):
    output = ctx.actions.declare_file(ctx.label.name + "/" + name)
    ctx.actions.expand_template(
        template = template,
        output = output,
        substitutions = substitutions,
    )
    return output

def _public_headers(cc_info, workspace_name):
    """(header, path under PREFIX) for every header of the //include package."""
    headers = []
    for header in cc_info.compilation_context.headers.to_list():
        owner = header.owner
        if header.is_source and owner.workspace_name == workspace_name and owner.package == "include":
            headers.append((header, "include/" + owner.name))
    return headers

def _loaderx_installer_impl(ctx):
    workspace_name = ctx.label.workspace_name
    cc_info = cc_common.merge_cc_infos(cc_infos = [dep[CcInfo] for dep in ctx.attr.deps])
    archives, link_flags = _link_inputs(cc_info, workspace_name)
    dependencies = _package_dependencies(link_flags)

    archive = _merge_archives(ctx, archives)
    substitutions = {
        "%{version}": LOADERX_VERSION,
        "%{pc_requires}": ", ".join(_unique(dependencies.requires)),
        "%{pc_libs}": " ".join(_unique(dependencies.libs)),
        "%{cmake_link_libraries}": ";".join(_unique(dependencies.cmake_targets)),
    }
    files = [(archive, "lib/libloaderx.a")] + _public_headers(cc_info, workspace_name) + [
        (_expand(ctx, ctx.file.pc_template, "loaderx.pc", substitutions), "lib/pkgconfig/loaderx.pc"),
        (_expand(ctx, ctx.file.cmake_config_template, "loaderxConfig.cmake", substitutions), "lib/cmake/loaderx/loaderxConfig.cmake"),
        (_expand(ctx, ctx.file.cmake_version_template, "loaderxConfigVersion.cmake", substitutions), "lib/cmake/loaderx/loaderxConfigVersion.cmake"),
    ]

    programs = [(program, "bin/" + program.basename) for program in ctx.files.programs]

    # The installer copies each file from the runfiles to its place.
    installer = ctx.actions.declare_file(ctx.label.name + "/install.sh")
    ctx.actions.expand_template(
        template = ctx.file.installer_template,
        output = installer,
        is_executable = True,
        substitutions = {
            "%{files}": "\n".join(["%s %s" % (file.short_path, path) for file, path in files]),
            "%{programs}": "\n".join(["%s %s" % (file.short_path, path) for file, path in programs]),
        },
    )
    runfiles = [file for file, _ in files + programs]
    return [DefaultInfo(
        executable = installer,
        files = depset(runfiles),
        runfiles = ctx.runfiles(files = runfiles),
    )]

loaderx_installer = rule(
    implementation = _loaderx_installer_impl,
    executable = True,
    attrs = {
        "deps": attr.label_list(providers = [CcInfo], doc = "What libloaderx.a holds."),
        "pc_template": attr.label(allow_single_file = True, mandatory = True),
        "cmake_config_template": attr.label(allow_single_file = True, mandatory = True),
        "cmake_version_template": attr.label(allow_single_file = True, mandatory = True),
        "installer_template": attr.label(allow_single_file = True, mandatory = True),
        "programs": attr.label_list(cfg = "target", allow_files = True, doc = "Executables installed in bin/."),
        "_cc_toolchain": attr.label(default = "@bazel_tools//tools/cpp:current_cc_toolchain"),
    },
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
    incompatible_use_toolchain_transition = True,
)
