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
// Buffers are held by `PythonBufferView`, a wrapper-local that starts empty
// and releases only what it acquired: SWIG declares every argument's locals
// at the top of the wrapper and, when an earlier argument fails to convert,
// jumps to the cleanup of all of them, so a bare `Py_buffer` would be
// released uninitialised.

#ifdef SWIGPYTHON
%{
namespace {

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
