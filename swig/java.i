// The Java half of `loaderx.i`: how the binding surface crosses into Java.
// The generated classes land in `org.loaderx.internal`; the API users see
// is the hand-written layer in `java/org/loaderx/` over them.
//
//   int64_t, uint64_t     `long`, all 64 bits. uint64_t values of 2^63 and
//                         above read as negative (`Long.toUnsignedString`,
//                         `Long.compareUnsigned`); there is no `int` anywhere
//                         a count, size, step or seed crosses.
//   Bytes                 `byte[]` (whole files, dictionaries).
//   Int64Array            `long[]` both ways (shapes).
//   Uint64Array           `long[]` with the same bits (loader layouts).
//   MutableBuffer         a direct, writable `ByteBuffer`: its bytes from
//                         position to limit, filled in place.
//   ConstBuffer           a direct `ByteBuffer`: position to limit, read in
//                         place.
//   IndexBuffer           `long[]` of record indices, read as unsigned after
//                         a check that none is negative (IndexOutOfBounds).
//   OutputBuffer&         `ByteBuffer[]` of length 1 that receives the direct
//                         buffer the call allocated (native byte order).
//   ProgressSink*         `org.loaderx.VerifyProgress` (null: none), its
//                         `report(long, long)` called from the engine's
//                         threads; the first Throwable it throws is thrown
//                         by the call when it returns.
//   BatchLayout           `long[][]`: element 0 the records' byte offsets,
//                         element 1 + i record i's shape.
//   DType                 numpy's `dtype.str` as a String (simple dtypes).
//
// Heap buffers, read-only buffers where one is written, and buffers the JVM
// gives no address for are IllegalArgumentException
// (`org.loaderx.internal.Buffers` checks in Java, the typemaps again in
// C++). A method called on an object whose native half was deleted is
// IllegalStateException (`boundary_typemaps.i`).

// ---------------------------------------------------------------------------
// Errors: the status -> exception table is `org.loaderx.Errors.of`.

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

// `buffer`'s address and size, or false with IllegalArgumentException
// pending (a heap buffer, or one the JVM has no address for).
bool DirectBuffer(JNIEnv* env, jobject buffer, void** data, size_t* size) {
  if (buffer == nullptr) {
    SWIG_JavaThrowException(env, SWIG_JavaNullPointerException, "null buffer");
    return false;
  }
  *data = env->GetDirectBufferAddress(buffer);
  const jlong capacity = env->GetDirectBufferCapacity(buffer);
  if (*data == nullptr || capacity < 0) {
    SWIG_JavaThrowException(env, SWIG_JavaIllegalArgumentException,
                            "expected a direct ByteBuffer");
    return false;
  }
  *size = static_cast<size_t>(capacity);
  return true;
}

jlongArray JavaLongs(JNIEnv* env, const uint64_t* values, size_t count) {
  jlongArray array = env->NewLongArray(static_cast<jsize>(count));
  if (array != nullptr) {
    env->SetLongArrayRegion(array, 0, static_cast<jsize>(count),
                            reinterpret_cast<const jlong*>(values));
  }
  return array;
}

// Allocates the call's output as a direct ByteBuffer on the calling thread
// (the engine asks for it there, once).
class JavaOutputBuffer final : public loaderx::binding::OutputBuffer {
 public:
  explicit JavaOutputBuffer(JNIEnv* env) : env_(env) {}

  char* Allocate(size_t size) override {
    if (size > static_cast<size_t>(INT32_MAX)) return nullptr;
    jclass byte_buffer = env_->FindClass("java/nio/ByteBuffer");
    if (byte_buffer == nullptr) return Fail();
    jmethodID allocate = env_->GetStaticMethodID(
        byte_buffer, "allocateDirect", "(I)Ljava/nio/ByteBuffer;");
    if (allocate == nullptr) return Fail();
    buffer_ = env_->CallStaticObjectMethod(byte_buffer, allocate,
                                           static_cast<jint>(size));
    if (buffer_ == nullptr || env_->ExceptionCheck()) return Fail();
    return static_cast<char*>(env_->GetDirectBufferAddress(buffer_));
  }

  jobject buffer() const { return buffer_; }

 private:
  // The engine reports the failure (ResourceExhausted) as its own error.
  char* Fail() {
    env_->ExceptionClear();
    buffer_ = nullptr;
    return nullptr;
  }

  JNIEnv* env_;
  jobject buffer_ = nullptr;
};

// Passes a call's progress to an `org.loaderx.VerifyProgress`. The engine
// reports from its own threads, so each report uses the JNIEnv of the
// thread it runs on: a thread the JVM does not know is attached (as a
// daemon named "loaderx-verify") for that report and detached after it;
// a thread that was attached already is left so. The first Throwable
// `report` throws is kept (a global reference) until `RestoreError`
// throws it again on the calling thread. Lives in the wrapper, on the
// calling thread (`env_`).
class JavaProgressSink final : public loaderx::binding::ProgressSink {
 public:
  explicit JavaProgressSink(JNIEnv* env) : env_(env) {}
  JavaProgressSink(const JavaProgressSink&) = delete;
  JavaProgressSink& operator=(const JavaProgressSink&) = delete;
  ~JavaProgressSink() override {
    if (callback_ != nullptr) env_->DeleteGlobalRef(callback_);
    if (thrown_ != nullptr) env_->DeleteGlobalRef(thrown_);
  }

  // Reports to `callback`; false with an exception pending if it cannot.
  bool Bind(jobject callback) {
    if (env_->GetJavaVM(&vm_) != JNI_OK) {
      SWIG_JavaThrowException(env_, SWIG_JavaRuntimeException,
                              "progress: no JavaVM for this thread");
      return false;
    }
    jclass type = env_->GetObjectClass(callback);
    if (type == nullptr) return false;
    report_ = env_->GetMethodID(type, "report", "(JJ)V");
    env_->DeleteLocalRef(type);
    if (report_ == nullptr) return false;  // NoSuchMethodError is pending.
    callback_ = env_->NewGlobalRef(callback);
    return callback_ != nullptr;  // Else OutOfMemoryError is pending.
  }

  bool Report(uint64_t done, uint64_t total) override {
    JNIEnv* env = nullptr;
    bool attached = false;
    const jint known = vm_->GetEnv(reinterpret_cast<void**>(&env), kVersion);
    if (known == JNI_EDETACHED) {
      JavaVMAttachArgs args{kVersion, const_cast<char*>("loaderx-verify"),
                            nullptr};
      if (vm_->AttachCurrentThreadAsDaemon(reinterpret_cast<void**>(&env),
                                           &args) != JNI_OK) {
        return false;  // `RestoreError` throws for it.
      }
      attached = true;
    } else if (known != JNI_OK) {
      return false;
    }
    env->CallVoidMethod(callback_, report_, static_cast<jlong>(done),
                        static_cast<jlong>(total));
    jthrowable thrown = env->ExceptionOccurred();
    if (thrown != nullptr) {
      env->ExceptionClear();
      thrown_ = static_cast<jthrowable>(env->NewGlobalRef(thrown));
      env->DeleteLocalRef(thrown);
    }
    if (attached) vm_->DetachCurrentThread();
    return thrown == nullptr;
  }

  void RestoreError() override {
    if (thrown_ != nullptr) {
      env_->Throw(thrown_);
    } else {
      SWIG_JavaThrowException(
          env_, SWIG_JavaRuntimeException,
          "progress: a loaderx thread could not reach the JVM to report");
    }
  }

 private:
  static constexpr jint kVersion = JNI_VERSION_1_8;

  JNIEnv* env_;  // The calling thread's.
  JavaVM* vm_ = nullptr;
  jobject callback_ = nullptr;
  jmethodID report_ = nullptr;
  jthrowable thrown_ = nullptr;
};

}  // namespace
%}

%exception {
  try {
    $action
  } catch (const loaderx::binding::BindingError& error) {
    ThrowJavaException(jenv, error);
    return $null;
  } catch (const loaderx::binding::CallbackRaised&) {
    return $null;  // The callback's exception is pending.
  } catch (const std::bad_alloc& error) {
    SWIG_JavaThrowException(jenv, SWIG_JavaOutOfMemoryError, error.what());
    return $null;
  } catch (const std::exception& error) {
    SWIG_JavaThrowException(jenv, SWIG_JavaRuntimeException, error.what());
    return $null;
  }
}

// The jar loads its own native library (`NativeLibrary`).
%pragma(java) jniclasscode=%{
  static {
    org.loaderx.internal.NativeLibrary.load();
  }
%}


// ---------------------------------------------------------------------------
// 64-bit integers: SWIG's `long` is Java's `int`; int64_t (LP64's `long`
// under -DSWIGWORDSIZE64) crosses as `long long` does, as a Java `long`.

%apply long long { int64_t };
%apply const long long& { const int64_t& };

// ---------------------------------------------------------------------------
// Bytes and long arrays.

// Strings in: standard UTF-8 from the string's UTF-16, not JNI's
// GetStringUTFChars, whose "modified UTF-8" writes U+0000 as C0 80 and a
// supplementary character as two 3-byte surrogates. A NUL in a path thus
// reaches the engine as a NUL, which refuses it (IllegalArgumentException),
// instead of as C0 80, a different, valid file name. An unpaired surrogate
// names no UTF-8 string: IllegalArgumentException.
%{
namespace {

// Appends `text`'s UTF-8 to `out`; false with IllegalArgumentException
// pending for an unpaired surrogate.
bool AppendUtf8(JNIEnv* env, const jchar* text, jsize length,
                std::string* out) {
  out->reserve(static_cast<size_t>(length));
  for (jsize i = 0; i < length; ++i) {
    uint32_t c = text[i];
    if (c >= 0xd800 && c <= 0xdfff) {
      const bool paired = c <= 0xdbff && i + 1 < length &&
                          text[i + 1] >= 0xdc00 && text[i + 1] <= 0xdfff;
      if (!paired) {
        SWIG_JavaThrowException(
            env, SWIG_JavaIllegalArgumentException,
            ("string holds an unpaired surrogate at index " +
             std::to_string(i) + ", which UTF-8 cannot encode")
                .c_str());
        return false;
      }
      c = 0x10000 + ((c - 0xd800) << 10) + (text[i + 1] - 0xdc00);
      ++i;
    }
    if (c < 0x80) {
      out->push_back(static_cast<char>(c));
    } else if (c < 0x800) {
      out->push_back(static_cast<char>(0xc0 | (c >> 6)));
      out->push_back(static_cast<char>(0x80 | (c & 0x3f)));
    } else if (c < 0x10000) {
      out->push_back(static_cast<char>(0xe0 | (c >> 12)));
      out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3f)));
      out->push_back(static_cast<char>(0x80 | (c & 0x3f)));
    } else {
      out->push_back(static_cast<char>(0xf0 | (c >> 18)));
      out->push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3f)));
      out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3f)));
      out->push_back(static_cast<char>(0x80 | (c & 0x3f)));
    }
  }
  return true;
}

// `string`'s UTF-8 in `out`; false with an exception pending.
bool JavaStringToUtf8(JNIEnv* env, jstring string, std::string* out) {
  if (string == nullptr) {
    SWIG_JavaThrowException(env, SWIG_JavaNullPointerException,
                            "null string");
    return false;
  }
  const jsize length = env->GetStringLength(string);
  const jchar* text = env->GetStringChars(string, nullptr);
  if (text == nullptr) return false;  // OutOfMemoryError is pending.
  const bool converted = AppendUtf8(env, text, length, out);
  env->ReleaseStringChars(string, text);
  return converted;
}

}  // namespace
%}

%typemap(in) const std::string& (std::string temp) {
  if (!JavaStringToUtf8(jenv, $input, &temp)) return $null;
  $1 = &temp;
}
%typemap(in) std::string {
  if (!JavaStringToUtf8(jenv, $input, &$1)) return $null;
}

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
  if ($1.size() > static_cast<size_t>(INT32_MAX)) {
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

%typemap(jni) loaderx::binding::Int64Array, const loaderx::binding::Int64Array& "jlongArray"
%typemap(jtype) loaderx::binding::Int64Array, const loaderx::binding::Int64Array& "long[]"
%typemap(jstype) loaderx::binding::Int64Array, const loaderx::binding::Int64Array& "long[]"
%typemap(javaout) loaderx::binding::Int64Array { return $jnicall; }
%typemap(javain) const loaderx::binding::Int64Array& "$javainput"
%typemap(out) loaderx::binding::Int64Array {
  $result = JavaLongs(jenv, reinterpret_cast<const uint64_t*>($1.data()),
                      $1.size());
}
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

%typemap(jni) loaderx::binding::Uint64Array "jlongArray"
%typemap(jtype) loaderx::binding::Uint64Array "long[]"
%typemap(jstype) loaderx::binding::Uint64Array "long[]"
%typemap(javaout) loaderx::binding::Uint64Array { return $jnicall; }
%typemap(out) loaderx::binding::Uint64Array {
  $result = JavaLongs(jenv, $1.data(), $1.size());
}

// ---------------------------------------------------------------------------
// Direct buffers, read and filled in place.

%typemap(jni) loaderx::binding::MutableBuffer, loaderx::binding::ConstBuffer "jobject"
%typemap(jtype) loaderx::binding::MutableBuffer, loaderx::binding::ConstBuffer "java.nio.ByteBuffer"
%typemap(jstype) loaderx::binding::MutableBuffer, loaderx::binding::ConstBuffer "java.nio.ByteBuffer"
%typemap(javain) loaderx::binding::MutableBuffer "org.loaderx.internal.Buffers.writable($javainput)"
%typemap(javain) loaderx::binding::ConstBuffer "org.loaderx.internal.Buffers.readable($javainput)"
%typemap(in) loaderx::binding::MutableBuffer {
  if (!DirectBuffer(jenv, $input, &$1.data, &$1.size)) return $null;
}
%typemap(in) loaderx::binding::ConstBuffer {
  void* data = nullptr;
  if (!DirectBuffer(jenv, $input, &data, &$1.size)) return $null;
  $1.data = data;
}

%typemap(jni) loaderx::binding::IndexBuffer "jlongArray"
%typemap(jtype) loaderx::binding::IndexBuffer "long[]"
%typemap(jstype) loaderx::binding::IndexBuffer "long[]"
%typemap(javain) loaderx::binding::IndexBuffer "$javainput"
%typemap(in) loaderx::binding::IndexBuffer (jlong* elements = nullptr) {
  if ($input == nullptr) {
    SWIG_JavaThrowException(jenv, SWIG_JavaNullPointerException,
                            "null indices");
    return $null;
  }
  const jsize count = jenv->GetArrayLength($input);
  elements = jenv->GetLongArrayElements($input, nullptr);
  if (elements == nullptr) return $null;  // OutOfMemoryError is pending.
  for (jsize i = 0; i < count; ++i) {
    if (elements[i] < 0) {
      jenv->ReleaseLongArrayElements($input, elements, JNI_ABORT);
      const std::string message = "index " + std::to_string(elements[i]) +
                                  " (position " + std::to_string(i) +
                                  ") is negative";
      SWIG_JavaThrowException(jenv, SWIG_JavaIndexOutOfBoundsException,
                              message.c_str());
      return $null;
    }
  }
  $1.kind = loaderx::binding::IndexBuffer::Kind::kUnsigned;
  $1.data = elements;
  $1.count = static_cast<size_t>(count);
  $1.ndim = 1;
}
%typemap(freearg) loaderx::binding::IndexBuffer {
  if (elements$argnum != nullptr) {
    jenv->ReleaseLongArrayElements($input, elements$argnum, JNI_ABORT);
  }
}

%typemap(jni) loaderx::binding::OutputBuffer& "jobjectArray"
%typemap(jtype) loaderx::binding::OutputBuffer& "java.nio.ByteBuffer[]"
%typemap(jstype) loaderx::binding::OutputBuffer& "java.nio.ByteBuffer[]"
%typemap(javain) loaderx::binding::OutputBuffer& "$javainput"
%typemap(in) loaderx::binding::OutputBuffer& (JavaOutputBuffer temp(jenv)) {
  if ($input == nullptr || jenv->GetArrayLength($input) != 1) {
    SWIG_JavaThrowException(jenv, SWIG_JavaIllegalArgumentException,
                            "expected a ByteBuffer[1] for the output");
    return $null;
  }
  $1 = &temp;
}
%typemap(argout) loaderx::binding::OutputBuffer& {
  jenv->SetObjectArrayElement($input, 0, temp$argnum.buffer());
}

%typemap(jni) loaderx::binding::ProgressSink* "jobject"
%typemap(jtype) loaderx::binding::ProgressSink* "org.loaderx.VerifyProgress"
%typemap(jstype) loaderx::binding::ProgressSink* "org.loaderx.VerifyProgress"
%typemap(javain) loaderx::binding::ProgressSink* "$javainput"
%typemap(in) loaderx::binding::ProgressSink* (JavaProgressSink temp(jenv)) {
  $1 = nullptr;
  if ($input != nullptr) {
    if (!temp.Bind($input)) return $null;
    $1 = &temp;
  }
}

%typemap(jni) loaderx::binding::BatchLayout "jobjectArray"
%typemap(jtype) loaderx::binding::BatchLayout "long[][]"
%typemap(jstype) loaderx::binding::BatchLayout "long[][]"
%typemap(javaout) loaderx::binding::BatchLayout { return $jnicall; }
%typemap(out) loaderx::binding::BatchLayout {
  const loaderx::binding::BatchLayout& layout = $1;
  jclass long_array = jenv->FindClass("[J");
  if (long_array == nullptr) return $null;
  $result = jenv->NewObjectArray(
      static_cast<jsize>(layout.shapes.size() + 1), long_array, nullptr);
  if ($result == nullptr) return $null;
  jlongArray offsets =
      JavaLongs(jenv, layout.offsets.data(), layout.offsets.size());
  if (offsets == nullptr) return $null;
  jenv->SetObjectArrayElement($result, 0, offsets);
  jenv->DeleteLocalRef(offsets);
  for (size_t i = 0; i < layout.shapes.size(); ++i) {
    const absl::Span<const uint64_t> dims = layout.shapes[i];
    jlongArray shape = JavaLongs(jenv, dims.data(), dims.size());
    if (shape == nullptr) return $null;
    jenv->SetObjectArrayElement($result, static_cast<jsize>(i + 1), shape);
    jenv->DeleteLocalRef(shape);
  }
}

// ---------------------------------------------------------------------------
// Dtypes: numpy's `dtype.str`.

%typemap(jni) loaderx::DType, const loaderx::DType& "jstring"
%typemap(jtype) loaderx::DType, const loaderx::DType& "String"
%typemap(jstype) loaderx::DType, const loaderx::DType& "String"
%typemap(javain) const loaderx::DType& "$javainput"
%typemap(javaout) loaderx::DType { return $jnicall; }
%typemap(in) const loaderx::DType& (loaderx::DType temp) {
  if ($input == nullptr) {
    SWIG_JavaThrowException(jenv, SWIG_JavaNullPointerException, "null dtype");
    return $null;
  }
  const char* chars = jenv->GetStringUTFChars($input, nullptr);
  if (chars == nullptr) return $null;
  temp = loaderx::DType::Simple(chars);
  jenv->ReleaseStringUTFChars($input, chars);
  $1 = &temp;
}
%typemap(out) loaderx::DType {
  $result = jenv->NewStringUTF(loaderx::DTypeToString($1).c_str());
}

// ---------------------------------------------------------------------------
// Names: C++'s (`Vfs`, `Sampler`, `StoreStats`), methods in lowerCamelCase.

%rename(Vfs) loaderx::binding::Filesystem;
%rename(Sampler) loaderx::binding::IndexSampler;
%rename(StoreStats) loaderx::binding::StoreStatistics;
%rename(TypedStore) loaderx::binding::StoreHandle;
%rename("%(lowercamelcase)s", %$isfunction) "";

// Records in Java append as one array at a time (`append_array`).
%ignore loaderx::binding::RecordArray;
%ignore loaderx::binding::StoreHandle::append_records;

%typemap(javainterfaces) loaderx::binding::FileLock "AutoCloseable"
