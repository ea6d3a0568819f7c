// Reads a dense and a ragged store written from Python (the path is the
// first argument) and iterates the DataLoader over them, checking that every
// batch's records agree: label i, tokens of shape (1 + i % 4,) all equal i.
import java.nio.ByteOrder
import org.loaderx.{Batch, DataLoader, DenseStore, RaggedStore, SamplerMode, TypedStore, Vfs}

object LoaderExample {
  def using[A <: AutoCloseable, B](resource: A)(body: A => B): B =
    try body(resource) finally resource.close()

  def main(args: Array[String]): Unit = {
    val root = args(0)
    using(Vfs.posix()) { vfs =>
      using(DenseStore.open(vfs, root + "/labels")) { labels =>
        using(RaggedStore.open(vfs, root + "/tokens")) { tokens =>
          val streams = new java.util.LinkedHashMap[String, TypedStore]()
          streams.put("label", labels)
          streams.put("tokens", tokens)
          val seed = 7L
          using(new DataLoader(streams, 8, SamplerMode.CYCLIC, seed, 2)) { loader =>
            var checked = 0L
            for (step <- 0 until 50) {
              using(loader.next()) { batch =>
                for (r <- 0 until batch.size()) {
                  val label = batch.stream("label").order(ByteOrder.LITTLE_ENDIAN).getLong(8 * r)
                  val shape = batch.shape("tokens", r)
                  val first = batch.record("tokens", r).order(ByteOrder.LITTLE_ENDIAN).getInt(0)
                  if (shape.toSeq != Seq(1 + label % 4) || first != label)
                    throw new AssertionError(s"step $step record $r is misaligned")
                  checked += 1
                }
              }
            }
            println(s"scala: loaded $checked aligned records from ${loader.size()} (store written by Python)")
          }
        }
      }
    }
  }
}
