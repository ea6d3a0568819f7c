package example;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import org.loaderx.DenseStore;
import org.loaderx.StoreRequest;
import org.loaderx.Vfs;

/** Writes a dense store, reopens it and reads it back, every resource in try-with-resources. */
public final class StoreRoundTrip {
  public static void main(String[] args) throws Exception {
    Path root = Files.createTempDirectory("loaderx-maven");
    String path = root.resolve("squares").toString();
    try (Vfs vfs = Vfs.posix()) {
      try (DenseStore store =
          DenseStore.open(vfs, path, new StoreRequest().dtype("<i8").itemShape().codec("zstd"))) {
        ByteBuffer values = ByteBuffer.allocateDirect(8 * 1000).order(ByteOrder.nativeOrder());
        for (long i = 0; i < 1000; i++) values.putLong(i * i);
        store.append(values.flip());
      }
      try (DenseStore store = DenseStore.open(vfs, path)) {
        long[] indices = {999, 0, 31};
        ByteBuffer out = ByteBuffer.allocateDirect(8 * indices.length);
        store.gather(indices, out);
        out.order(ByteOrder.nativeOrder());
        for (int i = 0; i < indices.length; i++) {
          long got = out.getLong(8 * i);
          if (got != indices[i] * indices[i]) {
            throw new AssertionError("record " + indices[i] + " reads back as " + got);
          }
        }
        System.out.println("maven: " + store.size() + " records round-tripped");
      }
    }
  }
}
