// The SWIG interface for loaderx's Python and Java bindings. It wraps the
// binding surface in `binding.h`, `store_binding.h` and `loader_binding.h`;
// the idiomatic layers on top live in `python/loaderx/` and
// `java/org/loaderx/`.
//
// Errors: every call runs inside the handler below, which hands a
// `BindingError`'s status code, store error code and message to the one
// table each language keeps: Python's `loaderx.errors.from_native` (the
// reference's `ZrecordError` codes, each also the idiomatic exception:
// IndexError, BlockingIOError, FileNotFoundError, ValueError, ...) and
// Java's `org.loaderx.Errors.of`. std::bad_alloc is the reference's -1.

%module loaderx_native

%{
#include <limits>

#include "absl/status/status.h"
#include "swig/binding.h"
#include "swig/loader_binding.h"
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
%{
namespace {

// Asks org.loaderx.Errors for the exception to throw, so the mapping lives
// in Java where its exception classes are.
void ThrowJavaException(JNIEnv* env,
                        const loaderx::binding::BindingError& error) {
  jclass errors = env->FindClass("org/loaderx/Errors");
  if (errors == nullptr) return;  // NoClassDefFoundError is pending.
  jmethodID of = env->GetStaticMethodID(
      errors, "of", "(IILjava/lang/String;)Ljava/lang/RuntimeException;");
  if (of == nullptr) return;
  jstring message = env->NewStringUTF(error.what());
  if (message == nullptr) return;
  jobject exception = env->CallStaticObjectMethod(
      errors, of, static_cast<jint>(error.status_code()),
      static_cast<jint>(error.error_code()), message);
  if (exception != nullptr) env->Throw(static_cast<jthrowable>(exception));
}

}  // namespace
%}

%exception {
  try {
    $action
  } catch (const loaderx::binding::BindingError& error) {
    ThrowJavaException(jenv, error);
    return $null;
  } catch (const std::exception& error) {
    SWIG_JavaThrowException(jenv, SWIG_JavaRuntimeException, error.what());
    return $null;
  }
}

%pragma(java) jniclasscode=%{
  static {
    System.loadLibrary("loaderx_jni");
  }
%}
#endif  // SWIGJAVA

// ---------------------------------------------------------------------------
// Binary data: `Bytes` is `bytes` in Python and `byte[]` in Java.

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
    PyList_SET_ITEM($result, i, PyLong_FromLongLong(values[i]));
  }
}
%typemap(in) const loaderx::binding::Int64Array& (std::vector<int64_t> temp) {
  PyObject* sequence = PySequence_Fast($input, "expected a sequence of ints");
  if (sequence == nullptr) SWIG_fail;
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(sequence);
  for (Py_ssize_t i = 0; i < n; ++i) {
    const long long value =
        PyLong_AsLongLong(PySequence_Fast_GET_ITEM(sequence, i));
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

// Python fills numpy arrays in place; the copying forms are Java's.
%ignore loaderx::binding::IndexSampler::next;
%ignore loaderx::binding::IndexSampler::batch;
#endif  // SWIGPYTHON

#ifdef SWIGJAVA
%typemap(jni) loaderx::binding::Bytes, const loaderx::binding::Bytes& "jbyteArray"
%typemap(jtype) loaderx::binding::Bytes, const loaderx::binding::Bytes& "byte[]"
%typemap(jstype) loaderx::binding::Bytes, const loaderx::binding::Bytes& "byte[]"
%typemap(javain) const loaderx::binding::Bytes& "$javainput"
%typemap(freearg) const loaderx::binding::Bytes& ""
%typemap(javaout) loaderx::binding::Bytes { return $jnicall; }
%typemap(in) const loaderx::binding::Bytes& (std::string temp) {
  if ($input == nullptr) {
    SWIG_JavaThrowException(jenv, SWIG_JavaNullPointerException,
                            "null byte[]");
    return $null;
  }
  const jsize length = jenv->GetArrayLength($input);
  temp.resize(static_cast<size_t>(length));
  jenv->GetByteArrayRegion($input, 0, length,
                           reinterpret_cast<jbyte*>(temp.data()));
  $1 = &temp;
}
%typemap(out) loaderx::binding::Bytes {
  if ($1.size() > static_cast<size_t>(std::numeric_limits<jsize>::max())) {
    SWIG_JavaThrowException(jenv, SWIG_JavaIllegalArgumentException,
                            "the result does not fit one byte[]");
    return $null;
  }
  $result = jenv->NewByteArray(static_cast<jsize>($1.size()));
  if ($result != nullptr) {
    jenv->SetByteArrayRegion($result, 0, static_cast<jsize>($1.size()),
                             reinterpret_cast<const jbyte*>($1.data()));
  }
}
%typemap(jni) loaderx::binding::Int64Array "jlongArray"
%typemap(jtype) loaderx::binding::Int64Array "long[]"
%typemap(jstype) loaderx::binding::Int64Array "long[]"
%typemap(javaout) loaderx::binding::Int64Array { return $jnicall; }
%typemap(out) loaderx::binding::Int64Array {
  $result = jenv->NewLongArray(static_cast<jsize>($1.size()));
  if ($result != nullptr) {
    jenv->SetLongArrayRegion($result, 0, static_cast<jsize>($1.size()),
                             reinterpret_cast<const jlong*>($1.data()));
  }
}

%typemap(jni) const loaderx::binding::Int64Array& "jlongArray"
%typemap(jtype) const loaderx::binding::Int64Array& "long[]"
%typemap(jstype) const loaderx::binding::Int64Array& "long[]"
%typemap(javain) const loaderx::binding::Int64Array& "$javainput"
%typemap(in) const loaderx::binding::Int64Array& (std::vector<int64_t> temp) {
  if ($input == nullptr) {
    SWIG_JavaThrowException(jenv, SWIG_JavaNullPointerException,
                            "null long[]");
    return $null;
  }
  const jsize length = jenv->GetArrayLength($input);
  temp.resize(static_cast<size_t>(length));
  jenv->GetLongArrayRegion($input, 0, length,
                           reinterpret_cast<jlong*>(temp.data()));
  $1 = &temp;
}
%typemap(freearg) const loaderx::binding::Int64Array& ""

// Unsigned 64-bit indices as `long[]`: the same bits, so values of 2^63 and
// above read as negative in Java (`Long.toUnsignedString` prints them).
%typemap(jni) loaderx::binding::Uint64Array "jlongArray"
%typemap(jtype) loaderx::binding::Uint64Array "long[]"
%typemap(jstype) loaderx::binding::Uint64Array "long[]"
%typemap(javaout) loaderx::binding::Uint64Array { return $jnicall; }
%typemap(out) loaderx::binding::Uint64Array {
  $result = jenv->NewLongArray(static_cast<jsize>($1.size()));
  if ($result != nullptr) {
    jenv->SetLongArrayRegion($result, 0, static_cast<jsize>($1.size()),
                             reinterpret_cast<const jlong*>($1.data()));
  }
}

// The sampler's modes, numbered as in Python's `Sampler.Mode` and loaderx
// 1.7.7. Every uint64_t parameter and result is a Java `long` with the same
// 64 bits (SWIG maps LP64's `unsigned long` to `long` by a plain cast).
%typemap(javacode) loaderx::binding::IndexSampler %{
  public static final int SEQUENTIAL = 0;
  public static final int IID = 1;
  public static final int CYCLIC = 2;
  /** Uniform with replacement, keyed by step (O(1) seek); not in 1.7.7. */
  public static final int IID_KEYED = 3;
%}

// Java gets new arrays; the in-place forms take Python buffers (the
// stores' are in `store_typemaps.i`).
%ignore loaderx::binding::IndexSampler::next_into;
%ignore loaderx::binding::IndexSampler::batch_into;
%ignore loaderx::binding::ConstBuffer;

%typemap(javainterfaces) loaderx::binding::FileLock "AutoCloseable"

// Java names are lowerCamelCase (`writeFile`, `registeredPlugins`).
%rename("%(lowercamelcase)s", %$isfunction) "";
#endif  // SWIGJAVA

// ---------------------------------------------------------------------------
// The wrapped surface.

%newobject loaderx::binding::Filesystem::lock;
%ignore loaderx::binding::BindingError;
%ignore loaderx::binding::MutableBuffer;
%ignore loaderx::binding::ConstBuffer;
%ignore loaderx::binding::Filesystem::vfs;
%ignore loaderx::binding::FileLock::FileLock;

%include "swig/store_typemaps.i"

%include "swig/binding.h"
%include "swig/store_binding.h"
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
