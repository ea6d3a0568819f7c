"""A repository exposing the Python interpreter's C headers.

The interpreter is `LOADERX_PYTHON` if set, else Debian's `/usr/bin/python3`
(the one `python3-numpy` and `python3-dev` install into).
"""

def _python_headers_impl(ctx):
    python = ctx.os.environ.get("LOADERX_PYTHON", "/usr/bin/python3")
    result = ctx.execute([
        python,
        "-c",
        "import sysconfig, numpy; print(sysconfig.get_paths()['include']); print(numpy.get_include())",
    ])
    if result.return_code != 0:
        fail("python_headers: %s cannot report its include paths (needs numpy): %s" % (python, result.stderr))
    python_include, numpy_include = result.stdout.strip().split("\n")
    ctx.symlink(python_include, "python_include")
    ctx.symlink(numpy_include, "numpy_include")
    ctx.file("BUILD", """
package(default_visibility = ["//visibility:public"])

cc_library(
    name = "python_headers",
    hdrs = glob(["python_include/**/*.h"]),
    includes = ["python_include"],
)

cc_library(
    name = "numpy_headers",
    hdrs = glob(["numpy_include/**/*.h"]),
    includes = ["numpy_include"],
    deps = [":python_headers"],
)
""")

python_headers_repository = repository_rule(
    implementation = _python_headers_impl,
    environ = ["LOADERX_PYTHON"],
    local = True,
)
