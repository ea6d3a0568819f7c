// The SWIG interface for loaderx's Python and Java bindings. It wraps the
// binding surface in `binding.h`, `store_binding.h` and `loader_binding.h`;
// the idiomatic layers on top live in `python/loaderx/` and
// `java/org/loaderx/`. Everything Java-specific is in `java.i`.
//
// Errors: every call runs inside the handler below, which hands a
// `BindingError`'s status code, store error code and message to the one
// table each language keeps: Python's `loaderx.errors.from_native` (the
// reference's `ZrecordError` codes, each also the idiomatic exception:
// IndexError, BlockingIOError, FileNotFoundError, ValueError, ...) and
// Java's `org.loaderx.Errors.of`. std::bad_alloc is the reference's -1.
// `CallbackRaised` returns with the caller's callback's own exception,
// already pending.

%module loaderx_native

%{
#include <limits>

#include "absl/status/status.h"
#include "swig/binding.h"
#include "swig/loader_binding.h"
#include "swig/set_binding.h"
#include "swig/store_binding.h"
%}

%include <stdint.i>
%include <std_string.i>
%include <std_vector.i>

%template(StringVector) std::vector<std::string>;

%include "swig/boundary_typemaps.i"

// ---------------------------------------------------------------------------
// Errors.

#ifdef SWIGPYTHON
%{
namespace {

// Raises what `loaderx.errors.from_native` makes of the error.
void RaisePythonError(int status_code, int error_code, const char* message) {
  PyObject* errors = PyImport_ImportModule("loaderx.errors");
  if (errors == nullptr) return;  // The ImportError is pending.
  PyObject* exception = PyObject_CallMethod(errors, "from_native", "iis",
                                            status_code, error_code, message);
  Py_DECREF(errors);
  if (exception == nullptr) return;
  PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exception)), exception);
  Py_DECREF(exception);
}

}  // namespace
%}

%exception {
  try {
    $action
  } catch (const loaderx::binding::BindingError& error) {
    RaisePythonError(error.status_code(), error.error_code(), error.what());
    SWIG_fail;
  } catch (const loaderx::binding::CallbackRaised&) {
    SWIG_fail;  // The callback's exception is pending.
  } catch (const std::bad_alloc& error) {
    RaisePythonError(static_cast<int>(absl::StatusCode::kResourceExhausted),
                     -1, error.what());
    SWIG_fail;
  } catch (const std::exception& error) {
    PyErr_SetString(PyExc_RuntimeError, error.what());
    SWIG_fail;
  }
}
#endif  // SWIGPYTHON

#ifdef SWIGJAVA
%include "swig/java.i"
#endif  // SWIGJAVA

// ---------------------------------------------------------------------------
// Python's typemaps (Java's are in `java.i`). Binary data: `Bytes` is
// `bytes`.

#ifdef SWIGPYTHON
%typemap(in) const loaderx::binding::Bytes& (std::string temp) {
  Py_buffer view;
  if (PyObject_GetBuffer($input, &view, PyBUF_CONTIG_RO) != 0) SWIG_fail;
  temp.assign(static_cast<const char*>(view.buf),
              static_cast<size_t>(view.len));
  PyBuffer_Release(&view);
  $1 = &temp;
}
%typemap(freearg) const loaderx::binding::Bytes& ""
%typemap(typecheck, precedence=SWIG_TYPECHECK_STRING)
    const loaderx::binding::Bytes& {
  $1 = PyObject_CheckBuffer($input) ? 1 : 0;
}
%typemap(out) loaderx::binding::Bytes {
  $result = PyBytes_FromStringAndSize($1.data(),
                                      static_cast<Py_ssize_t>($1.size()));
}

// MutableBuffer and ConstBuffer: `boundary_typemaps.i`.

// int64 arrays: a list of ints out, any sequence of ints in.
%typemap(out) loaderx::binding::Int64Array {
  const std::vector<int64_t>& values = $1;
  $result = PyList_New(static_cast<Py_ssize_t>(values.size()));
  for (size_t i = 0; i < values.size(); ++i) {
    PyList_SetItem($result, i, PyLong_FromLongLong(values[i]));
  }
}
%typemap(in) const loaderx::binding::Int64Array& (std::vector<int64_t> temp) {
  PyObject* sequence = SequenceSnapshot($input, "expected a sequence of ints");
  if (sequence == nullptr) SWIG_fail;
  const Py_ssize_t n = PyTuple_Size(sequence);
  for (Py_ssize_t i = 0; i < n; ++i) {
    const long long value =
        PyLong_AsLongLong(PyTuple_GetItem(sequence, i));
    if (value == -1 && PyErr_Occurred()) {
      Py_DECREF(sequence);
      SWIG_fail;
    }
    temp.push_back(value);
  }
  Py_DECREF(sequence);
  $1 = &temp;
}
%typemap(freearg) const loaderx::binding::Int64Array& ""
%typemap(typecheck, precedence=SWIG_TYPECHECK_INT64_ARRAY)
    const loaderx::binding::Int64Array& {
  $1 = PySequence_Check($input) ? 1 : 0;
}

#endif  // SWIGPYTHON

// ---------------------------------------------------------------------------
// The wrapped surface.

%newobject loaderx::binding::Filesystem::lock;
%ignore loaderx::binding::BindingError;
%ignore loaderx::binding::MutableBuffer;
%ignore loaderx::binding::ConstBuffer;
%ignore loaderx::binding::OutputBuffer;
%ignore loaderx::binding::ProgressSink;
%ignore loaderx::binding::CallbackRaised;
%ignore loaderx::binding::IndexBuffer;
%ignore loaderx::binding::BatchLayout;
%ignore loaderx::binding::Filesystem::vfs;
%ignore loaderx::binding::FileLock::FileLock;

%include "swig/store_typemaps.i"

%include "swig/binding.h"
%include "swig/store_binding.h"
%include "swig/set_binding.h"
%include "swig/cli.i"

// ---------------------------------------------------------------------------
// The loader: `LoaderHandle` over the engine's `DataLoader`, its batches
// viewed without copies (`loader_typemaps.i` says how in each language).

%include "swig/loader_typemaps.i"
%include "swig/loader_binding.h"

#ifdef SWIGPYTHON
%extend loaderx::binding::FileLock {
  %pythoncode %{
    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()
        return False
  %}
}
#endif  // SWIGPYTHON
