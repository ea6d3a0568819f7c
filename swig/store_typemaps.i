// Python's typemaps for the stores' binding surface (`store_binding.h`),
// included by `loaderx.i` (Java's are in `java.i`).
//
//   loaderx::DType   Python: numpy's dtype identity, `dtype.str` (a str) or
//                    `dtype.descr` (a list of (name, type) / (name, type,
//                    shape) tuples, name a str or (title, name), type nested
//                    the same way); `loaderx/zrecord.py` turns it into and
//                    out of `np.dtype`.
//   OutputBuffer&    Python: a callable `allocate(size)` returning a
//                    writable C-contiguous buffer of exactly `size` bytes
//                    (`loaderx._buffers.byte_buffer`), which the native side
//                    calls once; what it returned comes back after the
//                    call's own result as a (result, buffer) tuple.
//   ProgressSink*    Python: None (no progress) or a callable
//                    `progress(done, total)`, called with the GIL taken
//                    (the call runs without it); the first exception it
//                    raises is kept and raised when the call returns.
//   IndexBuffer      Python: a contiguous uint64, int64 or bool numpy array
//                    (TypeError for anything else).
//   RecordArrays     Python: a sequence of (dtype identity, shape, buffer)
//                    tuples, the buffers read in place.
//   BatchLayout      Python: (list of shape tuples, list of byte offsets).

%{
#include <deque>
#include <string>
#include <vector>

#include "loaderx/dtype.h"
%}

#ifdef SWIGPYTHON
%{
namespace {

// `object` (a str) as UTF-8; false, with TypeError pending, otherwise.
bool PythonText(PyObject* object, const char* what, std::string* out) {
  if (!PyUnicode_Check(object)) {
    PyErr_Format(PyExc_TypeError, "%s must be a str, not %.100s", what,
                 TypeNameOf(object).c_str());
    return false;
  }
  Py_ssize_t size = 0;
  const char* text = PyUnicode_AsUTF8AndSize(object, &size);
  if (text == nullptr) return false;
  out->assign(text, static_cast<size_t>(size));
  return true;
}

bool IsListOrTuple(PyObject* object) {
  return PyList_Check(object) || PyTuple_Check(object);
}

bool PythonToDType(PyObject* object, int depth, loaderx::DType* out);

// One `dtype.descr` entry: (name, type) or (name, type, shape).
bool PythonToField(PyObject* entry_object, int depth,
                   loaderx::DTypeField* field) {
  if (!IsListOrTuple(entry_object)) {
    PyErr_SetString(PyExc_ValueError,
                    "a dtype field is (name, type) or (name, type, shape)");
    return false;
  }
  OwnedRef entry(SequenceSnapshot(entry_object, "a dtype field"));
  if (entry.get() == nullptr) return false;
  const Py_ssize_t size = PyTuple_Size(entry.get());
  if (size != 2 && size != 3) {
    PyErr_SetString(PyExc_ValueError,
                    "a dtype field is (name, type) or (name, type, shape)");
    return false;
  }
  PyObject* name = PyTuple_GetItem(entry.get(), 0);
  if (IsListOrTuple(name) && PySequence_Size(name) == 2) {
    OwnedRef titled(SequenceSnapshot(name, "a field's (title, name)"));
    if (titled.get() == nullptr || PyTuple_Size(titled.get()) != 2) {
      if (!PyErr_Occurred()) {
        PyErr_SetString(PyExc_ValueError, "a field's (title, name) changed");
      }
      return false;
    }
    field->has_title = true;
    if (!PythonText(PyTuple_GetItem(titled.get(), 0), "a field title",
                    &field->title) ||
        !PythonText(PyTuple_GetItem(titled.get(), 1), "a field name",
                    &field->name)) {
      return false;
    }
  } else if (!PythonText(name, "a field name", &field->name)) {
    return false;
  }
  if (!PythonToDType(PyTuple_GetItem(entry.get(), 1), depth + 1,
                     &field->type)) {
    return false;
  }
  if (size == 3) {
    PyObject* shape_object = PyTuple_GetItem(entry.get(), 2);
    if (!IsListOrTuple(shape_object)) {
      PyErr_SetString(PyExc_ValueError, "a dtype field's shape is a tuple");
      return false;
    }
    OwnedRef shape(SequenceSnapshot(shape_object, "a dtype field's shape"));
    if (shape.get() == nullptr) return false;
    for (Py_ssize_t d = 0; d < PyTuple_Size(shape.get()); ++d) {
      const unsigned long long dim =
          PyLong_AsUnsignedLongLong(PyTuple_GetItem(shape.get(), d));
      if (PyErr_Occurred()) return false;
      field->shape.push_back(dim);
    }
  }
  return true;
}

// numpy's dtype identity as a DType; false with a Python error pending.
bool PythonToDType(PyObject* object, int depth, loaderx::DType* out) {
  if (PyUnicode_Check(object)) {
    *out = loaderx::DType::Simple("");
    return PythonText(object, "a dtype", &out->str);
  }
  if (!IsListOrTuple(object)) {
    PyErr_Format(PyExc_TypeError,
                 "a dtype identity is numpy's dtype.str or dtype.descr, not "
                 "%.100s",
                 TypeNameOf(object).c_str());
    return false;
  }
  if (depth >= loaderx::kMaxDTypeDepth) {
    PyErr_SetString(PyExc_ValueError, "the dtype nests too deeply");
    return false;
  }
  OwnedRef entries(SequenceSnapshot(object, "a dtype.descr"));
  if (entries.get() == nullptr) return false;
  std::vector<loaderx::DTypeField> fields(
      static_cast<size_t>(PyTuple_Size(entries.get())));
  for (size_t i = 0; i < fields.size(); ++i) {
    if (!PythonToField(PyTuple_GetItem(entries.get(), i), depth,
                       &fields[i])) {
      return false;
    }
  }
  *out = loaderx::DType::Structured(std::move(fields));
  return true;
}

PyObject* PythonString(const std::string& text) {
  return PyUnicode_FromStringAndSize(text.data(),
                                     static_cast<Py_ssize_t>(text.size()));
}

// A DType as numpy's `dtype.str` or `dtype.descr` (a new reference).
PyObject* DTypeToPython(const loaderx::DType& dtype) {
  if (!dtype.structured) return PythonString(dtype.str);
  PyObject* descr = PyList_New(static_cast<Py_ssize_t>(dtype.fields.size()));
  if (descr == nullptr) return nullptr;
  for (size_t i = 0; i < dtype.fields.size(); ++i) {
    const loaderx::DTypeField& field = dtype.fields[i];
    PyObject* name =
        field.has_title
            ? Py_BuildValue("(NN)", PythonString(field.title),
                            PythonString(field.name))
            : PythonString(field.name);
    PyObject* type = DTypeToPython(field.type);
    PyObject* shape = PyTuple_New(static_cast<Py_ssize_t>(field.shape.size()));
    for (size_t d = 0; shape != nullptr && d < field.shape.size(); ++d) {
      PyTuple_SetItem(shape, d, PyLong_FromUnsignedLongLong(field.shape[d]));
    }
    PyObject* entry =
        name == nullptr || type == nullptr || shape == nullptr ? nullptr
        : field.shape.empty() ? PyTuple_Pack(2, name, type)
                              : PyTuple_Pack(3, name, type, shape);
    Py_XDECREF(name);
    Py_XDECREF(type);
    Py_XDECREF(shape);
    if (entry == nullptr) {
      Py_DECREF(descr);
      return nullptr;
    }
    PyList_SetItem(descr, i, entry);
  }
  return descr;
}

// The buffer `allocator(size)` returns, asked for when the native side
// asks, held (and its buffer view kept) until the call returns it.
// Allocation takes the GIL (the call runs without it); the destructor runs
// in the wrapper, with the GIL held.
class PythonOutputBuffer final : public loaderx::binding::OutputBuffer {
 public:
  PythonOutputBuffer() = default;
  PythonOutputBuffer(const PythonOutputBuffer&) = delete;
  PythonOutputBuffer& operator=(const PythonOutputBuffer&) = delete;
  ~PythonOutputBuffer() override { Drop(); }

  // Borrowed: the call's argument outlives the call.
  void set_allocator(PyObject* allocator) { allocator_ = allocator; }

  char* Allocate(size_t size) override {
    PyGILState_STATE gil = PyGILState_Ensure();
    Drop();
    char* data = nullptr;
    object_ = PyObject_CallFunction(allocator_, "n",
                                    static_cast<Py_ssize_t>(size));
    if (object_ != nullptr &&
        PyObject_GetBuffer(object_, &view_,
                           PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) == 0) {
      held_ = true;
      if (static_cast<size_t>(view_.len) == size) {
        data = static_cast<char*>(view_.buf);
      }
    }
    if (data == nullptr) {
      Drop();
      PyErr_Clear();  // The native side reports the failure.
    }
    PyGILState_Release(gil);
    return data;
  }

  // What the allocator returned, a new reference (an empty bytearray if
  // nothing was asked for).
  PyObject* Release() {
    PyObject* out = object_ != nullptr
                        ? object_
                        : PyByteArray_FromStringAndSize(nullptr, 0);
    if (held_) PyBuffer_Release(&view_);
    held_ = false;
    object_ = nullptr;
    return out;
  }

 private:
  void Drop() {
    if (held_) PyBuffer_Release(&view_);
    held_ = false;
    Py_CLEAR(object_);
  }

  PyObject* allocator_ = nullptr;
  PyObject* object_ = nullptr;
  Py_buffer view_;
  bool held_ = false;
};

// Passes a call's progress to `callable(done, total)`, taking the GIL for
// each report (the engine reports from its own threads; the call runs
// without the GIL). The exception of a report that raises is kept until
// `RestoreError` makes it pending again on the calling thread. The
// destructor runs in the wrapper, with the GIL held.
class PythonProgressSink final : public loaderx::binding::ProgressSink {
 public:
  PythonProgressSink() = default;
  PythonProgressSink(const PythonProgressSink&) = delete;
  PythonProgressSink& operator=(const PythonProgressSink&) = delete;
  ~PythonProgressSink() override {
    Py_XDECREF(type_);
    Py_XDECREF(value_);
    Py_XDECREF(traceback_);
  }

  // Borrowed: the call's argument outlives the call.
  void set_callable(PyObject* callable) { callable_ = callable; }

  bool Report(uint64_t done, uint64_t total) override {
    PyGILState_STATE gil = PyGILState_Ensure();
    PyObject* result = PyObject_CallFunction(
        callable_, "KK", static_cast<unsigned long long>(done),
        static_cast<unsigned long long>(total));
    const bool reported = result != nullptr;
    if (reported) {
      Py_DECREF(result);
    } else {
      PyErr_Fetch(&type_, &value_, &traceback_);
    }
    PyGILState_Release(gil);
    return reported;
  }

  void RestoreError() override {
    PyGILState_STATE gil = PyGILState_Ensure();
    PyErr_Restore(type_, value_, traceback_);  // Steals the references.
    type_ = value_ = traceback_ = nullptr;
    PyGILState_Release(gil);
  }

 private:
  PyObject* callable_ = nullptr;
  PyObject* type_ = nullptr;
  PyObject* value_ = nullptr;
  PyObject* traceback_ = nullptr;
};

// `view` (requested with PyBUF_FORMAT) as record indices; false, with
// TypeError pending, for a buffer of another element type.
bool IndexBufferOf(const Py_buffer& view, loaderx::binding::IndexBuffer* out) {
  using Kind = loaderx::binding::IndexBuffer::Kind;
  const char* format = view.format != nullptr ? view.format : "B";
  // numpy spells native order with no prefix, '=' or '<' on this machine.
  if (*format == '@' || *format == '=' || *format == '<') ++format;
  const bool single = format[0] != '\0' && format[1] == '\0';
  if (single && view.itemsize == 8 && (*format == 'q' || *format == 'l')) {
    out->kind = Kind::kSigned;
  } else if (single && view.itemsize == 8 &&
             (*format == 'Q' || *format == 'L')) {
    out->kind = Kind::kUnsigned;
  } else if (single && view.itemsize == 1 && *format == '?') {
    out->kind = Kind::kMask;
  } else {
    PyErr_Format(PyExc_TypeError,
                 "indices are a uint64, int64 or bool array, not one of "
                 "format '%s' (%zd-byte items)",
                 view.format != nullptr ? view.format : "B", view.itemsize);
    return false;
  }
  out->data = view.buf;
  out->count = static_cast<size_t>(view.len / view.itemsize);
  out->ndim = view.ndim;
  return true;
}

// A Python sequence of ints as a shape; false with an error pending.
bool PythonToShape(PyObject* object, std::vector<uint64_t>* shape) {
  PyObject* sequence = SequenceSnapshot(object, "a shape is a sequence of ints");
  if (sequence == nullptr) return false;
  const Py_ssize_t n = PyTuple_Size(sequence);
  shape->resize(static_cast<size_t>(n));
  for (Py_ssize_t d = 0; d < n; ++d) {
    (*shape)[d] =
        PyLong_AsUnsignedLongLong(PyTuple_GetItem(sequence, d));
    if (PyErr_Occurred()) {
      Py_DECREF(sequence);
      return false;
    }
  }
  Py_DECREF(sequence);
  return true;
}

// Py_buffers held for the length of one call.
class HeldBuffers {
 public:
  HeldBuffers() = default;
  HeldBuffers(const HeldBuffers&) = delete;
  HeldBuffers& operator=(const HeldBuffers&) = delete;
  ~HeldBuffers() {
    for (Py_buffer& view : views_) PyBuffer_Release(&view);
  }

  // `object`'s contiguous bytes, held until destruction; null with an
  // error pending if it has none.
  const Py_buffer* Hold(PyObject* object) {
    views_.emplace_back();
    if (PyObject_GetBuffer(object, &views_.back(), PyBUF_C_CONTIGUOUS) != 0) {
      views_.pop_back();
      return nullptr;
    }
    return &views_.back();
  }

 private:
  std::deque<Py_buffer> views_;  // Stable addresses.
};

// (dtype identity, shape, buffer) tuples as records; false with an error
// pending.
bool PythonToRecordArrays(PyObject* object, HeldBuffers* held,
                          loaderx::binding::RecordArrays* out) {
  PyObject* sequence =
      SequenceSnapshot(object, "records are a sequence of tuples");
  if (sequence == nullptr) return false;
  const Py_ssize_t n = PyTuple_Size(sequence);
  out->resize(static_cast<size_t>(n));
  bool ok = true;
  for (Py_ssize_t i = 0; ok && i < n; ++i) {
    PyObject* item = PyTuple_GetItem(sequence, i);
    if (!PyTuple_Check(item) || PyTuple_Size(item) != 3) {
      PyErr_SetString(PyExc_TypeError,
                      "a record is a (dtype identity, shape, buffer) tuple");
      ok = false;
      break;
    }
    loaderx::binding::RecordArray& record = (*out)[i];
    const Py_buffer* view = nullptr;
    ok = PythonToDType(PyTuple_GetItem(item, 0), 0, &record.dtype) &&
         PythonToShape(PyTuple_GetItem(item, 1), &record.shape) &&
         (view = held->Hold(PyTuple_GetItem(item, 2))) != nullptr;
    if (ok) {
      record.data.data = view->buf;
      record.data.size = static_cast<size_t>(view->len);
    }
  }
  Py_DECREF(sequence);
  return ok;
}

// A batch layout as (list of shape tuples, list of offsets); a new
// reference, or null with an error pending.
PyObject* BatchLayoutToPython(const loaderx::binding::BatchLayout& layout) {
  const Py_ssize_t n = static_cast<Py_ssize_t>(layout.shapes.size());
  PyObject* shapes = PyList_New(n);
  PyObject* offsets = PyList_New(n);
  if (shapes == nullptr || offsets == nullptr) {
    Py_XDECREF(shapes);
    Py_XDECREF(offsets);
    return nullptr;
  }
  for (Py_ssize_t i = 0; i < n; ++i) {
    const absl::Span<const uint64_t> shape = layout.shapes[i];
    PyObject* dims = PyTuple_New(static_cast<Py_ssize_t>(shape.size()));
    PyObject* offset = PyLong_FromUnsignedLongLong(layout.offsets[i]);
    if (dims == nullptr || offset == nullptr) {
      Py_XDECREF(dims);
      Py_XDECREF(offset);
      Py_DECREF(shapes);
      Py_DECREF(offsets);
      return nullptr;
    }
    for (size_t d = 0; d < shape.size(); ++d) {
      PyTuple_SetItem(dims, d, PyLong_FromUnsignedLongLong(shape[d]));
    }
    PyList_SetItem(shapes, i, dims);
    PyList_SetItem(offsets, i, offset);
  }
  return Py_BuildValue("(NN)", shapes, offsets);
}

}  // namespace
%}

%typemap(in) loaderx::binding::IndexBuffer (PythonBufferView scoped) {
  if (!scoped.Acquire($input, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) ||
      !IndexBufferOf(scoped.view(), &$1)) {
    SWIG_fail;
  }
}

%typemap(in) const loaderx::binding::RecordArrays&
    (loaderx::binding::RecordArrays temp, HeldBuffers held) {
  if (!PythonToRecordArrays($input, &held, &temp)) SWIG_fail;
  $1 = &temp;
}
%typemap(freearg) const loaderx::binding::RecordArrays& ""

%typemap(out) loaderx::binding::BatchLayout {
  $result = BatchLayoutToPython($1);
  if ($result == nullptr) SWIG_fail;
}

%typemap(in) const loaderx::DType& (loaderx::DType temp) {
  if (!PythonToDType($input, 0, &temp)) SWIG_fail;
  $1 = &temp;
}
%typemap(typecheck, precedence=SWIG_TYPECHECK_STRING) const loaderx::DType& {
  $1 = PyUnicode_Check($input) || PyList_Check($input) ||
       PyTuple_Check($input);
}
%typemap(out) loaderx::DType {
  $result = DTypeToPython($1);
  if ($result == nullptr) SWIG_fail;
}

%typemap(in) loaderx::binding::OutputBuffer& (PythonOutputBuffer temp) {
  if (!PyCallable_Check($input)) {
    PyErr_SetString(PyExc_TypeError, "read: the allocator must be callable");
    SWIG_fail;
  }
  temp.set_allocator($input);
  $1 = &temp;
}
%typemap(argout) loaderx::binding::OutputBuffer& {
  $result = Py_BuildValue("(NN)", $result, temp$argnum.Release());
}

// `verify(progress=None)`: one wrapper, the sink optional.
%feature("compactdefaultargs") loaderx::binding::StoreHandle::verify;
%typemap(in) loaderx::binding::ProgressSink* (PythonProgressSink temp) {
  if ($input == Py_None) {
    $1 = nullptr;
  } else if (PyCallable_Check($input)) {
    temp.set_callable($input);
    $1 = &temp;
  } else {
    PyErr_Format(PyExc_TypeError,
                 "progress must be callable (done, total) or None, not %.100s",
                 TypeNameOf($input).c_str());
    SWIG_fail;
  }
}
#endif  // SWIGPYTHON


#ifdef SWIGPYTHON
%ignore loaderx::binding::RecordArray;
#endif  // SWIGPYTHON

%ignore loaderx::binding::OpenRequest::request;
%ignore loaderx::binding::VerifyResult::VerifyResult;
