"""Builds loaderx.jar self-contained, as it is released: its JNI library
linked with zstd, Abseil and the C++ runtime inside (position-independent
static archives from tools/packaging/static_deps.sh, as the wheel's
extension is), so that it needs nothing of the machine but glibc and a JVM
(17 or newer). Checks the library (glibc only, nothing exported but the JNI
methods) and writes the jar and its pom:

    python3 tools/packaging/build_jar.py OUT_DIR
    # OUT_DIR/loaderx-VERSION.jar, OUT_DIR/loaderx-VERSION.pom

`bazel build //swig:loaderx.jar` alone links the same library against
Debian 12's shared libzstd and Abseil instead (for development and the
Bazel tests). Environment as loaderx_build's (LOADERX_CACHE,
LOADERX_BAZEL).
"""

import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import loaderx_build  # noqa: E402
from loaderx_build import elf  # noqa: E402

_LIBRARY = "//swig:libloaderx_jni.so"


def check(library):
    """The glibc version the library needs; raises elf.ExtensionError if it
    links anything but glibc or exports anything but JNI methods."""
    foreign = [lib for lib in elf.needed_libraries(library)
               if lib not in elf.GLIBC_LIBRARIES]
    if foreign:
        raise elf.ExtensionError(f"{library} links {', '.join(foreign)} dynamically")
    extra = sorted(name for name in elf.exported_symbols(library)
                   if not name.startswith("Java_"))
    if extra:
        raise elf.ExtensionError(
            f"{library} exports {', '.join(extra[:10])} besides its JNI "
            "methods (see swig/java_exports.lds)")
    versions = [elf._glibc_version(name)
                for names in elf.required_versions(library).values()
                for name in names]
    return max(v for v in versions if v is not None)


def main():
    if len(sys.argv) != 2:
        raise SystemExit(f"usage: {sys.argv[0]} OUT_DIR")
    out = sys.argv[1]
    bazel = loaderx_build._Bazel()
    loaderx_build.link_statically(bazel, _LIBRARY)
    bazel.run("build", "//swig:loaderx.jar", "//swig:loaderx_pom", _LIBRARY)
    bin_dir = bazel.run("info", "bazel-bin", capture=True).strip()
    glibc = check(os.path.join(bin_dir, "swig", "libloaderx_jni.so"))
    version = loaderx_build._version()
    os.makedirs(out, exist_ok=True)
    for built, name in (("loaderx.jar", f"loaderx-{version}.jar"),
                        ("loaderx.pom", f"loaderx-{version}.pom")):
        shutil.copyfile(os.path.join(bin_dir, "swig", built), os.path.join(out, name))
    print(f"build_jar: {out}/loaderx-{version}.jar (needs glibc "
          f"{glibc[0]}.{glibc[1]} and Java 17)", file=sys.stderr)


if __name__ == "__main__":
    main()
