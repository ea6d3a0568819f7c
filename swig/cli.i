// `python -m loaderx`: the `loaderx` command line (tools/cli/cli.h), the
// same C++ code as the binary. Python only; `loaderx/__main__.py` calls it.

#ifdef SWIGPYTHON
%{
#include <iostream>

#include "tools/cli/cli.h"

namespace loaderx::binding {

// Runs one command line (`arguments[0]` is the program's name for
// messages) on the process's stdout and stderr; returns its exit code.
int run_cli(const std::vector<std::string>& arguments) {
  return loaderx::cli::RunCli(arguments, std::cout, std::cerr);
}

}  // namespace loaderx::binding
%}

namespace loaderx::binding {
int run_cli(const std::vector<std::string>& arguments);
}
#endif  // SWIGPYTHON
