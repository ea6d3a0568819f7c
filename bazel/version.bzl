"""The loaderx release version, in one place for every package that carries
one (the CMake package and pkg-config file, see `install/`; the Python package's
`__version__`, which `tests/python/version_test.py` keeps equal to it)."""

LOADERX_VERSION = "1.8.0"
