// The Scala example of docs/spark.md, run by tools/ci/test_spark.sh: a
// DataFrame written with the loaderx data source and read back.
//
//   scala SparkExample DIR   (Spark's jars, loaderx.jar and loaderx-spark.jar
//                             on the class path)
import org.apache.spark.sql.SparkSession
import org.apache.spark.sql.functions.expr

object SparkExample {
  def main(args: Array[String]): Unit = {
    val spark = SparkSession.builder().master("local[4]").appName("loaderx-scala")
      .config("spark.ui.enabled", "false").getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    try {
      val df = spark.range(0, 10000, 1, 4)
        .withColumn("vec", expr("transform(array(1, 2, 3, 4), k -> cast(id * k as float))"))
        .withColumn("tokens", expr("sequence(0, cast(id % 7 as int))"))
        .withColumn("label", expr("cast(id % 10 as int)"))
      df.write.format("loaderx").option("width.vec", "4").mode("overwrite").save(args(0))
      val back = spark.read.format("loaderx").load(args(0))
      val rows = back.count()
      val ids = back.select("id").distinct().count()
      val wrong = back.filter("label != id % 10 OR size(tokens) != id % 7 + 1").count()
      require(rows == 10000 && ids == 10000 && wrong == 0, s"$rows rows, $ids ids, $wrong wrong")
      println(s"scala: $rows rows round-tripped")
    } finally spark.stop()
  }
}
