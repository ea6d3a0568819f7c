// Typemaps that keep the boundary safe whatever a caller passes, included by
// `loaderx.i` before the other typemaps.
//
//   SWIGTYPE *self   every method of every class: a null object (Java: a
//                    proxy after `delete()`; Python: None passed as self to
//                    the raw wrapper) is IllegalStateException / TypeError,
//                    never a call through a null pointer.
//   MutableBuffer    Python: a writable, C-contiguous buffer (a numpy
//                    array) filled in place.
//   ConstBuffer      Python: a C-contiguous buffer (bytes, a numpy array)
//                    read in place.
//
// Python's limited API (the extension is abi3, see swig/BUILD.bazel) has no
// unchecked list and tuple macros, and without a GIL a list another thread
// changes may not be read in place: a sequence that arrives from Python is
// read through `SequenceSnapshot`, a tuple of its items taken at once, which
// nothing else can change, with the limited API's PyTuple_Size/GetItem.
//
// Buffers are held by `PythonBufferView`, a wrapper-local that starts empty
// and releases only what it acquired: SWIG declares every argument's locals
// at the top of the wrapper and, when an earlier argument fails to convert,
// jumps to the cleanup of all of them, so a bare `Py_buffer` would be
// released uninitialised.

#ifdef SWIGPYTHON
%{
#include <string>

namespace {

// A new reference, released when it goes out of scope.
class OwnedRef {
 public:
  explicit OwnedRef(PyObject* object) : object_(object) {}
  OwnedRef(const OwnedRef&) = delete;
  OwnedRef& operator=(const OwnedRef&) = delete;
  ~OwnedRef() { Py_XDECREF(object_); }
  PyObject* get() const { return object_; }

 private:
  PyObject* object_;
};

// A new tuple of `object`'s items (any iterable), or null with TypeError
// `message` pending (another error, as from a failing iterator, is kept).
// Like PySequence_Fast, but always a private copy.
PyObject* SequenceSnapshot(PyObject* object, const char* message) {
  PyObject* tuple = PySequence_Tuple(object);
  if (tuple == nullptr && PyErr_ExceptionMatches(PyExc_TypeError)) {
    PyErr_Clear();
    PyErr_SetString(PyExc_TypeError, message);
  }
  return tuple;
}

// The name of `object`'s type as Python prints it ("int",
// "numpy.ndarray"), for error messages.
std::string TypeNameOf(PyObject* object) {
  PyObject* type = reinterpret_cast<PyObject*>(Py_TYPE(object));
  OwnedRef qualname(PyObject_GetAttrString(type, "__qualname__"));
  OwnedRef module(PyObject_GetAttrString(type, "__module__"));
  PyErr_Clear();  // A type without either still gets a name.
  std::string name;
  const char* text = nullptr;
  if (module.get() != nullptr && PyUnicode_Check(module.get()) &&
      (text = PyUnicode_AsUTF8AndSize(module.get(), nullptr)) != nullptr &&
      std::string(text) != "builtins") {
    name = std::string(text) + ".";
  }
  if (qualname.get() != nullptr && PyUnicode_Check(qualname.get()) &&
      (text = PyUnicode_AsUTF8AndSize(qualname.get(), nullptr)) != nullptr) {
    name += text;
  } else {
    name += "object";
  }
  PyErr_Clear();
  return name;
}

// One Py_buffer, released at the end of the wrapper if it was acquired.
class PythonBufferView {
 public:
  PythonBufferView() = default;
  PythonBufferView(const PythonBufferView&) = delete;
  PythonBufferView& operator=(const PythonBufferView&) = delete;
  ~PythonBufferView() {
    if (held_) PyBuffer_Release(&view_);
  }

  // Acquires `object`'s buffer with `flags`; false with the error pending.
  bool Acquire(PyObject* object, int flags) {
    if (held_) {
      PyBuffer_Release(&view_);
      held_ = false;
    }
    if (PyObject_GetBuffer(object, &view_, flags) != 0) return false;
    held_ = true;
    return true;
  }

  const Py_buffer& view() const { return view_; }

 private:
  Py_buffer view_{};
  bool held_ = false;
};

}  // namespace
%}

%typemap(check) SWIGTYPE *self {
  if ($1 == nullptr) {
    SWIG_exception_fail(SWIG_TypeError,
                        "in method '$symname': the object is null");
  }
}

%typemap(in) loaderx::binding::MutableBuffer (PythonBufferView scoped) {
  if (!scoped.Acquire($input, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS)) SWIG_fail;
  $1.data = scoped.view().buf;
  $1.size = static_cast<size_t>(scoped.view().len);
}

%typemap(in) loaderx::binding::ConstBuffer (PythonBufferView scoped) {
  if (!scoped.Acquire($input, PyBUF_C_CONTIGUOUS)) SWIG_fail;
  $1.data = scoped.view().buf;
  $1.size = static_cast<size_t>(scoped.view().len);
}
#endif  // SWIGPYTHON

#ifdef SWIGJAVA
%typemap(check) SWIGTYPE *self {
  if ($1 == nullptr) {
    SWIG_JavaThrowException(
        jenv, SWIG_JavaIllegalStateException,
        "$symname: the object was deleted (delete() was called)");
    return $null;
  }
}
#endif  // SWIGJAVA
