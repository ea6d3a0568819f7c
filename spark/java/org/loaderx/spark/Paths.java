package org.loaderx.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** File-tree helpers for the connector's staging and data directories. */
final class Paths {
  private Paths() {}

  /** Removes {@code dir} and everything under it; nothing there is fine. */
  static void removeTree(Path dir) {
    if (!Files.exists(dir)) return;
    try (Stream<Path> walk = Files.walk(dir)) {
      for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
        Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("loaderx: removing " + dir, e);
    }
  }
}
