"""A repository exposing the Python interpreter's C headers.

The interpreter is `LOADERX_PYTHON` if set, else Debian's `/usr/bin/python3`
(the one `python3-numpy` and `python3-dev` install into). The wheel build
sets it to the interpreter the wheel is for (tools/packaging/loaderx_build/).

`:python_headers` is all the SWIG extension needs: it reaches numpy arrays
through the buffer protocol, not numpy's C API. `:numpy_headers` is there for
code that does use numpy's C API; when the interpreter has no numpy (a
wheel's isolated build environment), building anything that depends on it
fails with a message saying so.
"""

_NUMPY_PRESENT = """
cc_library(
    name = "numpy_headers",
    hdrs = glob(["numpy_include/**/*.h"]),
    includes = ["numpy_include"],
    deps = [":python_headers"],
)
"""

_NUMPY_MISSING = """
genrule(
    name = "numpy_missing",
    outs = ["numpy_missing.h"],
    cmd = "echo 'python_headers: %s has no numpy, so numpy_headers is unavailable' >&2; exit 1",
)

cc_library(
    name = "numpy_headers",
    hdrs = [":numpy_missing.h"],
    deps = [":python_headers"],
)
"""

def _python_headers_impl(ctx):
    python = ctx.os.environ.get("LOADERX_PYTHON", "/usr/bin/python3")
    result = ctx.execute([
        python,
        "-c",
        """
import sysconfig
print(sysconfig.get_paths()['include'])
try:
    import numpy
    print(numpy.get_include())
except ImportError:
    pass
""",
    ])
    if result.return_code != 0:
        fail("python_headers: %s cannot report its include path: %s" % (python, result.stderr))
    paths = result.stdout.strip().split("\n")
    ctx.symlink(paths[0], "python_include")
    if len(paths) > 1:
        ctx.symlink(paths[1], "numpy_include")
        numpy = _NUMPY_PRESENT
    else:
        numpy = _NUMPY_MISSING % python
    ctx.file("BUILD", """
package(default_visibility = ["//visibility:public"])

cc_library(
    name = "python_headers",
    hdrs = glob(["python_include/**/*.h"]),
    includes = ["python_include"],
)
""" + numpy)

python_headers_repository = repository_rule(
    implementation = _python_headers_impl,
    environ = ["LOADERX_PYTHON"],
    local = True,
)
