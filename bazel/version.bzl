"""The loaderx release version, in one place for every package that carries
one (the CMake package and pkg-config file; see `install/`)."""

LOADERX_VERSION = "0.1.0"
