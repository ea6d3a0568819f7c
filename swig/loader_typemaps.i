// Typemaps for the loader's binding surface (`loader_binding.h`), included
// by `loaderx.i`.
//
//   BatchMemory   Python: a `loaderx_native.BatchBuffer`, a buffer-protocol
//                 object over the bytes (read-only for indices) that holds
//                 its share of the batch until it is garbage: numpy arrays
//                 made on it (`np.ndarray(shape, dtype, buffer)`) have it as
//                 their `base`, so the batch stays out of the loader's ring
//                 exactly as long as any of them lives. Java: a direct
//                 `java.nio.ByteBuffer` over the bytes (read-only for
//                 indices; no share: the bytes stay allocated while the
//                 `LoaderBatch` is unreleased, and after that while a
//                 `BufferShare` of them lives, which Java's `Batch` keeps
//                 per buffer, see `loader_binding.h`).
//   Uint64Array   Python: a list of ints (Java's typemap is in `loaderx.i`).

%{
#include <memory>

#include "swig/loader_binding.h"
%}

#ifdef SWIGPYTHON
%{
namespace {

// The Python object behind a `BatchMemory`.
struct BatchBufferObject {
  PyObject_HEAD
  // Heap-allocated: a C++ object inside a C struct.
  std::shared_ptr<const void>* owner;
  char* data;
  Py_ssize_t size;
  bool writable;
};

int BatchBufferGetBuffer(PyObject* self, Py_buffer* view, int flags) {
  auto* buffer = reinterpret_cast<BatchBufferObject*>(self);
  return PyBuffer_FillInfo(view, self, buffer->data, buffer->size,
                           buffer->writable ? 0 : 1, flags);
}

void BatchBufferDealloc(PyObject* self) {
  auto* buffer = reinterpret_cast<BatchBufferObject*>(self);
  PyTypeObject* type = Py_TYPE(self);
  delete buffer->owner;  // The batch may go back to its ring here.
  buffer->owner = nullptr;
  auto free_object = reinterpret_cast<freefunc>(PyType_GetSlot(type, Py_tp_free));
  free_object(self);
  Py_DECREF(type);
}

PyObject* BatchBufferSize(PyObject* self, void*) {
  return PyLong_FromSsize_t(reinterpret_cast<BatchBufferObject*>(self)->size);
}

PyGetSetDef batch_buffer_getset[] = {
    {const_cast<char*>("nbytes"), BatchBufferSize, nullptr,
     const_cast<char*>("bytes in the buffer"), nullptr},
    {nullptr, nullptr, nullptr, nullptr, nullptr},
};

PyType_Slot batch_buffer_slots[] = {
    {Py_bf_getbuffer, reinterpret_cast<void*>(BatchBufferGetBuffer)},
    {Py_tp_dealloc, reinterpret_cast<void*>(BatchBufferDealloc)},
    {Py_tp_getset, batch_buffer_getset},
    {Py_tp_doc, const_cast<char*>(
        "Bytes of a loader batch; the batch stays out of the loader's ring "
        "while this object (or an array on it) lives.")},
    {0, nullptr},
};

PyType_Spec batch_buffer_spec = {
    "loaderx.loaderx_native.BatchBuffer", sizeof(BatchBufferObject), 0,
    Py_TPFLAGS_DEFAULT, batch_buffer_slots};

// The BatchBuffer type (created once, with the GIL held); null with an
// error pending if it cannot be made.
PyTypeObject* BatchBufferType() {
  static PyObject* type = PyType_FromSpec(&batch_buffer_spec);
  return reinterpret_cast<PyTypeObject*>(type);
}

// A new reference to a BatchBuffer over `memory`, or null with an error
// pending.
PyObject* BatchMemoryToPython(const loaderx::binding::BatchMemory& memory) {
  PyTypeObject* type = BatchBufferType();
  if (type == nullptr) return nullptr;
  auto* buffer = PyObject_New(BatchBufferObject, type);
  if (buffer == nullptr) return nullptr;
  buffer->owner = new std::shared_ptr<const void>(memory.owner);
  buffer->data = memory.data;
  buffer->size = static_cast<Py_ssize_t>(memory.size);
  buffer->writable = memory.writable;
  return reinterpret_cast<PyObject*>(buffer);
}

}  // namespace
%}

%typemap(out) loaderx::binding::BatchMemory {
  $result = BatchMemoryToPython($1);
  if ($result == nullptr) SWIG_fail;
}

%typemap(out) loaderx::binding::Uint64Array {
  const std::vector<uint64_t>& values = $1;
  $result = PyList_New(static_cast<Py_ssize_t>(values.size()));
  if ($result == nullptr) SWIG_fail;
  for (size_t i = 0; i < values.size(); ++i) {
    PyList_SetItem($result, i, PyLong_FromUnsignedLongLong(values[i]));
  }
}

%init %{
  if (PyObject* batch_buffer_type =
          reinterpret_cast<PyObject*>(BatchBufferType())) {
    Py_INCREF(batch_buffer_type);
    PyModule_AddObject(m, "BatchBuffer", batch_buffer_type);
  }
%}

%pythoncode %{
BatchBuffer = _loaderx_native.BatchBuffer
%}
#endif  // SWIGPYTHON

#ifdef SWIGJAVA
%typemap(jni) loaderx::binding::BatchMemory "jobject"
%typemap(jtype) loaderx::binding::BatchMemory "java.nio.ByteBuffer"
%typemap(jstype) loaderx::binding::BatchMemory "java.nio.ByteBuffer"
%typemap(javaout) loaderx::binding::BatchMemory { return $jnicall; }
%typemap(out) loaderx::binding::BatchMemory {
  const loaderx::binding::BatchMemory& memory = $1;
  $result = jenv->NewDirectByteBuffer(memory.data,
                                      static_cast<jlong>(memory.size));
  if ($result != nullptr && !memory.writable) {  // The indices.
    jclass buffer_class = jenv->GetObjectClass($result);
    jmethodID read_only = jenv->GetMethodID(buffer_class, "asReadOnlyBuffer",
                                            "()Ljava/nio/ByteBuffer;");
    $result = read_only == nullptr ? nullptr
                                   : jenv->CallObjectMethod($result, read_only);
  }
}
#endif  // SWIGJAVA

%newobject loaderx::binding::LoaderHandle::next;
%newobject loaderx::binding::LoaderBatch::buffer_share;
%ignore loaderx::binding::BufferShare::BufferShare;
#ifdef SWIGPYTHON
// Python's buffers hold the batch itself.
%ignore loaderx::binding::BufferShare;
%ignore loaderx::binding::LoaderBatch::buffer_share;
#endif
%ignore loaderx::binding::BatchMemory;
%ignore loaderx::binding::LoaderBatch::LoaderBatch;
