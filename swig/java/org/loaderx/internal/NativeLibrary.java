package org.loaderx.internal;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * Loads {@code libloaderx_jni} once per class loader, the way RocksJava and lmdbjava do: the jar
 * carries the library for its platform at {@code /native/<os>-<arch>/}, which is copied to a
 * temporary file and loaded from there. Without one for this platform (a jar built without
 * native code), or with {@code -Dloaderx.native.library=system}, the library is looked up on
 * {@code java.library.path}. Not part of the API.
 */
public final class NativeLibrary {
  private static final String NAME = "loaderx_jni";
  private static boolean loaded;

  private NativeLibrary() {}

  /** The jar's directory for this machine: {@code linux-x86_64}, {@code linux-aarch64}, ... */
  public static String platform() {
    String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
    if (os.startsWith("linux")) os = "linux";
    else if (os.startsWith("windows")) os = "windows";
    else if (os.startsWith("mac")) os = "macos";
    if (arch.equals("amd64") || arch.equals("x86_64")) arch = "x86_64";
    else if (arch.equals("arm64") || arch.equals("aarch64")) arch = "aarch64";
    return os + "-" + arch;
  }

  public static synchronized void load() {
    if (loaded) return;
    String resource = "/native/" + platform() + "/" + System.mapLibraryName(NAME);
    InputStream packaged =
        "system".equals(System.getProperty("loaderx.native.library"))
            ? null
            : NativeLibrary.class.getResourceAsStream(resource);
    if (packaged == null) {
      System.loadLibrary(NAME);
    } else {
      Path file = extract(packaged, resource);
      System.load(file.toString());
      // A loaded library stays mapped on POSIX systems; elsewhere the file goes at exit.
      file.toFile().delete();
    }
    loaded = true;
  }

  private static Path extract(InputStream packaged, String resource) {
    try (InputStream in = packaged) {
      Path file = Files.createTempFile("loaderx-", "-" + System.mapLibraryName(NAME));
      file.toFile().deleteOnExit();
      Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot extract " + resource + " from loaderx.jar", e);
    }
  }
}
