import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.loaderx.Batch;
import org.loaderx.DataLoader;
import org.loaderx.DenseStore;
import org.loaderx.RaggedStore;
import org.loaderx.SamplerMode;
import org.loaderx.StoreRequest;
import org.loaderx.TypedStore;
import org.loaderx.Vfs;

/** The README's Java example: write a dense and a ragged store, load batches from both. */
public class Example {
  public static void main(String[] args) throws Exception {
    Path root = Files.createTempDirectory("loaderx-example");
    try (Vfs vfs = Vfs.posix();
        DenseStore labels =
            DenseStore.open(
                vfs, root + "/labels", new StoreRequest().dtype("<i8").itemShape().codec("raw"));
        RaggedStore tokens =
            RaggedStore.open(vfs, root + "/tokens", new StoreRequest().dtype("<i4"))) {
      ByteBuffer values = ByteBuffer.allocateDirect(8 * 100).order(ByteOrder.nativeOrder());
      for (long i = 0; i < 100; i++) values.putLong(i);
      labels.append(values.flip());
      for (int i = 0; i < 100; i++) {
        ByteBuffer record = ByteBuffer.allocateDirect(4 * (1 + i % 3));
        record.order(ByteOrder.nativeOrder());
        while (record.hasRemaining()) record.putInt(i);
        tokens.append(record.flip(), 1 + i % 3);
      }
      Map<String, TypedStore> streams = new LinkedHashMap<>();
      streams.put("label", labels);
      streams.put("tokens", tokens);
      try (DataLoader loader = new DataLoader(streams, 16, SamplerMode.CYCLIC, 42, 2)) {
        long checked = 0;
        for (int step = 0; step < 20; step++) {
          try (Batch batch = loader.next()) {
            for (int r = 0; r < batch.size(); r++) {
              long label = batch.stream("label").getLong(8 * r);
              long[] shape = batch.shape("tokens", r);
              if (shape[0] != 1 + label % 3 || batch.record("tokens", r).getInt(0) != label) {
                throw new AssertionError("step " + step + " record " + r + " is misaligned");
              }
              checked++;
            }
          }
        }
        System.out.println("loaded " + checked + " aligned records");
      }
    }
  }
}
