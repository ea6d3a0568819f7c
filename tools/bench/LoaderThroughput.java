import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.LinkedHashMap;
import java.util.Map;
import org.loaderx.Batch;
import org.loaderx.DataLoader;
import org.loaderx.DenseStore;
import org.loaderx.Sampler;
import org.loaderx.SamplerMode;
import org.loaderx.StoreRequest;
import org.loaderx.TypedStore;
import org.loaderx.Vfs;

/**
 * The Java contender of {@code bench_loader.py}: {@code org.loaderx.DataLoader} over the image and
 * label stores the driver wrote (uint8 images stamped with their index in their first 8 bytes,
 * int64 labels), timed as the driver times every contender, in a JVM of its own so its peak RSS is
 * its own.
 *
 * <p>Before timing it checks {@code --validate} batches: every batch is the step it should be,
 * every label is the index a {@link Sampler} of the same settings draws, every image carries the
 * stamp of its label, and the image buffer is the native batch itself (a direct buffer, no copy).
 * Then it runs {@code --warmup} batches and times {@code --batches}, the consumer taking each
 * batch's two buffers (as a training step would) and closing it, which sends it back to the ring.
 * Prints one JSON line, as the C++ contender does:
 *
 * <pre>
 *   {"batches_per_s": 12.3, "peak_rss_mib": 456.7}
 *
 *   java -cp loaderx.jar:loader_throughput.jar LoaderThroughput --image=DIR --label=DIR
 *       [--batch=256] [--prefetch=4] [--batches=40] [--warmup=5] [--validate=3]
 * </pre>
 *
 * Exit status 1 with a message on stderr if validation or a read fails, 2 for bad flags.
 */
public final class LoaderThroughput {
  private static final long SEED = 42; // The loaders' default, cyclic.

  private static String image;
  private static String label;
  private static long batch = 256;
  private static int prefetch = 4;
  private static long batches = 40;
  private static long warmup = 5;
  private static long validate = 3;

  public static void main(String[] args) throws Exception {
    try {
      parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(
          e.getMessage()
              + "\nusage: LoaderThroughput --image=DIR --label=DIR [--batch=N] [--prefetch=N]"
              + " [--batches=N] [--warmup=N] [--validate=N]");
      System.exit(2);
    }
    try {
      run();
    } catch (RuntimeException | AssertionError e) {
      System.err.println("LoaderThroughput: " + e);
      System.exit(1);
    }
  }

  private static void parse(String[] args) {
    for (String arg : args) {
      int eq = arg.indexOf('=');
      if (!arg.startsWith("--") || eq < 0) throw new IllegalArgumentException("bad flag " + arg);
      String name = arg.substring(2, eq);
      String value = arg.substring(eq + 1);
      switch (name) {
        case "image" -> image = value;
        case "label" -> label = value;
        case "batch" -> batch = Long.parseLong(value);
        case "prefetch" -> prefetch = Integer.parseInt(value);
        case "batches" -> batches = Long.parseLong(value);
        case "warmup" -> warmup = Long.parseLong(value);
        case "validate" -> validate = Long.parseLong(value);
        default -> throw new IllegalArgumentException("unknown flag " + arg);
      }
    }
    if (image == null || label == null || batch < 1 || batches < 1 || prefetch < 1) {
      throw new IllegalArgumentException("--image and --label are needed, counts positive");
    }
  }

  private static void check(boolean condition, String what) {
    if (!condition) throw new AssertionError(what);
  }

  private static void validate(Batch b, long step, Sampler sampler) {
    check(b.step() == step, "got step " + b.step() + " for step " + step);
    long[] expected = sampler.next();
    long[] indices = b.indices();
    ByteBuffer images = b.stream("image");
    ByteBuffer labels = b.stream("label");
    check(images.isDirect() && labels.isDirect(), "the batch's buffers are copies");
    check(b.size() == batch && indices.length == batch, "a batch of " + b.size());
    long recordBytes = images.capacity() / batch;
    check(recordBytes >= 8 && labels.capacity() == 8 * batch, "unexpected record sizes");
    for (int i = 0; i < batch; i++) {
      long value = labels.getLong(8 * i);
      long stamp = images.getLong((int) (i * recordBytes));
      check(
          value == expected[i] && value == indices[i] && stamp == value,
          "step " + step + ", record " + i + ": the image, the label and the index differ");
    }
  }

  private static void run() throws Exception {
    try (Vfs vfs = Vfs.posix();
        DenseStore images = DenseStore.open(vfs, image, new StoreRequest().readOnly(true));
        DenseStore labels = DenseStore.open(vfs, label, new StoreRequest().readOnly(true))) {
      Map<String, TypedStore> streams = new LinkedHashMap<>();
      streams.put("image", images);
      streams.put("label", labels);
      double rate;
      try (DataLoader loader = new DataLoader(streams, batch, SamplerMode.CYCLIC, SEED, prefetch);
          Sampler sampler = new Sampler(loader.size(), batch, SamplerMode.CYCLIC, SEED)) {
        for (long step = 0; step < validate; step++) {
          try (Batch b = loader.next()) {
            validate(b, step, sampler);
          }
        }
        for (long i = 0; i < warmup; i++) {
          try (Batch b = loader.next()) {
            b.stream(0);
            b.stream(1);
          }
        }
        long start = System.nanoTime();
        for (long i = 0; i < batches; i++) {
          try (Batch b = loader.next()) {
            b.stream(0);
            b.stream(1);
          }
        }
        rate = batches / ((System.nanoTime() - start) / 1e9);
      }
      System.out.printf("{\"batches_per_s\": %.6g, \"peak_rss_mib\": %.1f}%n", rate, peakRssMib());
    }
  }

  /** The JVM's peak RSS (VmHWM), as the other contenders report theirs. */
  private static double peakRssMib() throws Exception {
    for (String line : Files.readAllLines(Paths.get("/proc/self/status"))) {
      if (line.startsWith("VmHWM:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0;
      }
    }
    return -1;
  }
}
