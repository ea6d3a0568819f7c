"""A PySpark round trip through the loaderx data source, then the data set
read with loaderx's Python store-set API.

    python3 pyspark_round_trip.py CONNECTOR_JAR LOADERX_JAR DIR

PySpark (its own Spark jars) in local mode with 4 task threads writes 20,000
generated rows (an id, a ragged int array, a label) with the connector jar
and loaderx.jar on `spark.jars`, reads them back with
`spark.read.format("loaderx")` (every id exactly once, each row with its own
values), then opens the id and label columns' store sets with
`loaderx.store_set.StoreSet` and checks them position by position. Prints
`pyspark: 20000 rows round-tripped` when every check holds; raises otherwise.
"""

import pathlib
import sys

import numpy as np
from pyspark.sql import SparkSession

from loaderx.store_set import StoreSet

ROWS = 20_000


def manifests(data: pathlib.Path) -> dict[str, pathlib.Path]:
    """Column name to manifest path, from the data set file (docs/spark.md)."""
    import json
    lines = (data / "_loaderx_dataset").read_text().splitlines()
    assert lines[0] == "loaderx-dataset 1", lines[0]
    names = []
    out = {}
    for line in lines[1:]:
        kind, _, rest = line.partition(" ")
        if kind == "schema":
            names = [f["name"] for f in json.loads(rest)["fields"]]
        elif kind == "set":
            column, _, manifest = rest.partition(" ")
            out[names[int(column)]] = data / manifest
    return out


def main(connector: str, loaderx_jar: str, directory: str) -> None:
    data = pathlib.Path(directory) / "pyspark"
    spark = (SparkSession.builder.master("local[4]")
             .appName("loaderx-pyspark")
             .config("spark.jars", f"{connector},{loaderx_jar}")
             .config("spark.ui.enabled", "false")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    try:
        df = (spark.range(0, ROWS, 1, 4)
              .selectExpr("id",
                          "transform(sequence(0, cast(id % 5 as int)),"
                          " j -> cast(id as int) + j) AS tokens",
                          "cast(id % 10 as int) AS label"))
        df.write.format("loaderx").mode("overwrite").save(str(data))
        back = spark.read.format("loaderx").load(str(data))
        assert back.count() == ROWS, back.count()
        assert back.groupBy("id").count().filter("count != 1").count() == 0
        wrong = back.filter("label != id % 10 OR size(tokens) != id % 5 + 1"
                            " OR tokens[0] != id").count()
        assert wrong == 0, f"{wrong} rows do not hold their own values"
        assert back.selectExpr("min(id)", "max(id)").first() == (0, ROWS - 1)
    finally:
        spark.stop()

    sets = manifests(data)
    with StoreSet(sets["id"]) as ids, \
            StoreSet(sets["label"]) as labels, \
            StoreSet(sets["tokens"]) as tokens:
        assert len(ids) == len(labels) == len(tokens) == ROWS
        assert tokens.kind == "ragged", tokens.kind
        id_values = np.asarray(ids.gather(np.arange(ROWS))).reshape(-1)
        label_values = np.asarray(labels.gather(np.arange(ROWS))).reshape(-1)
        assert sorted(id_values.tolist()) == list(range(ROWS))
        assert (label_values == id_values % 10).all()
        for position in (0, 7, ROWS // 2, ROWS - 1):
            row_id = int(id_values[position])
            record = np.asarray(tokens[position]).tolist()
            assert record == list(range(row_id, row_id + row_id % 5 + 1)), record
    print(f"pyspark: {ROWS} rows round-tripped")


if __name__ == "__main__":
    main(*sys.argv[1:])
